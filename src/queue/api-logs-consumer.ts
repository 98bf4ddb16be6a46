import { openDatabase } from '../db/client';
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
	await writeApiLogs(openDatabase(env.DB), entries);
	batch.ackAll();
}
