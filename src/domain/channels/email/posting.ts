/**
 * A person's mail becoming a message: threaded into its conversation (the reply address first, then
 * `In-Reply-To`/`References` in the workspace's mail threads, never the subject) or starting one on channel
 * `email` with its subject and the contact found or created by address; posted as the contact through the one
 * door, `postMessage`, with the mail's Message-ID as the client message id, so a mail delivered twice posts once.
 *
 * A reply to a closed conversation reopens it, as Chatwoot and Intercom do, by the same rule as a widget
 * visitor's message (the room decides against D1); a workspace whose visitors start a new conversation instead
 * (`closedConversationReply: new`) gets a new e-mail conversation, threaded from then on.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { sha256Hex } from '../../../auth/token';
import type { Database } from '../../../db/client';
import { contacts, conversations, mailThreads } from '../../../db/schema';
import { chosenLabel } from '../../../engines/mail/choices';
import { foldPlainText } from '../../../engines/mail/quoted-text';
import { SYSTEM } from '../../../model/actor';
import { EMAIL_CHANNEL } from '../../../model/email';
import { MAX_VISITOR_TEXT } from '../../../model/messages';
import { postMessage } from '../../conversations/live';
import { startConversation } from '../../conversations/start';
import { upsertContact } from '../../crm/contact-records';
import { offeredButtons, postInbound } from '../inbound';
import { storeMailFiles } from './mail-files';
import type { ParsedMail } from './parsed-mail';

/** The key a mail is known by: its Message-ID, else a hash of its bytes (a redelivery has the same bytes). */
export async function mailKey(parsed: Pick<ParsedMail, 'messageId'>, raw: ArrayBuffer): Promise<string> {
	if (parsed.messageId) return parsed.messageId;
	return `sha256:${await sha256Hex(new Uint8Array(raw))}`;
}

/** The client message id (and start key) of a mail: `mail:<key>`, hashed when a long Message-ID would not fit. */
export async function mailClientId(key: string): Promise<string> {
	const id = `mail:${key}`;
	return id.length <= 200 ? id : `mail:sha256:${await sha256Hex(key)}`;
}

/**
 * The conversation a reply's headers name in the workspace: the newest of its `In-Reply-To`/`References`
 * ids Parley knows, when that conversation is the sender's (a Message-ID travels to every recipient of a
 * thread, so it alone does not let a third party write into someone else's conversation). `anyone` skips
 * that check, for what is only shown beside the conversation and never posted (a bounce of Parley's own mail).
 */
export async function threadedConversation(
	db: Database,
	workspaceId: string,
	threadIds: readonly string[],
	sender: string | 'anyone',
): Promise<string | null> {
	const ids = threadIds.slice(0, 50);
	if (ids.length === 0) return null;
	const rows = await db
		.select({ messageId: mailThreads.messageId, conversationId: mailThreads.conversationId, email: contacts.email })
		.from(mailThreads)
		.innerJoin(conversations, eq(conversations.id, mailThreads.conversationId))
		.innerJoin(contacts, eq(contacts.id, conversations.contactId))
		.where(and(eq(mailThreads.workspaceId, workspaceId), inArray(mailThreads.messageId, ids)));
	for (const id of ids) {
		const row = rows.find((r) => r.messageId === id);
		if (row && (sender === 'anyone' || row.email === sender)) return row.conversationId;
	}
	return null;
}

/** Records the mail's Message-ID as the conversation's, so replies to it thread. */
export async function recordThread(
	db: Database,
	workspaceId: string,
	key: string,
	conversationId: string,
	now: number,
) {
	if (key.startsWith('sha256:')) return;
	await db
		.insert(mailThreads)
		.values({ workspaceId, messageId: key, conversationId, createdAt: now })
		.onConflictDoNothing();
}

/** The message text: what the customer wrote, cut to a visitor's limit, with what was left out said. */
export function messageText(parsed: ParsedMail, leftOut: readonly string[]): { text: string; cut: boolean } {
	const notes = leftOut.map((note) => `[${note}]`).join('\n');
	const room = MAX_VISITOR_TEXT - notes.length - 60;
	let body = foldPlainText(parsed.text).visible || parsed.subject || '(empty mail)';
	const cut = body.length > room;
	if (cut) body = `${body.slice(0, room)}\n[cut here: the whole mail is in the original]`;
	return { text: notes ? `${body}\n\n${notes}` : body, cut };
}

/**
 * The button a one-line reply chose, when the conversation's latest message to the customer offered buttons
 * (the mail listed them numbered): its label, so the reply is the press a widget visitor makes. Null for
 * anything else, which is posted as written.
 */
async function answeredChoice(db: Database, workspaceId: string, conversationId: string, text: string) {
	if (text.trim().includes('\n')) return null;
	const labels = await offeredButtons(db, workspaceId, conversationId);
	return labels.length === 0 ? null : chosenLabel(text, labels);
}

export interface PostedMail {
	conversationId: string;
	messageId: string;
	/** False when the mail had been posted before (a redelivery). */
	created: boolean;
	/** What stayed in the original or was cut, for the admin. */
	notes: string[];
}

/** Starts the mail's conversation (or finds the one a redelivery of it started). */
async function startFor(env: Env, db: Database, workspaceId: string, parsed: ParsedMail, startKey: string) {
	const sender = parsed.sender ?? '';
	const started = await startConversation(env, db, {
		workspaceId,
		channel: EMAIL_CHANNEL,
		subject: parsed.subject || null,
		startKey,
		actor: { kind: 'contact', id: null },
		contact: async () => {
			const known = await db
				.select({ id: contacts.id })
				.from(contacts)
				.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.email, sender)))
				.get();
			if (known) return known.id;
			const fields = parsed.senderName ? { name: parsed.senderName } : {};
			return (await upsertContact(env, db, workspaceId, { field: 'email', value: sender }, fields, SYSTEM)).id;
		},
		message: null,
	});
	return started.id;
}

/**
 * Posts a person's mail (see the module's comment). `replyConversation` is the conversation a verified reply
 * address named, if any. `origin` links the stored files.
 */
export async function postMail(
	env: Env,
	db: Database,
	workspaceId: string,
	parsed: ParsedMail,
	raw: ArrayBuffer,
	replyConversation: string | null,
	origin: string | null,
	now: number,
): Promise<PostedMail> {
	const key = await mailKey(parsed, raw);
	const clientMessageId = await mailClientId(key);
	const threaded =
		replyConversation ?? (await threadedConversation(db, workspaceId, parsed.threadIds, parsed.sender ?? ''));
	const post = async (target: string) => {
		const files = await storeMailFiles(
			env,
			workspaceId,
			target,
			key,
			parsed.attachments,
			parsed.email.html ?? null,
			origin,
		);
		const { text, cut } = messageText(parsed, files.leftOut);
		const choice = files.leftOut.length === 0 && !cut ? await answeredChoice(db, workspaceId, target, text) : null;
		const posted = await postMessage(env, {
			workspaceId,
			conversationId: target,
			authorKind: 'contact',
			authorId: null,
			text: choice ?? text,
			attachments: files.attachments,
			clientMessageId,
		});
		return { posted, notes: cut ? [...files.leftOut, 'the text was cut to a message’s limit'] : files.leftOut };
	};
	const { conversationId, posted: result } = await postInbound({
		found: threaded,
		start: () => startFor(env, db, workspaceId, parsed, clientMessageId),
		post,
	});
	await recordThread(db, workspaceId, key, conversationId, now);
	return {
		conversationId,
		messageId: result.posted.message.id,
		created: result.posted.created,
		notes: result.notes,
	};
}
