/**
 * What starts scenarios besides their webhooks and API calls: domain events (from the events Queue's
 * consumer) and schedules (from the Worker's Cron Trigger, every minute).
 *
 * An event starts each enabled, published `event` scenario of its workspace that lists its type and whose
 * condition holds on `vars.event`; the event id is the run's key, so a redelivered event finds its runs.
 * Events a scenario caused start no scenario: two scenarios reacting to each other's changes would loop.
 *
 * A schedule fires when its `next_fire_at` has come: a run keyed by that time (a second sweep of the same
 * minute finds it), then the next time after now, in the workspace's time zone. Minutes missed while nothing
 * swept (a deploy) fire once, not once each.
 */
import { and, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { scenarios } from '../../../db/schema';
import { evaluate } from '../../../engines/conditions';
import { NotFound } from '../../../lib/errors';
import { groupBy } from '../../../lib/group-by';
import { iso } from '../../../lib/ids';
import type { DomainEvent } from '../../../model/events';
import { workspaceTimeZone } from '../../widget/settings';
import { ScenarioPaused } from './flood';
import { startRun } from './runs';
import { NotRunnable } from './scenarios';
import { nextFire, SCENARIO_EVENT_TYPES } from './schemas';

const TRIGGERING: ReadonlySet<string> = new Set(SCENARIO_EVENT_TYPES);

/** Schedules one sweep fires at most (the rest wait a minute): a bound on the Cron Trigger's work. */
const SCHEDULES_PER_SWEEP = 200;

/**
 * Starts a run; false when the scenario was deleted, disabled or paused meanwhile (nothing to start, nothing
 * to retry).
 */
async function startedUnlessGone(start: () => Promise<unknown>): Promise<boolean> {
	try {
		await start();
		return true;
	} catch (error) {
		if (error instanceof NotFound || error instanceof NotRunnable || error instanceof ScenarioPaused) return false;
		throw error;
	}
}

export type EventScenario = Pick<typeof scenarios.$inferSelect, 'id' | 'eventTypes' | 'condition'>;

/**
 * The enabled, published `event` scenarios of these workspaces, by workspace, in one statement: the events
 * consumer reads them once per batch.
 */
export async function eventScenarios(db: Database, workspaceIds: string[]) {
	const rows = await db
		.select({
			id: scenarios.id,
			workspaceId: scenarios.workspaceId,
			eventTypes: scenarios.eventTypes,
			condition: scenarios.condition,
		})
		.from(scenarios)
		.where(
			and(
				inArray(scenarios.workspaceId, [...new Set(workspaceIds)]),
				eq(scenarios.trigger, 'event'),
				eq(scenarios.enabled, true),
				isNotNull(scenarios.publishedVersion),
			),
		);
	return groupBy<EventScenario & { workspaceId: string }>(rows, (row) => row.workspaceId);
}

export async function startEventScenarios(
	env: Env,
	db: Database,
	event: DomainEvent,
	listening?: EventScenario[],
): Promise<number> {
	if (!TRIGGERING.has(event.type) || event.actor.kind === 'scenario') return 0;
	const candidates = listening ?? (await eventScenarios(db, [event.workspaceId])).get(event.workspaceId) ?? [];
	let started = 0;
	for (const scenario of candidates) {
		if (!scenario.eventTypes.includes(event.type)) continue;
		const variables = { event };
		if (scenario.condition !== null && !evaluate(scenario.condition, { vars: variables })) continue;
		if (
			await startedUnlessGone(() =>
				startRun(env, db, env.SCENARIO_RUNS, {
					workspaceId: event.workspaceId,
					scenarioId: scenario.id,
					trigger: 'event',
					source: event.id,
					dedupeKey: `event:${event.id}`,
					input: variables,
				}),
			)
		)
			started++;
	}
	return started;
}

/** Fires every schedule whose time has come; the number of runs started. */
export async function fireSchedules(env: Env, db: Database, now = Date.now()): Promise<number> {
	const due = await db
		.select({
			id: scenarios.id,
			workspaceId: scenarios.workspaceId,
			cron: scenarios.cron,
			nextFireAt: scenarios.nextFireAt,
		})
		.from(scenarios)
		.where(
			and(
				lte(scenarios.nextFireAt, now),
				eq(scenarios.trigger, 'schedule'),
				eq(scenarios.enabled, true),
				isNotNull(scenarios.publishedVersion),
			),
		)
		.orderBy(scenarios.nextFireAt)
		.limit(SCHEDULES_PER_SWEEP);
	let fired = 0;
	// Read once per workspace of the sweep, not once per scenario.
	const timeZones = new Map<string, string>();
	for (const scenario of due) {
		const at = scenario.nextFireAt as number;
		const started = await startedUnlessGone(() =>
			startRun(env, db, env.SCENARIO_RUNS, {
				workspaceId: scenario.workspaceId,
				scenarioId: scenario.id,
				trigger: 'schedule',
				source: iso(at),
				dedupeKey: `schedule:${at}`,
				input: { firedAt: iso(at) },
			}),
		);
		let timeZone = timeZones.get(scenario.workspaceId);
		if (timeZone === undefined) {
			timeZone = await workspaceTimeZone(db, scenario.workspaceId);
			timeZones.set(scenario.workspaceId, timeZone);
		}
		const next = nextFire(scenario.cron ?? '', timeZone, Math.max(now, at)) ?? null;
		await db
			.update(scenarios)
			.set({ nextFireAt: next })
			.where(and(eq(scenarios.id, scenario.id), sql`${scenarios.nextFireAt} = ${at}`));
		// A scenario deleted or unpublished meanwhile moves on without a run: not a fire.
		if (started) fired++;
	}
	return fired;
}
