/**
 * Meta's status webhooks applied to what Parley sent (`whatsapp_deliveries`, by the wamid the Cloud API
 * answered with): `sent`, `delivered` and `read` only move a delivery forward, each with its time (Meta may
 * skip or reorder them, WHATSAPP-REF §3); `failed` records Meta's code and title unless the message was
 * already delivered. A `read` also moves the contact's read position in the conversation, as the widget's
 * read receipt does. A wamid Parley never sent (another system on the same number) is ignored.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { whatsappDeliveries } from '../../../db/schema';
import { sentAtOf } from '../../../engines/whatsapp/inbound';
import { markRead } from '../../conversations/live';
import type { OpenNumber } from './graph';
import type { WebhookStatus } from './webhook-payload';

/** How far a delivery has come: a status only replaces one of a lower rank. */
const RANK_SQL = sql`CASE ${whatsappDeliveries.status} WHEN 'queued' THEN 0 WHEN 'sending' THEN 1 WHEN 'sent' THEN 2
	WHEN 'delivered' THEN 3 WHEN 'read' THEN 4 ELSE 5 END`;
const RANK = { sent: 2, delivered: 3, read: 4 } as const;

export type StatusOutcome = 'applied' | 'unchanged' | 'unknown';

/** Applies one status of `number`'s webhook (see the module's comment). */
export async function applyStatus(
	env: Env,
	db: Database,
	number: OpenNumber,
	status: WebhookStatus,
	now = Date.now(),
): Promise<StatusOutcome> {
	const at = sentAtOf(status.timestamp, now);
	const mine = and(
		eq(whatsappDeliveries.wamid, status.id),
		eq(whatsappDeliveries.workspaceId, number.workspaceId),
		eq(whatsappDeliveries.numberId, number.id),
	);
	let changed: { conversationId: string | null; messageSeq: number | null }[];
	if (status.status === 'failed') {
		const error = status.errors?.[0];
		const title = error?.title ?? error?.message ?? 'Failed';
		const details = error?.error_data?.details;
		changed = await db
			.update(whatsappDeliveries)
			.set({
				status: 'failed',
				errorCode: error?.code ?? null,
				error: (details ? `${title}: ${details}` : title).slice(0, 1000),
				updatedAt: now,
			})
			.where(and(mine, sql`${RANK_SQL} < ${RANK.delivered}`))
			.returning({ conversationId: whatsappDeliveries.conversationId, messageSeq: whatsappDeliveries.messageSeq });
	} else if (status.status === 'sent' || status.status === 'delivered' || status.status === 'read') {
		const rank = RANK[status.status];
		// Each time is kept once (the first report); a later status fills the earlier ones Meta skipped.
		changed = await db
			.update(whatsappDeliveries)
			.set({
				status: sql`CASE WHEN ${RANK_SQL} < ${rank} THEN ${status.status} ELSE ${whatsappDeliveries.status} END`,
				sentAt: sql`COALESCE(${whatsappDeliveries.sentAt}, ${at})`,
				...(rank >= RANK.delivered ? { deliveredAt: sql`COALESCE(${whatsappDeliveries.deliveredAt}, ${at})` } : {}),
				...(rank >= RANK.read ? { readAt: sql`COALESCE(${whatsappDeliveries.readAt}, ${at})` } : {}),
				updatedAt: now,
			})
			.where(and(mine, sql`${RANK_SQL} <= ${rank}`))
			.returning({ conversationId: whatsappDeliveries.conversationId, messageSeq: whatsappDeliveries.messageSeq });
	} else {
		// `played` (a voice note) and whatever Meta adds: nothing Parley shows.
		return 'unchanged';
	}
	const row = changed[0];
	if (!row) {
		const known = await db.select({ id: whatsappDeliveries.id }).from(whatsappDeliveries).where(mine).get();
		return known ? 'unchanged' : 'unknown';
	}
	if (status.status === 'read' && row.conversationId && row.messageSeq !== null) {
		await markRead(env, number.workspaceId, row.conversationId, 'contact', null, row.messageSeq);
	}
	return 'applied';
}
