/**
 * The message command: what every sender (the API, the widget, a socket, and later a bot, a scenario or a
 * rule) hands the conversation's room to add a message, and what the room answers. The room checks it with
 * `checkMessage` inside its write path, so a sender inside the system cannot skip a check an HTTP route makes.
 */
import { z } from '@hono/zod-openapi';
import { type FieldProblem, Invalid, problemsOf } from '../../lib/errors';
import { type Actor, actorSchema } from '../../model/actor';
import {
	AUTHOR_KINDS,
	type AuthorKind,
	attachmentSchema,
	type Interactive,
	interactiveSchema,
	MAX_ATTACHMENTS,
	maxTextFor,
} from '../../model/messages';
import type { MessageView } from './messages';

export interface MessageCommand {
	workspaceId: string;
	conversationId: string;
	authorKind: AuthorKind;
	/** The operator (or bot) who wrote it; null for the contact and the system. */
	authorId: string | null;
	text: string;
	attachments: z.infer<typeof attachmentSchema>[];
	/** Buttons, a data-entry prompt or a rating for the visitor to answer; never from the contact. */
	interactive?: Interactive | null;
	/** A client's own id for the message (or an API Idempotency-Key): a retry never duplicates. */
	clientMessageId: string | null;
	/**
	 * A private note: the team's message to itself, stored and numbered like any other but never shown to the
	 * visitor, and no reply (see `isTeamReply`). Only an operator writes one.
	 */
	private?: boolean;
	/**
	 * Who caused it, when that is not the author: a rule or a scenario posting as a bot, say. Defaults to the
	 * author (see `messageActor`).
	 */
	actor?: Actor;
}

const commandSchema = z
	.object({
		workspaceId: z.string().min(1),
		conversationId: z.string().min(1),
		authorKind: z.enum(AUTHOR_KINDS),
		authorId: z.string().min(1).max(64).nullable(),
		text: z.string().trim().min(1, 'a message needs some text'),
		attachments: z.array(attachmentSchema).max(MAX_ATTACHMENTS),
		interactive: interactiveSchema.nullable().default(null),
		clientMessageId: z.string().min(1).max(200).nullable(),
		private: z.boolean().default(false),
		actor: actorSchema.optional(),
	})
	.superRefine((command, ctx) => {
		const max = maxTextFor(command.authorKind);
		if (command.text.length > max) {
			ctx.addIssue({ code: 'custom', path: ['text'], message: `a message may be at most ${max} characters` });
		}
		if (command.authorKind === 'contact' && command.interactive !== null) {
			ctx.addIssue({ code: 'custom', path: ['interactive'], message: 'a visitor cannot send an interactive message' });
		}
		if (command.authorKind === 'operator' && command.authorId === null) {
			ctx.addIssue({ code: 'custom', path: ['authorId'], message: "an operator's message names its operator" });
		}
		if (command.authorKind === 'contact' && command.authorId !== null) {
			ctx.addIssue({ code: 'custom', path: ['authorId'], message: "the contact's messages carry no author id" });
		}
		// A note is a person of the team writing to the team: a visitor, a bot or the system has no one to hide from.
		if (command.private && command.authorKind !== 'operator') {
			ctx.addIssue({ code: 'custom', path: ['private'], message: 'only an operator writes a private note' });
		}
		// The visitor never sees a note, so it could never answer what one asks.
		if (command.private && command.interactive !== null) {
			ctx.addIssue({ code: 'custom', path: ['interactive'], message: 'a private note asks the visitor nothing' });
		}
	});

/**
 * A command as the room stores it: text trimmed and well-formed, interactive parsed (null for none), `private`
 * said (false for an ordinary message).
 */
export type CheckedMessage = Omit<MessageCommand, 'interactive' | 'private'> & {
	interactive: Interactive | null;
	private: boolean;
};

/**
 * Checks a message command: its problems, each with its field, or the command as it is stored. Text is made
 * well-formed here (a lone UTF-16 surrogate, which SQLite would store as U+FFFD, becomes U+FFFD already), so
 * the stored text, a retry's comparison and what the sender is answered agree; and the interactive part is
 * the parsed one, so the same content always stores as the same JSON and a retried send compares equal.
 */
export function checkMessage(
	command: MessageCommand,
): { ok: true; message: CheckedMessage } | { ok: false; problems: FieldProblem[] } {
	const parsed = commandSchema.safeParse(command);
	if (!parsed.success) return { ok: false, problems: problemsOf(parsed.error.issues) };
	const { actor, ...rest } = parsed.data;
	const message: CheckedMessage = { ...rest, text: rest.text.toWellFormed() };
	return { ok: true, message: actor ? { ...message, actor } : message };
}

/** The domain error of a refused command: each problem with its field. */
export function invalidMessage(problems: FieldProblem[]): Invalid {
	return new Invalid(problems.map((p) => p.message).join('; '), { problems });
}

/** Who caused a message: the command's actor, else its author. */
export function messageActor(command: Pick<MessageCommand, 'authorKind' | 'authorId' | 'actor'>): Actor {
	return command.actor ?? { kind: command.authorKind, id: command.authorId };
}

/** What the room answers a command. `d1Statements`: what the call sent to D1 (with any write it shared). */
export type PostOutcome =
	| {
			status: 'created' | 'replayed';
			message: MessageView;
			d1Statements: number;
			/** The bookmark of the room's latest D1 write (the API's answer passes it on), if it made one. */
			d1Bookmark?: string | null;
			/** Where the room's time went, in ms (for the caller's Server-Timing): `open`, `stored`, `d1`. */
			spans?: Record<string, number>;
	  }
	| { status: 'not_found' }
	/** The client message id was already used for a different message. */
	| { status: 'conflict' }
	/** A visitor wrote on a closed conversation of a workspace whose visitors start a new one instead. */
	| { status: 'closed' }
	/** The conversation's channel cannot carry it now (a WhatsApp conversation's 24-hour window closed). */
	| { status: 'refused'; reason: string }
	/** The command breaks a rule (`checkMessage`): nothing was stored. */
	| { status: 'invalid'; problems: FieldProblem[] };

/** A repeated client message id: the stored message, or `conflict` when it was a different one. */
export type Replayed =
	| { status: 'replayed'; message: MessageView; d1Statements: number; d1Bookmark?: string | null }
	| { status: 'conflict' };

/** `replay`: as `Replayed`, or `absent` for a new client message id. */
export type ReplayOutcome =
	| Replayed
	| { status: 'not_found' }
	| { status: 'absent' }
	| { status: 'invalid'; problems: FieldProblem[] };
