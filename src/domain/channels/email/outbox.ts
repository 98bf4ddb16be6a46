/**
 * The one way into Parley's outgoing mail: a delivery row in D1, unique per workspace and `dedupeKey`, and a
 * message on the mail Queue naming it. Whoever wants a mail sent (a room's continuation timer, a reply in an
 * e-mail conversation, a campaign batch, the team's alerts) calls `enqueueMail`; the mail consumer claims the
 * row before it builds and sends the mail and records the outcome after, so enqueuing the same mail twice,
 * or the Queue delivering its message twice, mails it once.
 */
import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { mailDeliveries } from '../../../db/schema';
import { newId } from '../../../lib/ids';
import type { MailDeliveryKind } from '../../../model/email';

/** A mail to send, before it is built: who gets it, why, and what it carries. */
export interface MailToSend {
	workspaceId: string;
	kind: MailDeliveryKind;
	/** What makes this mail one mail, e.g. `continuation:<conversation>:<last seq>`. */
	dedupeKey: string;
	recipient: string;
	conversationId?: string;
	/** The conversation's messages it carries, by seq. */
	firstSeq?: number;
	lastSeq?: number;
	campaignId?: string;
	contactId?: string;
	operatorId?: string;
	/**
	 * Holds the Queue message back this long (not stored): a reply waits a few seconds so that the rest of a
	 * burst is queued by the time it is claimed, and goes out with it as one mail.
	 */
	delaySeconds?: number;
}

/** The mail Queue's message: the delivery to claim and send. */
/** `workspaceId` says which shard holds the delivery (src/db/shards.ts); a message sent before it had none: `DB`. */
export const mailQueueMessage = z.strictObject({
	deliveryId: z.string().min(1),
	workspaceId: z.string().min(1).optional(),
});
export type MailQueueMessage = z.infer<typeof mailQueueMessage>;

/**
 * Records the delivery (once per `dedupeKey`) and puts it on the mail Queue while it is still queued: a
 * second call for a delivery whose first Queue send was lost sends the message again, which the consumer's
 * claim makes harmless. Returns the delivery's id and whether this call created it.
 */
export async function enqueueMail(
	env: Pick<Env, 'MAIL_OUT'>,
	db: Database,
	mail: MailToSend,
	now = Date.now(),
): Promise<{ id: string; created: boolean }> {
	const inserted = await db
		.insert(mailDeliveries)
		.values({
			id: newId('mail', now),
			workspaceId: mail.workspaceId,
			conversationId: mail.conversationId ?? null,
			kind: mail.kind,
			dedupeKey: mail.dedupeKey,
			recipient: mail.recipient,
			firstSeq: mail.firstSeq ?? null,
			lastSeq: mail.lastSeq ?? null,
			campaignId: mail.campaignId ?? null,
			contactId: mail.contactId ?? null,
			operatorId: mail.operatorId ?? null,
			status: 'queued',
			createdAt: now,
			updatedAt: now,
		})
		.onConflictDoNothing()
		.returning({ id: mailDeliveries.id });
	const created = inserted[0];
	const options: QueueSendOptions = { contentType: 'json', delaySeconds: mail.delaySeconds };
	if (created) {
		await env.MAIL_OUT.send(
			{ deliveryId: created.id, workspaceId: mail.workspaceId } satisfies MailQueueMessage,
			options,
		);
		return { id: created.id, created: true };
	}
	const [existing] = await db
		.select({ id: mailDeliveries.id, status: mailDeliveries.status })
		.from(mailDeliveries)
		.where(and(eq(mailDeliveries.workspaceId, mail.workspaceId), eq(mailDeliveries.dedupeKey, mail.dedupeKey)));
	if (!existing) throw new Error(`mail delivery ${mail.dedupeKey} neither inserted nor found`);
	if (existing.status === 'queued') {
		await env.MAIL_OUT.send(
			{ deliveryId: existing.id, workspaceId: mail.workspaceId } satisfies MailQueueMessage,
			options,
		);
	}
	return { id: existing.id, created: false };
}
