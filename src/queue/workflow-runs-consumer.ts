import { openDatabase } from '../db/client';
import { receiveWorkflowRun, workflowRunMessageSchema } from '../domain/workflow-runs';

/**
 * The workflow-runs Queue consumer: one message at a time through `receiveWorkflowRun`, acked on success,
 * retried (with the Queue's backoff) on failure. A malformed message is acked and logged: retrying it
 * could never succeed.
 */
export async function consumeWorkflowRuns(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const db = openDatabase(env.DB);
	for (const message of batch.messages) {
		const parsed = workflowRunMessageSchema.safeParse(message.body);
		if (!parsed.success) {
			console.error('dropping malformed workflow-run message', message.id);
			message.ack();
			continue;
		}
		try {
			await receiveWorkflowRun(db, parsed.data);
			message.ack();
		} catch (error) {
			console.error('workflow run failed, will retry', parsed.data.runId, error);
			message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
		}
	}
}
