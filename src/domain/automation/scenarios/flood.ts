/**
 * Flood protection (as Zapier calls it): a scenario that starts more runs in a minute than its workspace
 * allows (`scenarioRunsPerMinute`, src/domain/automation/settings.ts) is paused, whatever starts it (its
 * webhooks, events, schedule, API calls), so a loop no hop count sees (a relay outside Parley that drops
 * `Parley-Hops`, a chain of events and webhooks) or a sender gone wild stops within a minute.
 *
 * The count is taken in D1, in the batch that records the run: the run is inserted, then deleted again when
 * the scenario's runs of the last minute (since its last resume) now number more than the limit, and then, if
 * it was, the scenario is paused (disabled, with when and at what limit) and `scenario.paused` committed, once.
 * D1 runs a batch as one transaction and one writer runs them one after another, so concurrent starts each
 * count every run committed before them: no more than the limit get through, however many arrive at once,
 * without a hop to another object, and the count cannot drift from the runs it counts. The count reads the
 * runs index (workspace, scenario, created_at): at most the limit's rows, since runs over it are removed.
 *
 * Paused, the scenario is disabled, so everything that starts runs already refuses or skips it (runs under
 * way go on). Its admins learn it from the scenario's view (`paused`: when, why), the event (rules, outbound
 * webhooks) and their live feed. Enabling it again (`POST …/resume` or `PATCH {"enabled": true}`) resumes
 * it, and the count starts again from then.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type ConditionalEvent, IF_CHANGED } from '../../../events/commit';
import { Conflict } from '../../../lib/errors';
import { iso } from '../../../lib/ids';
import { SYSTEM } from '../../../model/actor';
import { newEvent } from '../../../model/events';

const WINDOW_MS = 60_000;

/** Why a paused scenario was paused, for its view and its event. */
export function pauseReason(runsPerMinute: number): string {
	return `flood protection: it started more than ${runsPerMinute} runs a minute, the workspace's limit (scenarioRunsPerMinute)`;
}

/** A start refused because the scenario is paused (now, or before): a 409, a skip for an event or schedule. */
export class ScenarioPaused extends Conflict {
	constructor(scenarioId: string, pausedAt: number, runsPerMinute: number) {
		super(
			`Scenario ${scenarioId} was paused at ${iso(pausedAt)} by ${pauseReason(runsPerMinute)}. An admin resumes it with POST /v3/scenarios/${scenarioId}/resume.`,
		);
	}
}

interface Guarded {
	workspaceId: string;
	scenarioId: string;
	scenarioName: string;
	runId: string;
	runsPerMinute: number;
}

/**
 * The statements that follow a run's insert in its batch: remove it again when the scenario is over its
 * limit, then pause the scenario if that happened (and it was not paused yet), with `scenario.paused` written
 * only then. The caller reads the first statement's `changes` to know whether the run was refused.
 */
export function floodGuard(g: Guarded, now: number): { statements: SQL[]; event: ConditionalEvent } {
	const recent = sql`SELECT count(*) FROM scenario_runs
		WHERE workspace_id = ${g.workspaceId} AND scenario_id = ${g.scenarioId} AND created_at > ${now - WINDOW_MS}
			AND created_at >= coalesce((SELECT resumed_at FROM scenarios WHERE workspace_id = ${g.workspaceId} AND id = ${g.scenarioId}), 0)`;
	const refuse = sql`DELETE FROM scenario_runs WHERE id = ${g.runId} AND (${recent}) > ${g.runsPerMinute}`;
	// changes(): the DELETE's, so a scenario is paused only by a start that was refused.
	const pause = sql`UPDATE scenarios
		SET enabled = 0, paused_at = ${now}, paused_runs_per_minute = ${g.runsPerMinute}, updated_at = max(updated_at + 1, ${now})
		WHERE workspace_id = ${g.workspaceId} AND id = ${g.scenarioId} AND enabled = 1 AND changes() > 0`;
	const event = newEvent(
		'scenario.paused',
		g.workspaceId,
		SYSTEM,
		{
			scenario: { id: g.scenarioId, name: g.scenarioName },
			runsPerMinute: g.runsPerMinute,
			reason: pauseReason(g.runsPerMinute),
		},
		now,
	);
	return { statements: [refuse, pause], event: { event, onlyIf: IF_CHANGED } };
}
