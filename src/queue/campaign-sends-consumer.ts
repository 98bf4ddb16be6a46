import { campaignBatchSchema, sendCampaignBatch } from '../domain/campaigns/sending';

/**
 * The campaign-sends Queue consumer: each message is one batch of a campaign's recipients, sent side by side
 * (they go to different conversation rooms). A batch that throws is retried with a backoff; what it sent
 * stays sent, and its claims lapse for the retry to take over.
 */
export async function consumeCampaignSends(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	await Promise.all(
		batch.messages.map(async (message) => {
			const parsed = campaignBatchSchema.safeParse(message.body);
			if (!parsed.success) {
				console.error('dropping malformed campaign batch', message.id);
				message.ack();
				return;
			}
			try {
				await sendCampaignBatch(env, parsed.data);
				message.ack();
			} catch (error) {
				console.error('a campaign batch failed, will retry', message.id, error);
				message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
			}
		}),
	);
}
