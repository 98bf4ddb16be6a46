/**
 * WhatsApp deliveries as the message list shows them: each team message's WhatsApp state (derived from its
 * delivery, never written on the message, so the room's writes to its rows never race the sender's), beside
 * e-mail's `mail`.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, gte, lte } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { whatsappDeliveries } from '../../../db/schema';
import { WHATSAPP_DELIVERY_STATUSES } from '../../../model/whatsapp';

export const messageWhatsappSchema = z
	.object({
		status: z.enum(WHATSAPP_DELIVERY_STATUSES).openapi({
			description:
				'`queued`, `sending`, `sent` (Meta accepted it), `delivered`, `read`, `failed` (Meta refused it or every try failed: its code and title in `error`) or `skipped` (Parley did not send it: outside the 24-hour window, no number).',
		}),
		error: z.string().optional().openapi({ description: 'Meta’s code and title, or why it was skipped.' }),
	})
	.openapi('MessageWhatsapp', { description: 'Where the WhatsApp message carrying this message stands.' });
export type MessageWhatsapp = z.infer<typeof messageWhatsappSchema>;

/**
 * Adds `whatsapp` to the messages a WhatsApp delivery carries (the team's, not private), by seq: the newest
 * delivery of each. One read for the page, whatever its size.
 */
export async function withWhatsappStates<M extends { seq: number; authorKind: string; private: boolean }>(
	db: Database,
	workspaceId: string,
	conversationId: string,
	page: M[],
): Promise<Array<M & { whatsapp?: MessageWhatsapp }>> {
	const carried = page.filter((m) => m.authorKind !== 'contact' && !m.private);
	const first = carried[0];
	const last = carried.at(-1);
	if (first === undefined || last === undefined) return page;
	const rows = await db
		.select({ seq: whatsappDeliveries.messageSeq, status: whatsappDeliveries.status, error: whatsappDeliveries.error })
		.from(whatsappDeliveries)
		.where(
			and(
				eq(whatsappDeliveries.workspaceId, workspaceId),
				eq(whatsappDeliveries.conversationId, conversationId),
				gte(whatsappDeliveries.messageSeq, first.seq),
				lte(whatsappDeliveries.messageSeq, last.seq),
			),
		)
		.orderBy(whatsappDeliveries.createdAt);
	if (rows.length === 0) return page;
	const states = new Map<number, MessageWhatsapp>();
	for (const row of rows) {
		if (row.seq === null) continue;
		// A queued delivery's last error is that of a try that will be made again: not shown as the outcome.
		const shown = row.error && (row.status === 'failed' || row.status === 'skipped');
		states.set(row.seq, shown ? { status: row.status, error: row.error ?? '' } : { status: row.status });
	}
	return page.map((m) => {
		const whatsapp = m.authorKind !== 'contact' && !m.private ? states.get(m.seq) : undefined;
		return whatsapp ? { ...m, whatsapp } : m;
	});
}
