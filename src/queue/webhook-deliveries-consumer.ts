import { workspaceDb } from '../db/shards';
import { attemptDelivery, deliveryMessageSchema } from '../domain/webhooks/deliveries';
import { consumeEach } from './consume';

/** The outbound webhook deliveries' Queue consumer: each message one due try (src/domain/webhooks/deliveries.ts). */
export async function consumeWebhookDeliveries(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	await consumeEach(
		batch,
		deliveryMessageSchema,
		async (message) => {
			const dc = { env, db: await workspaceDb(env, message.workspaceId), queue: env.WEBHOOK_DELIVERIES };
			await attemptDelivery(dc, message);
		},
		'webhook delivery',
	);
}
