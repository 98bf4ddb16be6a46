/**
 * What a message is, written once: who may author one, how long its text may be, what it may carry. The D1
 * schema, the domain's message command, the API bodies, the live protocol and the event catalogue all derive
 * their shapes from here, so a limit changes in one place.
 */
import { z } from '@hono/zod-openapi';
import { httpsUrl } from '../lib/url-schemas';

export const AUTHOR_KINDS = ['contact', 'operator', 'bot', 'system'] as const;
export type AuthorKind = (typeof AUTHOR_KINDS)[number];

/** Longest message a visitor may send. */
export const MAX_VISITOR_TEXT = 4000;
/** Longest message the team, a bot or the system may send. */
export const MAX_OPERATOR_TEXT = 10_000;
export const MAX_ATTACHMENTS = 10;

/** The longest text `author` may send. */
export function maxTextFor(author: AuthorKind): number {
	return author === 'contact' ? MAX_VISITOR_TEXT : MAX_OPERATOR_TEXT;
}

/** A message text as every sender writes it: trimmed, not empty, at most `max` characters. */
export const messageText = (max: number) => z.string().trim().min(1).max(max);

export const attachmentSchema = z
	.strictObject({
		url: httpsUrl('must be an https URL').openapi({ description: 'Where the file is hosted (https).' }),
		name: z.string().min(1).max(255).openapi({ description: 'The file name shown.' }),
		contentType: z.string().min(3).max(127).openapi({ description: 'Its media type, e.g. `image/png`.' }),
		size: z
			.number()
			.int()
			.min(0)
			.max(100 * 1024 * 1024)
			.openapi({ description: 'Its size in bytes (100 MiB at most).' }),
	})
	.openapi('Attachment');

export type AttachmentMeta = z.infer<typeof attachmentSchema>;

/** What a data-entry prompt asks for: the widget adapts its composer (input type, validation) to it. */
export const INPUT_KINDS = ['text', 'number', 'email', 'phone', 'date', 'datetime', 'file'] as const;

/**
 * A message that asks the visitor for something: quick-reply buttons, a data-entry prompt or a 1-5 rating.
 * The visitor's answer is always an ordinary contact message (the chosen label, the value, the digit), so
 * history, unread counts and every consumer stay text-only. Sent by bots, operators and integrators; never
 * by a visitor.
 */
export const interactiveSchema = z
	.discriminatedUnion('type', [
		z.strictObject({
			type: z.literal('buttons').openapi({ description: 'Quick-reply buttons.' }),
			buttons: z
				.array(
					z.strictObject({
						label: z.string().trim().min(1).max(80).openapi({ description: 'The text, and the answer when chosen.' }),
					}),
				)
				.min(1)
				.max(10)
				// The answer is the label itself: two equal labels could not be told apart.
				.refine((buttons) => new Set(buttons.map((b) => b.label)).size === buttons.length, 'labels must differ')
				.openapi({ description: '1 to 10 buttons with different labels.' }),
		}),
		z.strictObject({
			type: z.literal('input').openapi({ description: 'A data-entry prompt.' }),
			input: z.enum(INPUT_KINDS).openapi({ description: 'What to ask for: the widget adapts its composer.' }),
			placeholder: z.string().trim().min(1).max(80).optional().openapi({ description: 'A hint inside the input.' }),
		}),
		// The spec's rating scale is 1 to 5; `max` is explicit so a wider scale can come without a new type.
		z.strictObject({
			type: z.literal('rating').openapi({ description: 'A rating from 1 to `max`.' }),
			max: z.literal(5).openapi({ description: 'The top of the scale.' }),
		}),
	])
	.openapi('Interactive', {
		description: 'Asks the visitor for an answer; the answer comes back as an ordinary contact message.',
	});

export type Interactive = z.infer<typeof interactiveSchema>;

/**
 * Quick replies from labels a bot or a scenario rendered: trimmed, cut to 80 characters, blanks and repeats
 * dropped (the answer is the label, so two equal ones could not be told apart); null when none is left.
 */
export function quickReplies(labels: readonly string[] | undefined): Interactive | null {
	const kept = [...new Set((labels ?? []).map((label) => label.trim().slice(0, 80)).filter(Boolean))];
	return kept.length > 0 ? { type: 'buttons', buttons: kept.map((label) => ({ label })) } : null;
}

/** A message as the API, the console and the live protocol show it. */
export const messageSchema = z
	.object({
		id: z.string().openapi({ description: 'The message id.', example: 'msg_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		conversationId: z.string().openapi({ description: 'The conversation it belongs to.' }),
		seq: z.number().int().openapi({
			description:
				'Position in the conversation, from 1, without gaps for the team; what a visitor reads skips the private notes’ numbers.',
		}),
		authorKind: z
			.enum(AUTHOR_KINDS)
			.openapi({ description: 'Who wrote it: `contact` (the visitor), `operator`, `bot` or `system`.' }),
		authorId: z
			.string()
			.nullable()
			.openapi({ description: "The operator's id for operator messages; null otherwise." }),
		text: z.string().openapi({ description: 'The message text.' }),
		attachments: z.array(attachmentSchema).openapi({ description: 'Attached files.' }),
		interactive: interactiveSchema.nullable().openapi({ description: 'Null for a plain message.' }),
		clientMessageId: z
			.string()
			.nullable()
			.openapi({ description: "The sender's own id for retries; a visitor sees only its own." }),
		private: z.boolean().openapi({
			description:
				'A private note: written by an operator for the team, never shown to the visitor (always false in what the widget reads).',
		}),
		createdAt: z
			.string()
			.openapi({ description: 'When it was stored (ISO 8601).', example: '2026-11-21T12:00:00.000Z' }),
	})
	.openapi('Message');

export type MessageView = z.infer<typeof messageSchema>;
