/**
 * A scenario run's row between two steps of its interpreter: the next row after one step (its state, the log
 * entries the step wrote, the action it now waits on), written only if the run is still at the turn read, so
 * two deliveries of one run never both move it on; with `scenario.run_ended` when it ends.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database, Statement } from '../../../db/client';
import { type RunLogEntry, scenarioRuns } from '../../../db/schema';
import type { ScenarioEffect, ScenarioEvent, ScenarioRunState } from '../../../engines/scenario-interpreter';
import { commit, release } from '../../../events/commit';
import { newEvent } from '../../../model/events';
import type { RunRow, ScenarioRunMessage } from './runs';

/** The run a message drives, if it is the workspace's. */
export async function loadRun(db: Database, message: ScenarioRunMessage) {
	return db
		.select()
		.from(scenarioRuns)
		.where(and(eq(scenarioRuns.id, message.runId), eq(scenarioRuns.workspaceId, message.workspaceId)))
		.get();
}

/** The row after one step of the interpreter. */
export function nextRow(
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
export async function write(
	rc: { env: Env; db: Database },
	before: RunRow,
	after: RunRow,
	name: string,
	now: number,
): Promise<boolean> {
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
export async function finishOrphan(rc: { db: Database }, run: RunRow, now: number) {
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
