import { workspaceDb } from '../db/shards';
import { deadLetter, driveRun } from '../domain/automation/scenarios/runner';
import { type ScenarioRunMessage, scenarioRunMessageSchema } from '../domain/automation/scenarios/runs';
import { consumeEach } from './consume';

/** The scenario-runs Queue's consumer: each run driven as far as one delivery may (src/domain/automation/scenarios/runner.ts). */
export async function consumeScenarioRuns(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	await consumeEach(
		batch,
		scenarioRunMessageSchema,
		async (message) => driveRun(await runContext(env, message), message),
		'scenario run',
	);
}

/** Its dead-letter queue's: a run whose message failed every delivery is marked failed, visible and retryable. */
export async function consumeDeadScenarioRuns(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	await consumeEach(
		batch,
		scenarioRunMessageSchema,
		async (message) => deadLetter(await runContext(env, message), message),
		'dead scenario run',
	);
}

/** What a run is driven with: its workspace's shard and the Queue its next steps go on. */
async function runContext(env: Env, message: ScenarioRunMessage) {
	return { env, db: await workspaceDb(env, message.workspaceId), queue: env.SCENARIO_RUNS };
}
