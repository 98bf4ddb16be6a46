import type { Database } from '../db/client';
import { groupByShard, messageDb } from '../db/shards';
import { CLAIM_CHUNK, claimDeliveries, type WhatsappDeliveryRow } from '../domain/channels/whatsapp/deliveries';
import { sendToQueue, whatsappQueueMessage } from '../domain/channels/whatsapp/outbox';
import {
	giveUpDelivery,
	type NumberCache,
	reserveSlots,
	retryDelaySeconds,
	sendClaimed,
} from '../domain/channels/whatsapp/sender';
import { consumeEach } from './consume';

/**
 * The WhatsApp Queue's consumer: each delivery claimed, built, paced, sent and recorded
 * (src/domain/channels/whatsapp/sender.ts). Meta's retryable errors are retried with backoff (4^n s for one
 * customer's pair rate, 2^n s otherwise, at most 5 minutes); a delivery whose slot in the number's pace is
 * further off than a consumer waits goes back on the Queue, delayed, without using up a try.
 *
 * The batch's deliveries are claimed together and their first slots reserved in one call to each number's
 * pacer, so the batch's first message goes out moments after the batch arrives: the number's pace, not the
 * consumer's own writes, sets the rate (a batch is about a second of the number's sending). Deliveries to
 * different customers then go side by side (the pace spaces them); those to the same customer one after the
 * other, oldest first, so a bot's bubbles arrive in the order it wrote them. A delivery that is not queued any
 * more (sent, or being sent by another consumer) is acknowledged and left alone.
 */
export async function consumeWhatsapp(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const valid: Delivery[] = [];
	for (const message of batch.messages) {
		const parsed = whatsappQueueMessage.safeParse(message.body);
		if (parsed.success) valid.push({ message, ...parsed.data });
		else {
			console.error('dropping malformed whatsapp delivery', message.id);
			message.ack();
		}
	}
	// A batch holds the deliveries of every workspace: each shard's are claimed and sent from that shard.
	const groups = await groupByShard(env, valid, (delivery) => delivery.workspaceId);
	await Promise.all(groups.map(({ db, items }) => sendFrom(env, db, items)));
}

/** One Queue message of the batch: the delivery it names and the workspace whose shard holds it. */
interface Delivery {
	message: Message<unknown>;
	deliveryId: string;
	workspaceId?: string;
}

/** Claims, paces and sends `valid`'s deliveries, all held by the shard `db`. */
async function sendFrom(env: Env, db: Database, valid: Delivery[]): Promise<void> {
	const claimed = new Map<string, WhatsappDeliveryRow>();
	const now = Date.now();
	for (let i = 0; i < valid.length; i += CLAIM_CHUNK) {
		const chunk = valid.slice(i, i + CLAIM_CHUNK);
		let rows: WhatsappDeliveryRow[];
		try {
			rows = await claimDeliveries(
				db,
				chunk.map((v) => v.deliveryId),
				now,
			);
		} catch (error) {
			// Nothing of this chunk was claimed (one statement): its Queue messages come back.
			console.error('claiming whatsapp deliveries failed; they will be retried', String(error));
			for (const { message } of chunk) message.retry({ delaySeconds: 5 });
			continue;
		}
		for (const row of rows) claimed.set(row.id, row);
		for (const { message, deliveryId } of chunk) if (!claimed.has(deliveryId)) message.ack();
	}
	const lines = new Map<string, Array<{ message: Message<unknown>; row: WhatsappDeliveryRow }>>();
	for (const { message, deliveryId } of valid) {
		const row = claimed.get(deliveryId);
		if (!row) continue;
		const line = lines.get(row.recipient) ?? [];
		line.push({ message, row });
		lines.set(row.recipient, line);
	}
	for (const line of lines.values()) line.sort((a, b) => a.row.createdAt - b.row.createdAt);
	const numbers: NumberCache = new Map();
	const reserved = await reserveSlots(
		env,
		db,
		[...lines.values()].flat().map(({ row }) => row),
		numbers,
	);
	await Promise.all(
		[...lines.values()].map(async (line) => {
			for (const { message, row } of line) {
				try {
					const outcome = await sendClaimed(env, db, row, Date.now(), numbers, reserved.get(row.id));
					if ('laterSeconds' in outcome) await sendToQueue(env, row, outcome.laterSeconds);
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
	await consumeEach(
		batch,
		whatsappQueueMessage,
		async (message) => giveUpDelivery(await messageDb(env, message.workspaceId), message.deliveryId),
		'dead whatsapp',
	);
}
