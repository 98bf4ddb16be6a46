import { openDatabase } from '../db/client';
import { attemptDelivery, deliveryMessageSchema } from '../domain/webhooks/deliveries';
import { consumeEach } from './consume';

/** The outbound webhook deliveries' Queue consumer: each message one due try (src/domain/webhooks/deliveries.ts). */
export async function consumeWebhookDeliveries(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const dc = { env, db: openDatabase(env.DB), queue: env.WEBHOOK_DELIVERIES };
	await consumeEach(batch, deliveryMessageSchema, (message) => attemptDelivery(dc, message), 'webhook delivery');
}
