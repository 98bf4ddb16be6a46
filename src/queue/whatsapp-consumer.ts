import { openDatabase } from '../db/client';
import { deliveryRecipients } from '../domain/channels/whatsapp/deliveries';
import { sendToQueue, whatsappQueueMessage } from '../domain/channels/whatsapp/outbox';
import {
	giveUpDelivery,
	type NumberCache,
	processDelivery,
	retryDelaySeconds,
} from '../domain/channels/whatsapp/sender';
import { consumeEach } from './consume';

/**
 * The WhatsApp Queue's consumer: each delivery claimed, built, paced, sent and recorded
 * (src/domain/channels/whatsapp/sender.ts). Meta's retryable errors are retried with backoff (4^n s for one
 * customer's pair rate, 2^n s otherwise, at most 5 minutes); a delivery whose slot in the number's pace is
 * further off than a consumer waits goes back on the Queue, delayed, without using up a try.
 *
 * A batch's deliveries to different customers go side by side (the number's pace, kept by its object,
 * spaces them); those to the same customer one after the other, oldest first, so a bot's bubbles arrive
 * in the order it wrote them.
 */
export async function consumeWhatsapp(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const db = openDatabase(env.DB);
	const valid: Array<{ message: Message<unknown>; deliveryId: string }> = [];
	for (const message of batch.messages) {
		const parsed = whatsappQueueMessage.safeParse(message.body);
		if (parsed.success) valid.push({ message, deliveryId: parsed.data.deliveryId });
		else {
			console.error('dropping malformed whatsapp delivery', message.id);
			message.ack();
		}
	}
	let order: Map<string, { recipient: string; createdAt: number }>;
	try {
		order = await deliveryRecipients(
			db,
			valid.map((v) => v.deliveryId),
		);
	} catch (error) {
		console.error('reading a whatsapp batch failed; the batch will be retried', String(error));
		batch.retryAll({ delaySeconds: 5 });
		return;
	}
	const lines = new Map<string, typeof valid>();
	for (const item of valid) {
		const key = order.get(item.deliveryId)?.recipient ?? item.deliveryId;
		lines.set(key, [...(lines.get(key) ?? []), item]);
	}
	const numbers: NumberCache = new Map();
	const createdAt = (id: string) => order.get(id)?.createdAt ?? 0;
	await Promise.all(
		[...lines.values()].map(async (line) => {
			line.sort((a, b) => createdAt(a.deliveryId) - createdAt(b.deliveryId));
			for (const { message, deliveryId } of line) {
				try {
					const outcome = await processDelivery(env, db, deliveryId, Date.now(), numbers);
					if ('laterSeconds' in outcome) await sendToQueue(env, deliveryId, outcome.laterSeconds);
					message.ack();
				} catch (error) {
					console.error('whatsapp delivery failed, will retry', message.id, String(error));
					message.retry({ delaySeconds: retryDelaySeconds(message.attempts, error) });
				}
			}
		}),
	);
}

/** Its dead-letter queue's: a delivery whose message failed every try is recorded failed, with the last reason. */
export async function consumeDeadWhatsapp(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const db = openDatabase(env.DB);
	await consumeEach(batch, whatsappQueueMessage, (message) => giveUpDelivery(db, message.deliveryId), 'dead whatsapp');
}
