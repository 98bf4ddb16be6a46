import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Database } from '../db/client';
import { messages } from '../db/schema';
import { iso } from '../lib/ids';

export const AUTHOR_KINDS = ['contact', 'operator', 'bot', 'system'] as const;
export type AuthorKind = (typeof AUTHOR_KINDS)[number];

export const attachmentSchema = z
	.strictObject({
		url: z
			.url({ protocol: /^https$/, error: 'must be an https URL' })
			.openapi({ description: 'Where the file is hosted (https).' }),
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

/** What a data-entry prompt asks for: the widget adapts its composer (input type, validation) to it. */
export const INPUT_KINDS = ['text', 'number', 'email', 'phone', 'date', 'datetime'] as const;

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

export const messageSchema = z
	.object({
		id: z.string().openapi({ description: 'The message id.', example: 'msg_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		conversationId: z.string().openapi({ description: 'The conversation it belongs to.' }),
		seq: z.number().int().openapi({ description: 'Position in the conversation, from 1, without gaps.' }),
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
		createdAt: z
			.string()
			.openapi({ description: 'When it was stored (ISO 8601).', example: '2026-11-21T12:00:00.000Z' }),
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
		interactive: row.interactive ?? null,
		clientMessageId: row.clientMessageId,
		createdAt: iso(row.createdAt),
	};
}

/** The client message id a visitor's send is stored under (the widget's own id, namespaced by visitor). */
export function visitorClientId(visitorId: string, id: string): string {
	return `v:${visitorId}:${id}`;
}

/**
 * A message as a visitor may see it: the client id only on the contact's own messages, as the widget sent
 * it; the team's (an integrator's Idempotency-Key, say) are not the visitor's business, and neither is which
 * operator wrote a reply (`authorId` is null: the author kind and the widget's display name say enough).
 */
export function visitorView(message: MessageView): MessageView {
	const own = message.authorKind === 'contact' && message.clientMessageId?.startsWith('v:');
	return {
		...message,
		authorId: message.authorKind === 'contact' ? message.authorId : null,
		clientMessageId: own ? (message.clientMessageId?.replace(/^v:[^:]*:/, '') ?? null) : null,
	};
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
