import { groupByShard } from '../db/shards';
import { apiLogEntrySchema, writeApiLogs } from '../domain/platform/api-logs';

/**
 * The api-logs Queue consumer: one INSERT for the whole batch. A malformed entry is dropped (logged); a batch
 * whose insert fails is retried whole, and ids make a second insert of the same entry change nothing.
 */
export async function consumeApiLogs(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const entries = [];
	for (const message of batch.messages) {
		const parsed = apiLogEntrySchema.safeParse(message.body);
		if (parsed.success) entries.push(parsed.data);
		else console.error('dropping malformed API log entry', message.id);
	}
	// One INSERT per shard the batch's workspaces are on (one, until a deployment has several).
	for (const { db, items } of await groupByShard(env, entries, (entry) => entry.workspaceId)) {
		await writeApiLogs(db, items);
	}
	batch.ackAll();
}
