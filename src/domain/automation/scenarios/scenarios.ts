/**
 * Scenarios as the workspace keeps them: settings (name, enabled, what triggers it), a draft definition and
 * numbered versions (src/domain/automation/versions.ts, shared with bots). Every scenario can be started by its webhooks
 * and by an API call; its trigger says what else starts it: a domain event (with a condition on it), or a
 * schedule (a cron expression in the workspace's time zone, fired by the Worker's Cron Trigger).
 */
import type { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { automationVersions, scenarioRuns, scenarioSteps, scenarios, scenarioWebhooks } from '../../../db/schema';
import { existsInWorkspace } from '../../../db/scoped';
import { conditionProblemsWithin } from '../../../engines/conditions';
import {
	type ScenarioDefinition,
	scenarioDefinitionSchema,
	scenarioProblems,
} from '../../../engines/scenario-definition';
import { under } from '../../../engines/step-graph';
import { type ByNameCursor, byNameCursor } from '../../../lib/cursor';
import { Conflict, Invalid, NotFound } from '../../../lib/errors';
import type { ExpectedVersion } from '../../../lib/expected-version';
import { iso, newId } from '../../../lib/ids';
import type { Actor } from '../../../model/actor';
import { workspaceTimeZone } from '../../widget/settings';
import {
	checkedAgainst,
	createOwner,
	deleteOwner,
	deleteVersions,
	getVersion,
	listVersions,
	type OwnerKind,
	ownerPage,
	ownerRow,
	publishOwner,
	updateOwner,
} from '../versions';
import { pauseReason, ScenarioPaused } from './flood';
import {
	type newScenarioSchema,
	nextFire,
	type ScenarioTrigger,
	type scenarioChangesSchema,
	type scenarioSchema,
} from './schemas';

export {
	newScenarioSchema,
	SCENARIO_EVENT_TYPES,
	scenarioChangesSchema,
	scenarioSchema,
	scenarioVersionSchema,
} from './schemas';

type ScenarioRow = typeof scenarios.$inferSelect;

function scenarioView(row: ScenarioRow): z.infer<typeof scenarioSchema> {
	return {
		id: row.id,
		name: row.name,
		enabled: row.enabled,
		trigger: {
			kind: row.trigger,
			events: row.eventTypes,
			condition: row.condition as Record<string, unknown> | null,
			cron: row.cron,
			nextFireAt: row.nextFireAt === null ? null : iso(row.nextFireAt),
		},
		draft: row.draft,
		publishedVersion: row.publishedVersion,
		lastVersion: row.lastVersion,
		paused:
			row.pausedAt === null
				? null
				: {
						at: iso(row.pausedAt),
						reason: pauseReason(row.pausedRunsPerMinute ?? 0),
						runsPerMinute: row.pausedRunsPerMinute ?? 0,
					},
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
	};
}

/** The definition, checked: every problem (`definition.steps.3.url: …`) in one 422. */
export function checkedScenario(definition: unknown): ScenarioDefinition {
	return checkedAgainst(definition, scenarioProblems, scenarioDefinitionSchema);
}

/** The stored trigger columns; an event condition is checked as a bot's conditions are, and may read vars only. */
async function triggerColumns(db: Database, workspaceId: string, trigger: ScenarioTrigger, published: boolean) {
	if (trigger.kind === 'event' && trigger.condition !== null) {
		const problems = under(
			['trigger', 'condition'],
			conditionProblemsWithin(trigger.condition, ['vars'], 'an event condition reads vars.event only'),
		);
		if (problems.length > 0) {
			throw Invalid.fromProblems(problems);
		}
	}
	const nextFireAt =
		trigger.kind === 'schedule' && published
			? (nextFire(trigger.cron, await workspaceTimeZone(db, workspaceId), Date.now()) ?? null)
			: null;
	return {
		trigger: trigger.kind,
		eventTypes: trigger.kind === 'event' ? [...trigger.events] : [],
		condition: trigger.kind === 'event' ? trigger.condition : null,
		cron: trigger.kind === 'schedule' ? trigger.cron : null,
		nextFireAt,
	};
}

const SCENARIO: OwnerKind<typeof scenarios> = {
	table: scenarios,
	label: 'Scenario',
	events: 'scenario',
	key: 'scenario',
};

async function scenarioRow(db: Database, workspaceId: string, id: string): Promise<ScenarioRow> {
	return ownerRow(db, scenarios, SCENARIO.label, workspaceId, id);
}

/** NotFound unless the scenario is the workspace's: a check that reads no draft. */
export async function assertScenario(db: Database, workspaceId: string, id: string): Promise<void> {
	if (!(await existsInWorkspace(db, scenarios, workspaceId, id))) throw new NotFound(`Scenario ${id} not found.`);
}

export async function getScenario(db: Database, workspaceId: string, id: string) {
	return scenarioView(await scenarioRow(db, workspaceId, id));
}

export const scenarioCursor = byNameCursor;

/** One page of the workspace's scenarios by name. */
export async function listScenarios(db: Database, workspaceId: string, after: ByNameCursor | null, limit: number) {
	return ownerPage(db, scenarios, workspaceId, after, limit, scenarioView);
}

export async function createScenario(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newScenarioSchema>,
	actor: Actor,
	now = Date.now(),
) {
	const draft = checkedScenario(input.definition);
	const row: ScenarioRow = {
		id: newId('scn', now),
		workspaceId,
		name: input.name,
		enabled: input.enabled,
		...(await triggerColumns(db, workspaceId, input.trigger, false)),
		draft,
		publishedVersion: null,
		lastVersion: 0,
		pausedAt: null,
		pausedRunsPerMinute: null,
		resumedAt: null,
		createdAt: now,
		updatedAt: now,
	};
	await createOwner(env, db, SCENARIO, row, actor, now);
	return scenarioView(row);
}

/** Changes a scenario's settings or draft, with a `scenario.updated` naming what moved; nothing when nothing does. */
export async function updateScenario(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof scenarioChangesSchema>,
	actor: Actor,
	/** The version the change was computed from (If-Match): applied only while it is current. */
	expected?: ExpectedVersion,
	now = Date.now(),
) {
	const current = await scenarioRow(db, workspaceId, id);
	const set: Partial<ScenarioRow> = {};
	if (changes.name !== undefined) set.name = changes.name;
	if (changes.enabled !== undefined) set.enabled = changes.enabled;
	if (changes.trigger !== undefined) {
		Object.assign(set, await triggerColumns(db, workspaceId, changes.trigger, current.publishedVersion !== null));
	}
	if (changes.definition !== undefined) set.draft = checkedScenario(changes.definition);
	// Enabled again: a schedule counts from now, rather than firing at once for the time it missed.
	const cron = set.cron === undefined ? current.cron : set.cron;
	if (changes.enabled === true && !current.enabled && cron !== null && current.publishedVersion !== null) {
		set.nextFireAt = nextFire(cron, await workspaceTimeZone(db, workspaceId), now) ?? null;
	}
	// Enabled again: resumed, and flood protection counts runs from now, not the flood that paused it.
	if (changes.enabled === true && !current.enabled) {
		Object.assign(set, { pausedAt: null, pausedRunsPerMinute: null, resumedAt: now });
	}
	// These follow from the schedule and `enabled`: not announced on their own.
	const derived = ['nextFireAt', 'pausedAt', 'pausedRunsPerMinute', 'resumedAt'];
	return scenarioView(await updateOwner(env, db, SCENARIO, current, set, actor, now, derived, expected));
}

/**
 * Deletes a scenario with its versions and webhooks (their URLs answer 404 from now on) and its runs' records,
 * with `scenario.deleted`. A run still queued finds no scenario and stops.
 */
export async function deleteScenario(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	actor: Actor,
	expected?: ExpectedVersion,
	now = Date.now(),
) {
	const current = await scenarioRow(db, workspaceId, id);
	const dependants = [
		deleteVersions(db, current),
		db
			.delete(scenarioWebhooks)
			.where(and(eq(scenarioWebhooks.workspaceId, workspaceId), eq(scenarioWebhooks.scenarioId, id))),
		db
			.delete(scenarioSteps)
			.where(
				and(
					eq(scenarioSteps.workspaceId, workspaceId),
					sql`${scenarioSteps.runId} IN (SELECT ${scenarioRuns.id} FROM ${scenarioRuns} WHERE ${scenarioRuns.scenarioId} = ${id})`,
				),
			),
		db.delete(scenarioRuns).where(and(eq(scenarioRuns.workspaceId, workspaceId), eq(scenarioRuns.scenarioId, id))),
	];
	await deleteOwner(env, db, SCENARIO, current, dependants, actor, now, expected);
}

/**
 * Publishes: without `version`, freezes the draft (checked again) as the next version; with one, makes that
 * version current again (a rollback). A schedule starts counting from now when first published.
 */
export async function publishScenario(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	version: number | undefined,
	operatorId: string | null,
	actor: Actor,
	now = Date.now(),
) {
	const current = await scenarioRow(db, workspaceId, id);
	const nextFireAt =
		current.cron === null
			? null
			: (current.nextFireAt ?? nextFire(current.cron, await workspaceTimeZone(db, workspaceId), now) ?? null);
	const published = await publishOwner(env, db, SCENARIO, current, version, checkedScenario, operatorId, actor, now, {
		nextFireAt,
	});
	return scenarioView(published);
}

export async function listScenarioVersions(db: Database, workspaceId: string, id: string) {
	return listVersions(db, await scenarioRow(db, workspaceId, id));
}

export async function getScenarioVersion(db: Database, workspaceId: string, id: string, version: number) {
	const v = await getVersion(db, await scenarioRow(db, workspaceId, id), 'Scenario', version);
	return { ...v, definition: v.definition as ScenarioDefinition };
}

/** A scenario that cannot start now (unpublished, disabled): a 409 for a caller, a skip for a trigger. */
export class NotRunnable extends Conflict {}

/** A scenario ready to run: its published version, or why it cannot start. */
export async function runnableScenario(db: Database, workspaceId: string, id: string) {
	const row = await scenarioRow(db, workspaceId, id);
	if (row.publishedVersion === null)
		throw new NotRunnable(`Scenario ${id} has no published version yet: publish it first.`);
	if (!row.enabled && row.pausedAt !== null) throw new ScenarioPaused(id, row.pausedAt, row.pausedRunsPerMinute ?? 0);
	if (!row.enabled)
		throw new NotRunnable(`Scenario ${id} is disabled: enable it (PATCH {"enabled": true}) to start it.`);
	return { row, version: row.publishedVersion };
}

/**
 * What a run of one version executes: the scenario's name and that version's definition, in one query; null
 * when the scenario is gone, NotFound when it has no such version.
 */
export async function runVersion(db: Database, workspaceId: string, id: string, version: number) {
	const row = await db
		.select({ name: scenarios.name, definition: automationVersions.definition })
		.from(scenarios)
		.leftJoin(
			automationVersions,
			and(
				eq(automationVersions.workspaceId, scenarios.workspaceId),
				eq(automationVersions.ownerId, scenarios.id),
				eq(automationVersions.version, version),
			),
		)
		.where(and(eq(scenarios.workspaceId, workspaceId), eq(scenarios.id, id)))
		.get();
	if (!row) return null;
	if (row.definition === null) throw new NotFound(`Scenario ${id} has no version ${version}.`);
	return { name: row.name, definition: row.definition as ScenarioDefinition };
}

/** A scenario's name, for a run's ending event; its id when the scenario is gone. */
export async function scenarioName(db: Database, workspaceId: string, id: string): Promise<string> {
	const row = await db
		.select({ name: scenarios.name })
		.from(scenarios)
		.where(and(eq(scenarios.workspaceId, workspaceId), eq(scenarios.id, id)))
		.get();
	return row?.name ?? id;
}
