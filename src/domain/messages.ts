import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, or, type SQL, sql } from 'drizzle-orm';
import { type Database, runBatch } from '../db/client';
import { type AttachmentMeta, messages } from '../db/schema';
import { Invalid, NotFound } from '../lib/errors';
import { iso, newId } from '../lib/ids';

export const AUTHOR_KINDS = ['contact', 'operator', 'bot', 'system'] as const;
export type AuthorKind = (typeof AUTHOR_KINDS)[number];

export const attachmentSchema = z
	.strictObject({
		url: z.url({ protocol: /^https$/, error: 'must be an https URL' }),
		name: z.string().min(1).max(255),
		contentType: z.string().min(3).max(127),
		size: z
			.number()
			.int()
			.min(0)
			.max(100 * 1024 * 1024),
	})
	.openapi('Attachment');

export const messageSchema = z
	.object({
		id: z.string().openapi({ example: 'msg_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		conversationId: z.string(),
		seq: z.number().int().openapi({ description: 'Position in the conversation, from 1, without gaps.' }),
		authorKind: z.enum(AUTHOR_KINDS),
		authorId: z.string().nullable(),
		text: z.string(),
		attachments: z.array(attachmentSchema),
		clientMessageId: z.string().nullable(),
		createdAt: z.string().openapi({ example: '2026-11-21T12:00:00.000Z' }),
	})
	.openapi('Message');

export type MessageView = z.infer<typeof messageSchema>;

type MessageRow = typeof messages.$inferSelect;

export function messageView(row: MessageRow): MessageView {
	return {
		id: row.id,
		conversationId: row.conversationId,
		seq: row.seq,
		authorKind: row.authorKind,
		authorId: row.authorId,
		text: row.body,
		attachments: row.attachments,
		clientMessageId: row.clientMessageId,
		createdAt: iso(row.createdAt),
	};
}

export interface NewMessage {
	workspaceId: string;
	conversationId: string;
	authorKind: AuthorKind;
	authorId: string | null;
	text: string;
	attachments: AttachmentMeta[];
	/** Makes the append idempotent: a second append with the same id returns the first message. */
	clientMessageId: string | null;
}

/**
 * The statements that append one message: insert it with the conversation's next sequence number (taken
 * from the conversation row inside the same statement, so two writers can never share a number), then
 * bump the conversation's summary only if the insert happened. Run them in one D1 batch (a transaction).
 */
export function appendMessageStatements(message: NewMessage, id: string, now: number): SQL[] {
	const fromContact = message.authorKind === 'contact' ? 1 : 0;
	const insert = sql`
		INSERT INTO messages (id, workspace_id, conversation_id, seq, author_kind, author_id, body, attachments, client_message_id, created_at)
		SELECT ${id}, workspace_id, id, last_message_seq + 1, ${message.authorKind}, ${message.authorId}, ${message.text},
			${JSON.stringify(message.attachments)}, ${message.clientMessageId}, ${now}
		FROM conversations WHERE id = ${message.conversationId} AND workspace_id = ${message.workspaceId}
		ON CONFLICT (conversation_id, client_message_id) DO NOTHING`;
	const summary = sql`
		UPDATE conversations SET
			last_message_seq = last_message_seq + 1,
			last_message_at = ${now}, last_activity_at = ${now}, updated_at = ${now},
			unread_by_operators = unread_by_operators + ${fromContact},
			unread_by_contact = unread_by_contact + ${1 - fromContact}
		WHERE id = ${message.conversationId} AND workspace_id = ${message.workspaceId}
			AND EXISTS (SELECT 1 FROM messages WHERE id = ${id})`;
	return [insert, summary];
}

function stored(db: Database, message: NewMessage, id: string) {
	const sameClientId: SQL | undefined =
		message.clientMessageId === null
			? undefined
			: and(eq(messages.conversationId, message.conversationId), eq(messages.clientMessageId, message.clientMessageId));
	return db
		.select()
		.from(messages)
		.where(and(eq(messages.workspaceId, message.workspaceId), or(eq(messages.id, id), sameClientId)));
}

export interface AppendResult {
	message: MessageView;
	/** False when a message with the same client id already existed and is returned instead. */
	created: boolean;
}

/**
 * Appends a message to a conversation: one transaction that writes, then one read of what was stored (the
 * new message, or the first one for a repeated client id). Throws NotFound when the conversation is not in
 * the workspace, Invalid when the client id was already used for a different message.
 */
export async function appendMessage(db: Database, message: NewMessage, now = Date.now()): Promise<AppendResult> {
	const id = newId('msg', now);
	await runBatch(db, appendMessageStatements(message, id, now));
	const row = await stored(db, message, id).get();
	if (!row) throw new NotFound(`Conversation ${message.conversationId} not found.`);
	if (row.id !== id && (row.body !== message.text || row.authorId !== message.authorId)) {
		throw new Invalid('This Idempotency-Key was already used for a different message.');
	}
	return { message: messageView(row), created: row.id === id };
}

/** A page of a conversation's messages, oldest first, after sequence number `afterSeq`. */
export async function listMessages(
	db: Database,
	workspaceId: string,
	conversationId: string,
	afterSeq: number,
	limit: number,
): Promise<MessageRow[]> {
	return db
		.select()
		.from(messages)
		.where(
			and(
				eq(messages.workspaceId, workspaceId),
				eq(messages.conversationId, conversationId),
				gt(messages.seq, afterSeq),
			),
		)
		.orderBy(asc(messages.seq))
		.limit(limit);
}
