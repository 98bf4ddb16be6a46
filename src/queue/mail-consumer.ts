import { messageDb } from '../db/shards';
import { mailQueueMessage } from '../domain/channels/email/outbox';
import { giveUpDelivery, processDelivery } from '../domain/channels/email/sender';
import { consumeEach } from './consume';

/**
 * The mail Queue's consumer: each delivery claimed, built, sent and recorded (src/domain/channels/email/
 * sender.ts). A transient failure throws, and the message is retried with backoff; a delivery already
 * claimed or settled is acked without mailing anything.
 */
export async function consumeMail(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	await consumeEach(
		batch,
		mailQueueMessage,
		async (message) => processDelivery(env, await messageDb(env, message.workspaceId), message.deliveryId),
		'mail',
	);
}

/** Its dead-letter queue's: a delivery whose message failed every try is recorded failed, with the last reason. */
export async function consumeDeadMail(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	await consumeEach(
		batch,
		mailQueueMessage,
		async (message) => giveUpDelivery(env, await messageDb(env, message.workspaceId), message.deliveryId),
		'dead mail',
	);
}
