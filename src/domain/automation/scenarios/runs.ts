/**
 * Scenario runs as the API sees them: started (by a webhook, an event, a schedule or an API call), listed,
 * read with their step log, and retried from the failed step. A run is recorded in D1 before its message goes
 * on the scenario-runs Queue, so a 202 always names a run that will be processed; the Queue's consumer
 * (src/domain/automation/scenarios/runner.ts) executes it.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { RUN_STATUSES, RUN_TRIGGERS, scenarioRuns } from '../../../db/schema';
import { newScenarioRun } from '../../../engines/scenario-interpreter';
import { commit, release } from '../../../events/commit';
import { canonicalJson, jsonDepth } from '../../../lib/canonical-json';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../../lib/cursor';
import { Conflict, Invalid, NotFound, ServiceUnavailable } from '../../../lib/errors';
import { iso, isoOrNull, newId } from '../../../lib/ids';
import { HOPS_HEADER } from '../../../lib/parley-hops';
import { getAutomationSettings } from '../settings';
import { floodGuard, ScenarioPaused } from './flood';
import { runnableScenario } from './scenarios';

/** What travels on the scenario-runs Queue: just enough to load the run from D1. */
export const scenarioRunMessageSchema = z.object({ runId: z.string(), workspaceId: z.string() });
export type ScenarioRunMessage = z.infer<typeof scenarioRunMessageSchema>;

/** Deeper than any real event payload; a body nested thousands deep would only cost every later reader. */
const MAX_INPUT_DEPTH = 32;

/** A run's input (a webhook body, an API call's variables): any JSON object, not nested too deep. */
export const runInputSchema = z
	.record(z.string(), z.unknown())
	.refine((input) => jsonDepth(input, MAX_INPUT_DEPTH) <= MAX_INPUT_DEPTH, {
		message: `nested deeper than ${MAX_INPUT_DEPTH} levels`,
	})
	.openapi({ description: `Any JSON object, up to 256 KiB and ${MAX_INPUT_DEPTH} levels deep.` });

export type RunRow = typeof scenarioRuns.$inferSelect;
type RunTrigger = (typeof RUN_TRIGGERS)[number];

export const runAcceptedSchema = z
	.object({
		runId: z.string().openapi({ description: 'The run id.', example: 'run_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		scenarioId: z.string().openapi({ description: 'The scenario it runs.' }),
		status: z.enum(RUN_STATUSES).openapi({ description: 'Where the run is.' }),
		createdAt: z.string().openapi({ description: 'When it was recorded (ISO 8601).' }),
	})
	.openapi('ScenarioRunAccepted');

const logEntry = z
	.object({
		at: z.string().openapi({ description: 'When (ISO 8601).' }),
		key: z.string().openapi({ description: 'The step, with the loop iterations it ran in (`tag@each:3`).' }),
		stepId: z.string().openapi({ description: 'The step id.' }),
		output: z.unknown().optional().openapi({ description: 'What it did or found.' }),
		error: z.string().optional().openapi({ description: 'Why it failed (or is being retried).' }),
	})
	.openapi('ScenarioRunLogEntry');

const runFields = {
	id: z.string().openapi({ description: 'The run id.', example: 'run_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
	scenarioId: z.string().openapi({ description: 'The scenario.' }),
	version: z.number().int().openapi({ description: 'The version it runs.' }),
	trigger: z.enum(RUN_TRIGGERS).openapi({ description: 'What started it.' }),
	source: z
		.string()
		.nullable()
		.openapi({ description: 'The webhook id, event id or fire time; null for an API call.' }),
	status: z.enum(RUN_STATUSES).openapi({
		description:
			'`queued`, `waiting` (on an action’s result, or a retry’s backoff: see `waitingAt`), `running`, `succeeded` or `failed`.',
	}),
	error: z.string().nullable().openapi({ description: 'Why it failed, naming the step.' }),
	retryable: z.boolean().openapi({ description: 'Whether `POST …/retry` can run it again from its failed step.' }),
	createdAt: z.string().openapi({ description: 'When it was recorded (ISO 8601).' }),
	finishedAt: z.string().nullable().openapi({ description: 'When it ended (ISO 8601), or null.' }),
	hops: z
		.number()
		.int()
		.openapi({
			description: `The calls Parley made to itself in a row that started it (\`${HOPS_HEADER}\`): its own calls carry one more.`,
		}),
};

export const runSummarySchema = z.object(runFields).openapi('ScenarioRunSummary');

export const runSchema = z
	.object({
		...runFields,
		input: z.record(z.string(), z.unknown()).openapi({ description: 'What started it (the webhook body…).' }),
		variables: z.record(z.string(), z.unknown()).openapi({ description: 'Its variables as they are now.' }),
		waitingAt: z.string().nullable().openapi({ description: 'The step it waits on, or null.' }),
		log: z.array(logEntry).openapi({ description: 'Every step it took, in order.' }),
	})
	.openapi('ScenarioRun');

function summaryView(row: RunRow): z.infer<typeof runSummarySchema> {
	return {
		id: row.id,
		scenarioId: row.scenarioId,
		version: row.version,
		trigger: row.trigger,
		source: row.source,
		status: row.status,
		error: row.error,
		retryable: row.status === 'failed' && (row.retryState !== null || row.pending !== null),
		createdAt: iso(row.createdAt),
		finishedAt: isoOrNull(row.finishedAt),
		hops: row.hops,
	};
}

function runView(row: RunRow): z.infer<typeof runSchema> {
	return {
		...summaryView(row),
		input: row.input,
		variables: row.state.variables,
		waitingAt: row.state.waitingAt,
		log: row.log.map((entry) => ({ ...entry, at: iso(entry.at) })),
	};
}

export function runAccepted(run: RunRow): z.infer<typeof runAcceptedSchema> {
	return { runId: run.id, scenarioId: run.scenarioId, status: run.status, createdAt: iso(run.createdAt) };
}

interface RunStart {
	workspaceId: string;
	scenarioId: string;
	trigger: RunTrigger;
	source: string | null;
	/** A sender's retry id: a second start with it answers the first run (422 with another input). */
	dedupeKey: string | null;
	input: Record<string, unknown>;
	/** The calls Parley made to itself in a row that led to this start (src/lib/parley-hops.ts); 0 by default. */
	hops?: number;
}

/**
 * Records a run of the scenario's published version as queued and puts it on the Queue (a 409 when the
 * scenario is unpublished, disabled or paused). The run is counted by flood protection in the batch that
 * records it (src/domain/automation/scenarios/flood.ts): one over the workspace's limit is not kept, and pauses the
 * scenario (409). When the Queue refuses, the row is removed and the caller gets a 503 to retry, so a 202
 * always means the run will be processed. A start with a `dedupeKey` already used answers the first run
 * (`replayed`).
 */
export async function startRun(
	env: Env,
	db: Database,
	queue: Queue<ScenarioRunMessage>,
	start: RunStart,
	now = Date.now(),
): Promise<{ run: RunRow; replayed: boolean }> {
	const [{ row: scenario, version }, { scenarioRunsPerMinute }] = await Promise.all([
		runnableScenario(db, start.workspaceId, start.scenarioId),
		getAutomationSettings(db, start.workspaceId),
	]);
	const row: RunRow = {
		id: newId('run', now),
		...start,
		hops: start.hops ?? 0,
		version,
		status: 'queued',
		state: newScenarioRun(),
		pending: null,
		retryState: null,
		retries: 0,
		log: [],
		error: null,
		resumeAt: null,
		turn: 0,
		createdAt: now,
		updatedAt: now,
		finishedAt: null,
	};
	const guard = floodGuard(
		{
			workspaceId: start.workspaceId,
			scenarioId: start.scenarioId,
			scenarioName: scenario.name,
			runId: row.id,
			runsPerMinute: scenarioRunsPerMinute,
		},
		now,
	);
	const insert = db.insert(scenarioRuns).values(row).onConflictDoNothing();
	const committed = await commit(db, { statements: [insert, ...guard.statements], events: [guard.event] });
	const [inserted, refused] = committed.results.map((result) => result.meta.changes > 0);
	if (refused) {
		await release(env, committed.events);
		throw new ScenarioPaused(start.scenarioId, now, scenarioRunsPerMinute);
	}
	if (!inserted) return { run: await replayed(db, start), replayed: true };
	try {
		await queue.send({ runId: row.id, workspaceId: start.workspaceId });
	} catch (error) {
		await db.delete(scenarioRuns).where(eq(scenarioRuns.id, row.id));
		throw new ServiceUnavailable('The run could not be queued; nothing was recorded. Retry shortly.', { cause: error });
	}
	return { run: row, replayed: false };
}

/**
 * The run a start with the same key recorded. The key reused with another input is a sender bug (422),
 * compared in canonical form (the same keys in another order are the same body). A key whose first start is
 * still being queued, or failed to be, is a 409 to retry.
 */
async function replayed(db: Database, start: RunStart): Promise<RunRow> {
	const first =
		start.dedupeKey === null
			? undefined
			: await db
					.select()
					.from(scenarioRuns)
					.where(
						and(
							eq(scenarioRuns.workspaceId, start.workspaceId),
							eq(scenarioRuns.scenarioId, start.scenarioId),
							eq(scenarioRuns.dedupeKey, start.dedupeKey),
						),
					)
					.get();
	if (!first) throw new Conflict('A run with this id is being recorded; retry shortly.');
	if (canonicalJson(first.input) !== canonicalJson(start.input)) {
		throw new Invalid('This webhook-id (or Idempotency-Key) was already used with a different body.');
	}
	return first;
}

async function runRow(db: Database, workspaceId: string, scenarioId: string, runId: string): Promise<RunRow> {
	const row = await db
		.select()
		.from(scenarioRuns)
		.where(
			and(
				eq(scenarioRuns.workspaceId, workspaceId),
				eq(scenarioRuns.scenarioId, scenarioId),
				eq(scenarioRuns.id, runId),
			),
		)
		.get();
	if (!row) throw new NotFound(`Run ${runId} of scenario ${scenarioId} not found.`);
	return row;
}

export async function getRun(db: Database, workspaceId: string, scenarioId: string, runId: string) {
	return runView(await runRow(db, workspaceId, scenarioId, runId));
}

/** One page of a scenario's runs, newest first, optionally of one status. */
export async function listRuns(
	db: Database,
	workspaceId: string,
	scenarioId: string,
	status: RunRow['status'] | undefined,
	after: NewestFirstCursor | null,
	limit: number,
) {
	const rows = await db
		.select()
		.from(scenarioRuns)
		.where(
			and(
				eq(scenarioRuns.workspaceId, workspaceId),
				eq(scenarioRuns.scenarioId, scenarioId),
				status === undefined ? undefined : eq(scenarioRuns.status, status),
				afterNewestFirst(scenarioRuns.createdAt, scenarioRuns.id, after),
			),
		)
		.orderBy(desc(scenarioRuns.createdAt), desc(scenarioRuns.id))
		.limit(limit + 1);
	return pageOf(rows, limit, summaryView, (row) => ({ at: row.createdAt, id: row.id }));
}

/**
 * Runs a failed run again from its failed step: the state before the failing result is restored and the step
 * tried anew (its earlier tries stay recorded under their own keys). A run that failed for want of delivery
 * resumes where it stood. A run that failed with no action pending (an End step or a bad template reached
 * straight from the start or a condition) cannot be retried: 409. One that failed after an action's error
 * path is retried from that action.
 */
export async function retryRun(
	db: Database,
	queue: Queue<ScenarioRunMessage>,
	workspaceId: string,
	scenarioId: string,
	runId: string,
	now = Date.now(),
) {
	const row = await runRow(db, workspaceId, scenarioId, runId);
	if (row.status !== 'failed') throw new Conflict(`Run ${runId} is ${row.status}: only a failed run can be retried.`);
	const state = row.retryState ?? (row.pending !== null ? row.state : null);
	if (state === null) throw new Conflict(`Run ${runId} did not fail at an action step: start a new run instead.`);
	// A run that never took a step (its deliveries failed) starts again; any other waits on its failed step.
	const fresh = state.steps === 0;
	const set = {
		status: fresh ? ('queued' as const) : ('waiting' as const),
		state: fresh ? newScenarioRun() : { ...state, status: 'waiting' as const, attempt: 0, error: null },
		retryState: null,
		// A retry of a failed step tries it anew (its failure stays recorded under the old generation); a run
		// that failed for want of delivery replays what it recorded.
		retries: row.retryState === null ? row.retries : row.retries + 1,
		error: null,
		resumeAt: null,
		finishedAt: null,
		turn: row.turn + 1,
		updatedAt: now,
	};
	const changed = await db
		.update(scenarioRuns)
		.set(set)
		.where(and(eq(scenarioRuns.id, runId), eq(scenarioRuns.turn, row.turn)))
		.returning({ id: scenarioRuns.id });
	if (changed.length === 0) throw new Conflict(`Run ${runId} changed meanwhile; read it again.`);
	try {
		await queue.send({ runId, workspaceId });
	} catch (error) {
		await db
			.update(scenarioRuns)
			.set({ status: 'failed', state: row.state, retryState: row.retryState, retries: row.retries, error: row.error })
			.where(and(eq(scenarioRuns.id, runId), eq(scenarioRuns.turn, set.turn)));
		throw new ServiceUnavailable('The retry could not be queued; the run is unchanged. Retry shortly.', {
			cause: error,
		});
	}
	return runView({ ...row, ...set });
}
