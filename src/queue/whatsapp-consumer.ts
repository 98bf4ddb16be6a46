import { openDatabase } from '../db/client';
import { sendToQueue, whatsappQueueMessage } from '../domain/channels/whatsapp/outbox';
import { giveUpDelivery, processDelivery, retryDelaySeconds } from '../domain/channels/whatsapp/sender';
import { consumeEach } from './consume';

/**
 * The WhatsApp Queue's consumer: each delivery claimed, built, paced, sent and recorded
 * (src/domain/channels/whatsapp/sender.ts). Meta's retryable errors are retried with backoff (4^n s for one
 * customer's pair rate, 2^n s otherwise, at most 5 minutes); a delivery whose slot in the number's pace is
 * further off than a consumer waits goes back on the Queue, delayed, without using up a try.
 */
export async function consumeWhatsapp(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const db = openDatabase(env.DB);
	for (const message of batch.messages) {
		const parsed = whatsappQueueMessage.safeParse(message.body);
		if (!parsed.success) {
			console.error('dropping malformed whatsapp delivery', message.id);
			message.ack();
			continue;
		}
		try {
			const outcome = await processDelivery(env, db, parsed.data.deliveryId);
			if ('laterSeconds' in outcome) await sendToQueue(env, parsed.data.deliveryId, outcome.laterSeconds);
			message.ack();
		} catch (error) {
			console.error('whatsapp delivery failed, will retry', message.id, String(error));
			message.retry({ delaySeconds: retryDelaySeconds(message.attempts, error) });
		}
	}
}

/** Its dead-letter queue's: a delivery whose message failed every try is recorded failed, with the last reason. */
export async function consumeDeadWhatsapp(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const db = openDatabase(env.DB);
	await consumeEach(batch, whatsappQueueMessage, (message) => giveUpDelivery(db, message.deliveryId), 'dead whatsapp');
}
