import { openDatabase } from '../db/client';
import { receiveWorkflowRun, workflowRunMessageSchema } from '../domain/workflow-runs';
import { consumeEach } from './consume';

/** The workflow-runs Queue consumer: one run at a time through `receiveWorkflowRun`, acked or retried. */
export async function consumeWorkflowRuns(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const db = openDatabase(env.DB);
	await consumeEach(batch, workflowRunMessageSchema, (run) => receiveWorkflowRun(db, run), 'workflow run');
}
