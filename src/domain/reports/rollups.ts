/**
 * The conversations report's rollups (migrations/0038_report_rollups.sql): per workspace and local day of
 * creation, each dimension set's count and duration histograms, kept by triggers on `conversations` in the
 * statement that writes the change. Here: reading a range of them, and rebuilding a workspace's in its time
 * zone, which the triggers then keep by day in.
 */
import { sql } from 'drizzle-orm';
import { type Database, runBatch } from '../../db/client';
import { offsetAt } from '../../model/business-hours';
import type { Histogram } from './histogram';

/**
 * A dimension set's figures on one day, as stored: conversations; first responses, the sum of their times
 * (ms); resolutions (the conversations closed now), the sum of theirs; the first responses' and the
 * resolutions' histograms.
 */
export type SetFigures = readonly [number, number, number, number, number, Histogram, Histogram];

/** What a dimension set stands for: a conversation's values of everything the report groups or filters by. */
export interface DimensionSet {
	status: string;
	channel: string;
	assigneeId: string | null;
	groupId: string | null;
	click: string;
	utmSource: string | null;
	utmMedium: string | null;
	utmCampaign: string | null;
}

/** A handoff's dimensions: its messaging app and its click's origin. */
export interface HandoffSet {
	channel: string;
	click: string;
	utmSource: string | null;
	utmMedium: string | null;
	utmCampaign: string | null;
}

export interface Rollups {
	sets: Map<string, DimensionSet>;
	handoffSets: Map<string, HandoffSet>;
	/** Each stored day of the range (a day without conversations has no row) and its figures by set id. */
	days: Array<{ day: string; figures: Record<string, SetFigures> }>;
	/** Each stored day's handoffs by set id: `[handoffs, of them arrived]`. */
	handoffDays: Array<{ day: string; figures: Record<string, [number, number]> }>;
}

const DAY_MS = 86_400_000;
/** The span whose zone offsets are stored; before it the first offset holds, after it the last. */
const OFFSETS_FROM = Date.UTC(2000, 0, 1);
const OFFSETS_TO = Date.UTC(2060, 0, 1);
/** Before the span: SQLite's integers are 64-bit, this is any conversation's creation. */
const BEGINNING = -8_640_000_000_000_000;

/**
 * `timeZone`'s UTC offsets as `[from instant, offset ms]`, one per change: sampled every 14 days (an offset
 * lasting less between two changes would be missed; the shortest since 2000, Morocco's Ramadan hour, lasts about
 * a month) and each change found to the minute. Some 3 to 100 ms of CPU: computed only for a zone not yet stored.
 */
export function zoneOffsets(timeZone: string): Array<[number, number]> {
	const step = 14 * DAY_MS;
	let previous = offsetAt(timeZone, OFFSETS_FROM);
	const changes: Array<[number, number]> = [[BEGINNING, previous]];
	for (let at = OFFSETS_FROM + step; at <= OFFSETS_TO; at += step) {
		const offset = offsetAt(timeZone, at);
		if (offset === previous) continue;
		let low = (at - step) / 60_000;
		let high = at / 60_000;
		while (high - low > 1) {
			const middle = Math.floor((low + high) / 2);
			if (offsetAt(timeZone, middle * 60_000) === previous) low = middle;
			else high = middle;
		}
		changes.push([high * 60_000, offset]);
		previous = offset;
	}
	return changes;
}

/**
 * Rebuilds the workspace's rollups by day in `timeZone`, in one batch (one transaction): the zone's offsets,
 * then every conversation of the workspace counted again by the same trigger that counts a new one. It reads
 * each of them once, so it runs when the zone changes (and on a workspace's first report after the migration
 * that built them in UTC), never per report.
 */
export async function rebuildRollups(db: Database, workspaceId: string, timeZone: string): Promise<void> {
	const stored = await db.get<{ n: number }>(
		sql`SELECT count(*) AS n FROM (SELECT 1 FROM report_zone_offsets WHERE time_zone = ${timeZone} LIMIT 1)`,
	);
	const offsets = stored?.n ? [] : zoneOffsets(timeZone);
	await runBatch(db, [
		sql`INSERT INTO report_zone_offsets (time_zone, starts_at, offset_ms)
			SELECT ${timeZone}, value ->> 0, value ->> 1 FROM json_each(${JSON.stringify(offsets)})
			WHERE true ON CONFLICT DO NOTHING`,
		sql`INSERT INTO report_rollup_zones (workspace_id, time_zone) VALUES (${workspaceId}, ${timeZone})
			ON CONFLICT (workspace_id) DO UPDATE SET time_zone = excluded.time_zone`,
		sql`DELETE FROM report_days WHERE workspace_id = ${workspaceId}`,
		sql`DELETE FROM report_handoff_days WHERE workspace_id = ${workspaceId}`,
		sql`DELETE FROM report_dimension_sets WHERE workspace_id = ${workspaceId}`,
		sql`INSERT INTO report_conversation_changes SELECT workspace_id, created_at, status, channel, assignee_id,
			group_id, ad_click, utm_source, utm_medium, utm_campaign, first_response_at, status_changed_at, 1
			FROM conversations WHERE workspace_id = ${workspaceId}`,
		sql`INSERT INTO report_handoff_changes SELECT workspace_id, created_at, channel, origin, conversation_id IS NOT NULL,
			1 FROM messaging_handoffs WHERE workspace_id = ${workspaceId}`,
	]);
}

/**
 * The rollups of the days `from` to `to` (local dates, included) by day in `timeZone`: one round trip of four
 * reads (the zone they are in, the workspace's dimension sets, the conversations' and the handoffs' days),
 * rebuilt first when they are in another zone.
 */
export async function readRollups(
	db: Database,
	workspaceId: string,
	timeZone: string,
	from: string,
	to: string,
): Promise<Rollups> {
	const read = () =>
		runBatch(db, [
			sql`SELECT time_zone AS zone FROM report_rollup_zones WHERE workspace_id = ${workspaceId}`,
			sql`SELECT id, dimensions FROM report_dimension_sets WHERE workspace_id = ${workspaceId}`,
			sql`SELECT day, figures FROM report_days WHERE workspace_id = ${workspaceId} AND day >= ${from} AND day <= ${to}
				ORDER BY day`,
			sql`SELECT day, figures FROM report_handoff_days WHERE workspace_id = ${workspaceId} AND day >= ${from}
				AND day <= ${to} ORDER BY day`,
		]);
	let [zone, sets, days, handoffDays] = await read();
	// No row: the migration's UTC.
	if (((zone?.results[0] as { zone: string } | undefined)?.zone ?? 'UTC') !== timeZone) {
		await rebuildRollups(db, workspaceId, timeZone);
		[zone, sets, days, handoffDays] = await read();
	}
	const dimensionSets = new Map<string, DimensionSet>();
	const handoffSets = new Map<string, HandoffSet>();
	for (const row of (sets?.results ?? []) as Array<{ id: number; dimensions: string }>) {
		const values = JSON.parse(row.dimensions) as Array<string | null>;
		if (values[0] === 'handoff') {
			const [, channel, click, utmSource, utmMedium, utmCampaign] = values;
			handoffSets.set(String(row.id), {
				channel: channel as string,
				click: click as string,
				utmSource: utmSource ?? null,
				utmMedium: utmMedium ?? null,
				utmCampaign: utmCampaign ?? null,
			});
			continue;
		}
		const [status, channel, assigneeId, groupId, click, utmSource, utmMedium, utmCampaign] = values;
		dimensionSets.set(String(row.id), {
			status: status as string,
			channel: channel as string,
			assigneeId: assigneeId ?? null,
			groupId: groupId ?? null,
			click: click as string,
			utmSource: utmSource ?? null,
			utmMedium: utmMedium ?? null,
			utmCampaign: utmCampaign ?? null,
		});
	}
	// A day's parts hold different sets (by id modulo 8): its figures are theirs side by side.
	const byDay = new Map<string, Record<string, SetFigures>>();
	for (const row of (days?.results ?? []) as Array<{ day: string; figures: string }>) {
		byDay.set(row.day, Object.assign(byDay.get(row.day) ?? {}, JSON.parse(row.figures)));
	}
	return {
		sets: dimensionSets,
		handoffSets,
		days: [...byDay].map(([day, figures]) => ({ day, figures })),
		handoffDays: ((handoffDays?.results ?? []) as Array<{ day: string; figures: string }>).map((row) => ({
			day: row.day,
			figures: JSON.parse(row.figures) as Record<string, [number, number]>,
		})),
	};
}
