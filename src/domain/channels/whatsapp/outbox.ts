/**
 * The one way into Parley's outgoing WhatsApp messages: a delivery row in D1, unique per workspace and
 * `dedupeKey`, and a message on the WhatsApp Queue naming it. Whoever wants a WhatsApp message sent (a team
 * message in a WhatsApp conversation, a template the team chose, a campaign) calls `enqueueWhatsapp`; the
 * consumer claims the row before it calls the Cloud API and records the outcome after, so enqueuing the same
 * message twice, or the Queue delivering its message twice, sends it once.
 */
import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { whatsappDeliveries } from '../../../db/schema';
import { newId } from '../../../lib/ids';
import type { WhatsappDeliveryKind } from '../../../model/whatsapp';
import type { WhatsappDeliveryRow } from './deliveries';

/** A WhatsApp message to send, before it is built: from which number, to whom, why, and what it carries. */
export interface WhatsappToSend {
	workspaceId: string;
	numberId: string;
	kind: WhatsappDeliveryKind;
	/** What makes this one message, e.g. `reply:<conversation>:<seq>`. */
	dedupeKey: string;
	/** The customer's WhatsApp id (their number in digits). */
	recipient: string;
	conversationId?: string;
	messageSeq?: number;
	contactId?: string;
	campaignId?: string;
	template?: WhatsappDeliveryRow['template'];
	/** Holds the Queue message back this long (not stored). */
	delaySeconds?: number;
}

/** The WhatsApp Queue's message: the delivery to claim and send. */
/** `workspaceId` says which shard holds the delivery (src/db/shards.ts); a message sent before it had none: `DB`. */
export const whatsappQueueMessage = z.strictObject({
	deliveryId: z.string().min(1),
	workspaceId: z.string().min(1).optional(),
});
export type WhatsappQueueMessage = z.infer<typeof whatsappQueueMessage>;

/** Puts a delivery's message on the Queue (again): the consumer's claim makes a second one harmless. */
export async function sendToQueue(
	env: Pick<Env, 'WHATSAPP_OUT'>,
	delivery: { id: string; workspaceId: string },
	delaySeconds?: number,
) {
	const body = { deliveryId: delivery.id, workspaceId: delivery.workspaceId } satisfies WhatsappQueueMessage;
	await env.WHATSAPP_OUT.send(body, { contentType: 'json', delaySeconds });
}

/**
 * Records the delivery (once per `dedupeKey`) and puts it on the Queue while it is still queued: a second
 * call for a delivery whose first Queue send was lost sends the message again, which the consumer's claim
 * makes harmless. Returns the delivery's id and whether this call created it.
 */
export async function enqueueWhatsapp(
	env: Pick<Env, 'WHATSAPP_OUT'>,
	db: Database,
	send: WhatsappToSend,
	now = Date.now(),
): Promise<{ id: string; created: boolean }> {
	const inserted = await db
		.insert(whatsappDeliveries)
		.values({
			id: newId('wad', now),
			workspaceId: send.workspaceId,
			numberId: send.numberId,
			kind: send.kind,
			dedupeKey: send.dedupeKey,
			recipient: send.recipient,
			conversationId: send.conversationId ?? null,
			messageSeq: send.messageSeq ?? null,
			contactId: send.contactId ?? null,
			campaignId: send.campaignId ?? null,
			template: send.template ?? null,
			status: 'queued',
			createdAt: now,
			updatedAt: now,
		})
		.onConflictDoNothing()
		.returning({ id: whatsappDeliveries.id });
	const created = inserted[0];
	if (created) {
		await sendToQueue(env, { id: created.id, workspaceId: send.workspaceId }, send.delaySeconds);
		return { id: created.id, created: true };
	}
	const [existing] = await db
		.select({ id: whatsappDeliveries.id, status: whatsappDeliveries.status })
		.from(whatsappDeliveries)
		.where(and(eq(whatsappDeliveries.workspaceId, send.workspaceId), eq(whatsappDeliveries.dedupeKey, send.dedupeKey)));
	if (!existing) throw new Error(`whatsapp delivery ${send.dedupeKey} neither inserted nor found`);
	if (existing.status === 'queued') {
		await sendToQueue(env, { id: existing.id, workspaceId: send.workspaceId }, send.delaySeconds);
	}
	return { id: existing.id, created: false };
}
