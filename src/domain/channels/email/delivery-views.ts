/**
 * Mail deliveries as the API shows them: a message's mail state (derived from the deliveries whose seq range
 * covers it, never written on the message, so the room's own writes to its rows never race the sender's) and
 * an admin's list of the workspace's deliveries.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq, gte, lte } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { mailDeliveries } from '../../../db/schema';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../../lib/cursor';
import { iso } from '../../../lib/ids';
import { MAIL_DELIVERY_KINDS, MAIL_DELIVERY_STATUSES } from '../../../model/email';
import type { DeliveryRow } from './deliveries';

export const messageMailSchema = z
	.object({
		status: z.enum(MAIL_DELIVERY_STATUSES).openapi({
			description:
				'`queued`, `sending`, `sent`, `failed` (the provider refused it or every try failed) or `skipped` (Parley did not send it).',
		}),
		error: z.string().optional().openapi({ description: 'The provider’s reason, or why it was skipped.' }),
	})
	.openapi('MessageMail', { description: 'Where the mail carrying this message stands.' });
export type MessageMail = z.infer<typeof messageMailSchema>;

/**
 * The reason a delivery shows: a failed or skipped one's; a queued delivery's last error is that of a try that
 * will be made again, not the outcome, and a sent one has none.
 */
export function shownMailError(row: Pick<DeliveryRow, 'status' | 'error'>): string | null {
	return row.error && row.status !== 'queued' && row.status !== 'sent' ? row.error : null;
}

/**
 * The mail state of each of the conversation's messages between `fromSeq` and `toSeq`, by seq: the newest
 * delivery covering it. A message no mail carries has none.
 */
export async function messageMailStates(
	db: Database,
	workspaceId: string,
	conversationId: string,
	fromSeq: number,
	toSeq: number,
): Promise<Map<number, MessageMail>> {
	const rows = await db
		.select({
			firstSeq: mailDeliveries.firstSeq,
			lastSeq: mailDeliveries.lastSeq,
			status: mailDeliveries.status,
			error: mailDeliveries.error,
		})
		.from(mailDeliveries)
		.where(
			and(
				eq(mailDeliveries.conversationId, conversationId),
				eq(mailDeliveries.workspaceId, workspaceId),
				lte(mailDeliveries.firstSeq, toSeq),
				gte(mailDeliveries.lastSeq, fromSeq),
			),
		)
		.orderBy(mailDeliveries.createdAt);
	const states = new Map<number, MessageMail>();
	for (const row of rows) {
		if (row.firstSeq === null || row.lastSeq === null) continue;
		const error = shownMailError(row);
		const shown: MessageMail = error === null ? { status: row.status } : { status: row.status, error };
		for (let seq = Math.max(row.firstSeq, fromSeq); seq <= Math.min(row.lastSeq, toSeq); seq++) states.set(seq, shown);
	}
	return states;
}

/**
 * Adds `mail` to the messages a mail carries (the team's, not private). One read for the page, whatever its
 * size.
 */
export async function withMailStates<M extends { seq: number; authorKind: string; private: boolean }>(
	db: Database,
	workspaceId: string,
	conversationId: string,
	page: M[],
): Promise<Array<M & { mail?: MessageMail }>> {
	const carried = page.filter((m) => m.authorKind !== 'contact' && !m.private);
	const first = carried[0];
	const last = carried.at(-1);
	if (first === undefined || last === undefined) return page;
	const states = await messageMailStates(db, workspaceId, conversationId, first.seq, last.seq);
	if (states.size === 0) return page;
	return page.map((m) => {
		const mail = m.authorKind !== 'contact' && !m.private ? states.get(m.seq) : undefined;
		return mail ? { ...m, mail } : m;
	});
}

export const mailDeliverySchema = z
	.object({
		id: z.string().openapi({ description: 'The delivery id.', example: 'mail_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		kind: z.enum(MAIL_DELIVERY_KINDS).openapi({ description: 'Why Parley sent it.' }),
		status: z.enum(MAIL_DELIVERY_STATUSES).openapi({ description: 'Where it stands.' }),
		recipient: z.string().openapi({ description: 'Where it goes.' }),
		conversationId: z.string().nullable().openapi({ description: 'The conversation whose messages it carries.' }),
		contactId: z.string().nullable().openapi({ description: 'The contact it is for.' }),
		firstSeq: z.number().int().nullable().openapi({ description: 'The first message it carries, by `seq`.' }),
		lastSeq: z.number().int().nullable().openapi({ description: 'The last message it carries, by `seq`.' }),
		attempts: z.number().int().openapi({ description: 'How many times a consumer claimed it.' }),
		messageId: z
			.string()
			.nullable()
			.openapi({ description: 'The Message-ID it went out with (the provider’s), once sent.' }),
		error: z.string().nullable().openapi({ description: 'The provider’s reason, or why it was skipped.' }),
		createdAt: z.string().openapi({ description: 'When it was queued (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'Its last change (ISO 8601).' }),
		sentAt: z.string().nullable().openapi({ description: 'When the provider took it (ISO 8601).' }),
	})
	.openapi('MailDelivery');

function deliveryView(row: DeliveryRow): z.infer<typeof mailDeliverySchema> {
	return {
		id: row.id,
		kind: row.kind,
		status: row.status,
		recipient: row.recipient,
		conversationId: row.conversationId,
		contactId: row.contactId,
		firstSeq: row.firstSeq,
		lastSeq: row.lastSeq,
		attempts: row.attempts,
		messageId: row.headerMessageId,
		error: row.error,
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
		sentAt: row.sentAt === null ? null : iso(row.sentAt),
	};
}

/** A page of the workspace's deliveries, newest first, optionally of one status. */
export async function listDeliveries(
	db: Database,
	workspaceId: string,
	filters: { status?: DeliveryRow['status'] },
	after: NewestFirstCursor | null,
	limit: number,
) {
	const rows = await db
		.select()
		.from(mailDeliveries)
		.where(
			and(
				eq(mailDeliveries.workspaceId, workspaceId),
				filters.status ? eq(mailDeliveries.status, filters.status) : undefined,
				afterNewestFirst(mailDeliveries.createdAt, mailDeliveries.id, after),
			),
		)
		.orderBy(desc(mailDeliveries.createdAt), desc(mailDeliveries.id))
		.limit(limit + 1);
	return pageOf(rows, limit, deliveryView, (row) => ({ at: row.createdAt, id: row.id }));
}
