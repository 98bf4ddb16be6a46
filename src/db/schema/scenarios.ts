/** Scenarios: their settings and draft, their inbound webhooks, their runs and each run's recorded step results. */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { Condition } from '../../engines/conditions';
import type { ScenarioDefinition } from '../../engines/scenario-definition';
import type { ScenarioEffect, ScenarioRunState } from '../../engines/scenario-interpreter';

export const SCENARIO_TRIGGERS = ['webhook', 'event', 'schedule'] as const;
export const RUN_TRIGGERS = ['webhook', 'event', 'schedule', 'api'] as const;
export const RUN_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed'] as const;
export const WEBHOOK_AUTH = ['secret', 'open'] as const;

export const scenarios = sqliteTable(
	'scenarios',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		name: text('name').notNull(),
		/** A disabled scenario starts no run (runs under way go on). */
		enabled: integer('enabled', { mode: 'boolean' }).notNull(),
		/** What starts it besides its webhooks and API calls (which start any scenario). */
		trigger: text('trigger', { enum: SCENARIO_TRIGGERS }).notNull(),
		/** An `event` scenario's event types; [] otherwise. */
		eventTypes: text('event_types', { mode: 'json' }).$type<string[]>().notNull(),
		/** An `event` scenario's condition on `vars.event`; null for none. */
		condition: text('condition', { mode: 'json' }).$type<Condition>(),
		/** A `schedule` scenario's cron expression, read in the workspace time zone. */
		cron: text('cron'),
		/** When a `schedule` scenario fires next (ms); null for the other triggers. */
		nextFireAt: integer('next_fire_at'),
		draft: text('draft', { mode: 'json' }).$type<ScenarioDefinition>().notNull(),
		publishedVersion: integer('published_version'),
		lastVersion: integer('last_version').notNull(),
		/**
		 * When flood protection paused it (and disabled it: src/domain/automation/scenarios/flood.ts), and the runs a minute it
		 * went past; null while it is not paused. Enabling it again clears both.
		 */
		pausedAt: integer('paused_at'),
		pausedRunsPerMinute: integer('paused_runs_per_minute'),
		/** When an admin last resumed it: flood protection counts runs from then, not the flood before. */
		resumedAt: integer('resumed_at'),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [
		index('scenarios_workspace_name').on(t.workspaceId, t.name, t.id),
		index('scenarios_workspace_trigger').on(t.workspaceId, t.trigger),
		index('scenarios_next_fire').on(t.nextFireAt),
	],
);

/** A scenario's inbound webhook: `POST /v3/workflows/webhook/{id}` starts a run of its scenario. */
export const scenarioWebhooks = sqliteTable(
	'scenario_webhooks',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		scenarioId: text('scenario_id').notNull(),
		name: text('name').notNull(),
		/** `secret`: a Token V3, a signature or the secret; `open`: anyone (its owner chose so). */
		auth: text('auth', { enum: WEBHOOK_AUTH }).notNull(),
		/** Which derivation of the webhook's secret is current: rotating bumps it. */
		secretVersion: integer('secret_version').notNull(),
		enabled: integer('enabled', { mode: 'boolean' }).notNull(),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [index('scenario_webhooks_scenario').on(t.workspaceId, t.scenarioId)],
);

export const scenarioRuns = sqliteTable(
	'scenario_runs',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		scenarioId: text('scenario_id').notNull(),
		version: integer('version').notNull(),
		trigger: text('trigger', { enum: RUN_TRIGGERS }).notNull(),
		/** The webhook, event or fire time that started it; null for an API call. */
		source: text('source'),
		/** A sender's retry id (webhook-id, Idempotency-Key, event id, fire time): one run per key. */
		dedupeKey: text('dedupe_key'),
		input: text('input', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
		status: text('status', { enum: RUN_STATUSES }).notNull(),
		state: text('state', { mode: 'json' }).$type<ScenarioRunState>().notNull(),
		/** The action waited on, as the interpreter rendered it; null when none is. */
		pending: text('pending', { mode: 'json' }).$type<Extract<ScenarioEffect, { kind: 'action' | 'retry' }>>(),
		/** The state to go back to when a failed run is retried from its failed step; null when it cannot be. */
		retryState: text('retry_state', { mode: 'json' }).$type<ScenarioRunState>(),
		/** Retries from the failed step so far: part of the key each try's result is recorded under. */
		retries: integer('retries').notNull(),
		/** The step log, in order. */
		log: text('log', { mode: 'json' }).$type<RunLogEntry[]>().notNull(),
		error: text('error'),
		/** Not before then does a delivery resume it (a retry's backoff). */
		resumeAt: integer('resume_at'),
		/** Bumped by every write: a write that finds another turn lost a race and changes nothing. */
		turn: integer('turn').notNull(),
		/** The Parley calls in a row that led to it (src/lib/parley-hops.ts): its own calls carry one more. */
		hops: integer('hops').notNull().default(0),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
		finishedAt: integer('finished_at'),
	},
	(t) => [
		uniqueIndex('scenario_runs_dedupe').on(t.scenarioId, t.dedupeKey),
		index('scenario_runs_scenario').on(t.workspaceId, t.scenarioId, t.createdAt),
	],
);

export interface RunLogEntry {
	at: number;
	key: string;
	stepId: string;
	output?: unknown;
	error?: string;
}

/**
 * Each action's result, under its key: a redelivered message reads it instead of acting again. A row without
 * a result is a try under way, claimed at `created_at`: another delivery waits for it, or takes it over once
 * the claim is old enough that its delivery must have died.
 */
export const scenarioSteps = sqliteTable(
	'scenario_steps',
	{
		runId: text('run_id').notNull(),
		/** The step's key (`tag@each:3`), then the retry generation and the try: `tag@each:3#0.1`. */
		key: text('key').notNull(),
		workspaceId: text('workspace_id').notNull(),
		result: text('result', { mode: 'json' }).$type<RecordedResult>(),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [primaryKey({ columns: [t.runId, t.key] })],
);

export interface RecordedResult {
	ok: boolean;
	data?: unknown;
	error?: string;
	retryable?: boolean;
	notFound?: boolean;
}

/** A workspace's automation settings; a workspace without a row has the defaults. */
export const automationSettings = sqliteTable('automation_settings', {
	workspaceId: text('workspace_id').primaryKey(),
	/** Flood protection: runs a scenario may start in any minute before it is paused. */
	scenarioRunsPerMinute: integer('scenario_runs_per_minute').notNull(),
	updatedAt: integer('updated_at').notNull(),
});
