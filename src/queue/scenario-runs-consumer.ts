import { workspaceDb } from '../db/shards';
import { deadLetter, driveRun } from '../domain/automation/scenarios/runner';
import { scenarioRunMessageSchema } from '../domain/automation/scenarios/runs';
import { consumeEach } from './consume';

/** The scenario-runs Queue's consumer: each run driven as far as one delivery may (src/domain/automation/scenarios/runner.ts). */
export async function consumeScenarioRuns(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	await consumeEach(
		batch,
		scenarioRunMessageSchema,
		async (message) =>
			driveRun({ env, db: await workspaceDb(env, message.workspaceId), queue: env.SCENARIO_RUNS }, message),
		'scenario run',
	);
}

/** Its dead-letter queue's: a run whose message failed every delivery is marked failed, visible and retryable. */
export async function consumeDeadScenarioRuns(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	await consumeEach(
		batch,
		scenarioRunMessageSchema,
		async (message) =>
			deadLetter({ env, db: await workspaceDb(env, message.workspaceId), queue: env.SCENARIO_RUNS }, message),
		'dead scenario run',
	);
}
