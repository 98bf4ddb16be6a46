/**
 * Executes scenario runs for the scenario-runs Queue's consumer, with the pure interpreter
 * (src/engines/scenario-interpreter.ts). One delivery of a run's message drives it as far as it can go: each
 * action the interpreter hands out is performed, its result recorded in `scenario_steps` under the step's key
 * (the step, its loop iterations, the retry generation and the try), and fed back; the run's state, pending
 * action and log are written after every step, guarded by its `turn`.
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
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { ActionResult } from '../../../actions/context';
import { performScenarioStep } from '../../../actions/scenario-steps';
import type { Database, Statement } from '../../../db/client';
import { type RecordedResult, type RunLogEntry, scenarioRuns, scenarioSteps } from '../../../db/schema';
import {
	advanceScenario,
	type ScenarioEffect,
	type ScenarioEvent,
	type ScenarioRunState,
} from '../../../engines/scenario-interpreter';
import { commit, release } from '../../../events/commit';
import { newEvent } from '../../../model/events';
import { loadWidgetSettings } from '../../widget/settings';
import type { RunRow, ScenarioRunMessage } from './runs';
import { runVersion, scenarioName } from './scenarios';

type Locale = 'en' | 'pt';

/** Actions one delivery performs before the run goes back on the Queue, so no delivery runs for long. */
const ACTIONS_PER_DELIVERY = 25;
/** A delivery's wall time after which the run goes back on the Queue (a consumer may run for 15 min). */
const DELIVERY_BUDGET_MS = 60_000;
/**
 * How long a claimed step may go without its result before another delivery takes it over: longer than any
 * action takes (an HTTP call is cut at 10 s), far shorter than the Queue's retries.
 */
const CLAIM_LEASE_MS = 60_000;
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

/** The key a try's result is recorded under: the step's key, then the retry generation and the try. */
function recordKey(run: Pick<RunRow, 'retries'>, state: ScenarioRunState, pending: PendingAction): string {
	return `${pending.key}#${run.retries}.${state.attempt}`;
}

async function loadRun(db: Database, message: ScenarioRunMessage) {
	return db
		.select()
		.from(scenarioRuns)
		.where(and(eq(scenarioRuns.id, message.runId), eq(scenarioRuns.workspaceId, message.workspaceId)))
		.get();
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
	const { settings } = await loadWidgetSettings(rc.db, run.workspaceId);
	const timeZone = settings.businessHours.timeZone;
	const locale = settings.locale;
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
				result = await resultOf(rc, run, run.pending, locale, clock());
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
		const { state, effects } = advanceScenario(definition, run.state, event, { timeZone }, now);
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

/** The row after one step of the interpreter. */
function nextRow(
	run: RunRow,
	event: ScenarioEvent,
	state: ScenarioRunState,
	effects: ScenarioEffect[],
	now: number,
): RunRow {
	const log: RunLogEntry[] = [...run.log];
	let pending: RunRow['pending'] = null;
	let resumeAt: number | null = null;
	for (const effect of effects) {
		if (effect.kind === 'log') {
			log.push({
				at: now,
				key: effect.key,
				stepId: effect.stepId,
				...(effect.output === undefined ? {} : { output: effect.output }),
				...(effect.error === undefined ? {} : { error: effect.error }),
			});
		}
		if (effect.kind === 'action') pending = effect;
		if (effect.kind === 'retry') {
			pending = effect;
			resumeAt = now + effect.delaySeconds * 1000;
		}
	}
	const failedAtAction = state.status === 'failed' && event.type === 'result' && !event.ok;
	const ended = state.status === 'succeeded' || state.status === 'failed';
	return {
		...run,
		status: state.status,
		state,
		// A run that failed at an action keeps it pending, with the state before the failure, for a retry.
		pending: failedAtAction ? run.pending : pending,
		retryState: failedAtAction ? run.state : null,
		log,
		error: state.error,
		resumeAt,
		turn: run.turn + 1,
		updatedAt: now,
		finishedAt: ended ? now : null,
	};
}

/**
 * Writes the run's next row if it is still at the turn read; with `scenario.run_ended` when it ended. False
 * when another delivery wrote first.
 */
async function write(rc: RunnerContext, before: RunRow, after: RunRow, name: string, now: number): Promise<boolean> {
	const { id: _id, workspaceId: _ws, createdAt: _c, ...set } = after;
	const update = rc.db
		.update(scenarioRuns)
		.set(set)
		.where(and(eq(scenarioRuns.id, before.id), eq(scenarioRuns.turn, before.turn)))
		.returning({ id: scenarioRuns.id });
	const ended = after.status === 'succeeded' || after.status === 'failed';
	if (!ended) return (await update).length > 0;
	const event = newEvent(
		'scenario.run_ended',
		after.workspaceId,
		{ kind: 'scenario', id: after.scenarioId },
		{
			scenario: { id: after.scenarioId, name },
			runId: after.id,
			trigger: after.trigger,
			status: after.status as 'succeeded' | 'failed',
			error: after.error,
		},
		now,
	);
	const committed = await commit(rc.db, {
		statements: [update as Statement],
		events: [{ event, onlyIf: sql`changes() > 0` }],
	});
	await release(rc.env, committed.events);
	return committed.events.length > 0;
}

/** A run whose scenario was deleted: it fails, saying so. */
async function finishOrphan(rc: RunnerContext, run: RunRow, now: number) {
	await rc.db
		.update(scenarioRuns)
		.set({
			status: 'failed',
			error: 'the scenario was deleted',
			pending: null,
			retryState: null,
			turn: run.turn + 1,
			updatedAt: now,
			finishedAt: now,
		})
		.where(and(eq(scenarioRuns.id, run.id), eq(scenarioRuns.turn, run.turn)));
}

/**
 * The pending action's result: the recorded one, or the action performed now and its result recorded. The try
 * is claimed first (a row without a result), so two deliveries of one run never perform it both: the second
 * throws for its Queue to retry, and by then reads the result, or takes over a claim older than
 * CLAIM_LEASE_MS, whose delivery died mid-action.
 */
async function resultOf(
	rc: RunnerContext,
	run: RunRow,
	pending: PendingAction,
	locale: Locale,
	now: number,
): Promise<RecordedResult> {
	const key = recordKey(run, run.state, pending);
	const at = and(eq(scenarioSteps.runId, run.id), eq(scenarioSteps.key, key));
	const recorded = await rc.db
		.select({ result: scenarioSteps.result, claimedAt: scenarioSteps.createdAt })
		.from(scenarioSteps)
		.where(at)
		.get();
	if (recorded?.result) return recorded.result;
	if (recorded && now - recorded.claimedAt < CLAIM_LEASE_MS) throw new StepInProgress(key);
	const claimed = recorded
		? await rc.db
				.update(scenarioSteps)
				.set({ createdAt: now })
				.where(and(at, isNull(scenarioSteps.result), eq(scenarioSteps.createdAt, recorded.claimedAt)))
				.returning({ key: scenarioSteps.key })
		: await rc.db
				.insert(scenarioSteps)
				.values({ runId: run.id, key, workspaceId: run.workspaceId, result: null, createdAt: now })
				.onConflictDoNothing()
				.returning({ key: scenarioSteps.key });
	if (claimed.length === 0) throw new StepInProgress(key);
	const performed = await performScenarioStep(
		{
			env: rc.env,
			db: rc.db,
			workspaceId: run.workspaceId,
			actor: { kind: 'scenario', id: run.scenarioId },
			conversationId: null,
			contactId: null,
			variables: run.state.variables,
			locale,
			now,
			idempotencyKey: `${run.id}:${pending.key}`,
			hops: run.hops,
			...(rc.transport ? { transport: rc.transport } : {}),
		},
		pending.step,
	);
	const result = recordable(performed);
	await rc.db.update(scenarioSteps).set({ result }).where(at);
	return result;
}

/** Another delivery of the run is performing this step: this one is retried by the Queue a little later. */
class StepInProgress extends Error {
	constructor(key: string) {
		super(`step ${key} is being performed by another delivery`);
	}
}

function recordable(result: ActionResult): RecordedResult {
	if (!result.ok) {
		return {
			ok: false,
			error: result.error,
			...(result.data === undefined ? {} : { data: result.data }),
			...('retryable' in result && result.retryable ? { retryable: true } : {}),
		};
	}
	// performScenarioStep answers an update_deal that found no deal as `notFound`, as a Find.
	if ('notFound' in result && result.notFound) {
		return { ok: true, notFound: true };
	}
	return { ok: true, ...('data' in result && result.data !== undefined ? { data: result.data } : {}) };
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
