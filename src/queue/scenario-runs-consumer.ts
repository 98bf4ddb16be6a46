import { openDatabase } from '../db/client';
import { deadLetter, driveRun } from '../domain/automation/scenarios/runner';
import { scenarioRunMessageSchema } from '../domain/automation/scenarios/runs';
import { consumeEach } from './consume';

/** The scenario-runs Queue's consumer: each run driven as far as one delivery may (src/domain/automation/scenarios/runner.ts). */
export async function consumeScenarioRuns(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const rc = { env, db: openDatabase(env.DB), queue: env.SCENARIO_RUNS };
	await consumeEach(batch, scenarioRunMessageSchema, (message) => driveRun(rc, message), 'scenario run');
}

/** Its dead-letter queue's: a run whose message failed every delivery is marked failed, visible and retryable. */
export async function consumeDeadScenarioRuns(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const rc = { env, db: openDatabase(env.DB), queue: env.SCENARIO_RUNS };
	await consumeEach(batch, scenarioRunMessageSchema, (message) => deadLetter(rc, message), 'dead scenario run');
}
