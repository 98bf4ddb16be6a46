/**
 * A scenario run's step log, the core's port (../core/steps.ts): each try of an action step is a
 * `scenario_steps` row under the step's key, the retry generation and the try (`tag@each:3#0.1`), claimed
 * before the action (a row without a result) and given its result after. So two deliveries of one run never
 * both act: the second finds the claim and is retried by its Queue a little later, and by then reads the
 * result, or takes over a claim older than CLAIM_LEASE_MS, whose delivery died mid-action.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { type RecordedResult, scenarioSteps } from '../../../db/schema';
import type { ActionResult } from '../core/context';
import type { StepLog } from '../core/steps';
import type { RunRow } from './runs';

/**
 * How long a claimed step may go without its result before another delivery takes it over: longer than any
 * action takes (an HTTP call is cut at 10 s), far shorter than the Queue's retries.
 */
const CLAIM_LEASE_MS = 60_000;

/** Another delivery of the run is performing this step: this one is retried by the Queue a little later. */
export class StepInProgress extends Error {
	constructor(key: string) {
		super(`step ${key} is being performed by another delivery`);
	}
}

/** The step log of a run at its current retry generation and try. */
export function scenarioStepLog(db: Database, run: RunRow, now: number): StepLog {
	const keyOf = (stepKey: string) => `${stepKey}#${run.retries}.${run.state.attempt}`;
	const at = (stepKey: string) => and(eq(scenarioSteps.runId, run.id), eq(scenarioSteps.key, keyOf(stepKey)));
	return {
		async recorded(stepKey) {
			const key = keyOf(stepKey);
			const found = await db
				.select({ result: scenarioSteps.result, claimedAt: scenarioSteps.createdAt })
				.from(scenarioSteps)
				.where(at(stepKey))
				.get();
			if (found?.result) return actionResult(found.result);
			if (found && now - found.claimedAt < CLAIM_LEASE_MS) throw new StepInProgress(key);
			const claimed = found
				? await db
						.update(scenarioSteps)
						.set({ createdAt: now })
						.where(and(at(stepKey), isNull(scenarioSteps.result), eq(scenarioSteps.createdAt, found.claimedAt)))
						.returning({ key: scenarioSteps.key })
				: await db
						.insert(scenarioSteps)
						.values({ runId: run.id, key, workspaceId: run.workspaceId, result: null, createdAt: now })
						.onConflictDoNothing()
						.returning({ key: scenarioSteps.key });
			if (claimed.length === 0) throw new StepInProgress(key);
			return null;
		},
		async record(stepKey, _action, result) {
			await db
				.update(scenarioSteps)
				.set({ result: recordable(result) })
				.where(at(stepKey));
		},
	};
}

/**
 * An outcome as a run records it and its interpreter reads it: an update_deal that found no deal is
 * `notFound`, as a Find that finds nothing.
 */
export function recordable(result: ActionResult): RecordedResult {
	if (!result.ok) {
		return {
			ok: false,
			error: result.error,
			...(result.data === undefined ? {} : { data: result.data }),
			...('retryable' in result && result.retryable ? { retryable: true } : {}),
		};
	}
	if (('notFound' in result && result.notFound) || ('noDeal' in result && result.noDeal)) {
		return { ok: true, notFound: true };
	}
	return { ok: true, ...('data' in result && result.data !== undefined ? { data: result.data } : {}) };
}

function actionResult(recorded: RecordedResult): ActionResult {
	if (!recorded.ok) {
		return {
			ok: false,
			error: recorded.error ?? 'failed',
			...(recorded.data === undefined ? {} : { data: recorded.data }),
			...(recorded.retryable ? { retryable: true } : {}),
		};
	}
	if (recorded.notFound) return { ok: true, notFound: true };
	return recorded.data === undefined ? { ok: true } : { ok: true, data: recorded.data };
}
