/**
 * The scenario runner: drives scenario runs for the scenario-runs Queue's consumer, with the pure interpreter
 * (src/engines/scenario-interpreter.ts) and the automation core (../core). One delivery of a run's message
 * drives it as far as it can go: each action the interpreter hands out is a core step, recorded in the run's
 * step log (./step-log.ts: `scenario_steps` under the step's key, the retry generation and the try) and fed
 * back; the run's state, pending action and log are written after every step, guarded by its `turn`
 * (./run-rows.ts).
 *
 * At-least-once delivery repeats nothing that completed: a redelivered message finds each recorded result and
 * feeds it back instead of acting again. What Parley itself does in an action (a conversation opened, a message
 * posted) is also keyed by the step, so even an action cut off between doing and recording finds its first
 * effect. Only an outside HTTP call cut off that way can be made twice: no one can promise more of a call whose
 * answer never came.
 *
 * Waiting never blocks the consumer: a retry's backoff, or a run that has taken many actions in one delivery,
 * goes back on the Queue with a delay, and the delivery ends.
 */
import type { Database } from '../../../db/client';
import type { RecordedResult } from '../../../db/schema';
import { advanceScenario, type ScenarioEvent } from '../../../engines/scenario-interpreter';
import { type ActionScene, actionContext, loadScene } from '../core/scene';
import { runStep } from '../core/steps';
import { finishOrphan, loadRun, nextRow, write } from './run-rows';
import type { RunRow, ScenarioRunMessage } from './runs';
import { runVersion, scenarioName } from './scenarios';
import { recordable, StepInProgress, scenarioStepLog } from './step-log';

/** Actions one delivery performs before the run goes back on the Queue, so no delivery runs for long. */
const ACTIONS_PER_DELIVERY = 25;
/** A delivery's wall time after which the run goes back on the Queue (a consumer may run for 15 min). */
const DELIVERY_BUDGET_MS = 60_000;
/** When a delivery that found its step claimed by another looks again. */
const IN_PROGRESS_RECHECK_SECONDS = 15;
/** A run written this recently is being driven: a dead-lettered message of it fails nothing. */
const LIVE_RUN_MS = 5 * 60_000;
/** How early a delayed message may arrive and still resume its run. */
const RESUME_SLACK_MS = 1_000;

type PendingAction = NonNullable<RunRow['pending']>;

/** How the runner reaches the world: the env, and a clock and network a test may replace. */
export interface RunnerContext {
	env: Env;
	db: Database;
	queue: Queue<ScenarioRunMessage>;
	now?: () => number;
	transport?: typeof fetch;
}

/** Drives one run as far as one delivery may; see the top of this file. Throws for the Queue to retry. */
export async function driveRun(rc: RunnerContext, message: ScenarioRunMessage): Promise<void> {
	const clock = rc.now ?? Date.now;
	const startedAt = clock();
	let run = await loadRun(rc.db, message);
	if (!run || run.status === 'succeeded' || run.status === 'failed') return;
	// Early (a redelivered message while a retry waits out its backoff): back on the Queue until it is due, so
	// the run goes on even if the delayed message was never sent. A copy too many finds the turn moved on.
	if (run.resumeAt !== null && run.resumeAt > clock() + RESUME_SLACK_MS) {
		await rc.queue.send(message, { delaySeconds: Math.ceil((run.resumeAt - clock()) / 1000) });
		return;
	}
	const scenario = await runVersion(rc.db, run.workspaceId, run.scenarioId, run.version);
	if (!scenario) {
		await finishOrphan(rc, run, clock());
		return;
	}
	const { definition } = scenario;
	// A scenario has no conversation of its own: its steps name the records they act on.
	const scene = await loadScene(rc.db, run.workspaceId, null);
	let performed = 0;
	for (;;) {
		let event: ScenarioEvent;
		if (run.status === 'queued') {
			event = { type: 'start', variables: run.input };
		} else if (run.pending !== null && run.state.status === 'waiting') {
			if (performed >= ACTIONS_PER_DELIVERY || clock() - startedAt > DELIVERY_BUDGET_MS) {
				await rc.queue.send({ runId: run.id, workspaceId: run.workspaceId });
				return;
			}
			performed++;
			let result: RecordedResult;
			try {
				result = await resultOf(rc, run, run.pending, scene, clock());
			} catch (error) {
				if (!(error instanceof StepInProgress)) throw error;
				// Another delivery is performing the step: look again later, without spending a Queue retry.
				await rc.queue.send(message, { delaySeconds: IN_PROGRESS_RECHECK_SECONDS });
				return;
			}
			event = { type: 'result', key: run.pending.key, ...result };
		} else {
			return;
		}
		const now = clock();
		const { state, effects } = advanceScenario(definition, run.state, event, { timeZone: scene.timeZone }, now);
		const next = nextRow(run, event, state, effects, now);
		const written = await write(rc, run, next, scenario.name, now);
		if (!written) return; // Another delivery took this turn: it goes on from here.
		run = next;
		const retry = effects.find((e) => e.kind === 'retry');
		if (retry) {
			await rc.queue.send({ runId: run.id, workspaceId: run.workspaceId }, { delaySeconds: retry.delaySeconds });
			return;
		}
		if (run.status === 'succeeded' || run.status === 'failed') return;
	}
}

/** The pending action's result: recorded by an earlier delivery, or performed now through the core. */
async function resultOf(
	rc: RunnerContext,
	run: RunRow,
	pending: PendingAction,
	scene: ActionScene,
	now: number,
): Promise<RecordedResult> {
	const ctx = actionContext(rc.env, rc.db, run.workspaceId, scene, {
		run: { kind: 'scenario', id: run.id },
		actor: { kind: 'scenario', id: run.scenarioId },
		variables: run.state.variables,
		now,
		hops: run.hops,
		...(rc.transport ? { transport: rc.transport } : {}),
	});
	return recordable(await runStep(ctx, scenarioStepLog(rc.db, run, now), pending.key, pending.step));
}

/**
 * A run's message that exhausted its deliveries (the dead-letter queue's consumer): the run fails, saying so,
 * and stays listed and retryable from where it stood.
 */
export async function deadLetter(rc: RunnerContext, message: ScenarioRunMessage): Promise<void> {
	const run = await loadRun(rc.db, message);
	if (!run || run.status === 'succeeded' || run.status === 'failed') return;
	const now = (rc.now ?? Date.now)();
	if (now - run.updatedAt < LIVE_RUN_MS) return;
	const error = `gave up after repeated delivery failures at ${run.state.waitingAt ?? 'its start'}`;
	const failed: RunRow = {
		...run,
		status: 'failed',
		error,
		// A run that never started keeps its queued state: a retry starts it.
		retryState: run.status === 'queued' ? run.state : null,
		turn: run.turn + 1,
		updatedAt: now,
		finishedAt: now,
	};
	await write(rc, run, failed, await scenarioName(rc.db, run.workspaceId, run.scenarioId), now);
}
