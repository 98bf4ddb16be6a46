/**
 * The conversations report: the conversations created over a range of days in the workspace time zone, by
 * status, channel, assignee, group and origin, with first-response and resolution times and a series by day,
 * all narrowed by the same filters (origin among them); and the messaging-app handoffs by origin beside them.
 *
 * Read straight from D1: every query walks the `conversations_report` index (workspace, creation time, then
 * every column grouped or filtered by), never the table, so a year of 100,000 conversations is four walks of
 * one index range, each grouped as it goes. No rollup to keep in step, and a change of time zone needs nothing rebuilt.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { conversations, groups, messagingHandoffs, operators } from '../../db/schema';
import { localDateTime } from '../../engines/templates';
import { Invalid } from '../../lib/errors';
import { zonedInstant } from '../../model/business-hours';
import { AD_CLICKS, CONVERSATION_STATUSES, channelName } from '../../model/conversations';

/** The longest range a report covers. */
export const MAX_REPORT_DAYS = 366;
const DAY_MS = 86_400_000;

const day = z.iso.date();
const origin = {
	utmSource: z.string().min(1).max(255).optional().openapi({ description: 'Only conversations from this utm_source.' }),
	utmMedium: z.string().min(1).max(255).optional().openapi({ description: 'Only conversations from this utm_medium.' }),
	utmCampaign: z
		.string()
		.min(1)
		.max(255)
		.optional()
		.openapi({ description: 'Only conversations from this utm_campaign.' }),
	click: z.enum(AD_CLICKS).optional().openapi({
		description:
			'Only conversations that came from a search-ad click (`search`), a social-ad click (`social`) or neither (`none`).',
	}),
};

export const conversationReportQuerySchema = z.strictObject({
	from: day
		.optional()
		.openapi({ description: 'First day (YYYY-MM-DD, workspace time zone); default: 29 days before `to`.' }),
	to: day.optional().openapi({ description: 'Last day, included; default: today in the workspace time zone.' }),
	channel: channelName.optional().openapi({ description: 'Only this channel.' }),
	groupId: z.string().min(1).max(64).optional().openapi({ description: 'Only conversations routed to this group.' }),
	assigneeId: z
		.string()
		.min(1)
		.max(64)
		.optional()
		.openapi({ description: 'Only conversations assigned to this operator.' }),
	...origin,
});
export type ConversationReportQuery = z.infer<typeof conversationReportQuerySchema>;

const count = z.number().int();
const bucket = z
	.object({
		key: z.string().nullable().openapi({ description: 'The value grouped by; null for none.' }),
		count: count.openapi({ description: 'How many.' }),
	})
	.openapi('ReportBucket');
const namedBucket = bucket
	.extend({ name: z.string().nullable().openapi({ description: 'Its name, when it has one.' }) })
	.openapi('ReportNamedBucket');
const durations = z
	.object({
		count: count.openapi({ description: 'Conversations measured.' }),
		medianSeconds: z.number().nullable().openapi({ description: 'The median, in seconds.' }),
		p90Seconds: z.number().nullable().openapi({ description: 'The 90th percentile, in seconds.' }),
		averageSeconds: z.number().nullable().openapi({ description: 'The average, in seconds.' }),
	})
	.openapi('ReportDurations', {
		description: 'Percentiles by the nearest-rank method (the value at rank ⌈p·n⌉); null with nothing measured.',
	});
const originBuckets = z.object({
	click: z.array(bucket).openapi({ description: 'By ad click: `search`, `social` or `none`.' }),
	utmSource: z.array(bucket).openapi({ description: 'By utm_source.' }),
	utmMedium: z.array(bucket).openapi({ description: 'By utm_medium.' }),
	utmCampaign: z.array(bucket).openapi({ description: 'By utm_campaign.' }),
});

export const conversationReportSchema = z
	.object({
		from: z.string().openapi({ description: 'The first day (YYYY-MM-DD).' }),
		to: z.string().openapi({ description: 'The last day, included.' }),
		timeZone: z.string().openapi({ description: 'The workspace time zone the days are in.' }),
		filters: conversationReportQuerySchema
			.omit({ from: true, to: true })
			.openapi({ description: 'The filters applied.' }),
		conversations: count.openapi({ description: 'Conversations created in the range (filters applied).' }),
		byStatus: z.array(bucket).openapi({ description: 'Their status now.' }),
		byChannel: z.array(bucket).openapi({ description: 'By channel.' }),
		byAssignee: z.array(namedBucket).openapi({ description: 'Key null: unassigned.' }),
		byGroup: z.array(namedBucket).openapi({ description: 'Key null: no group.' }),
		byOrigin: originBuckets.openapi({ description: 'Key null: no utm value captured.' }),
		firstResponse: durations.openapi({ description: "From creation to an operator's first message." }),
		resolution: durations.openapi({ description: 'From creation to closing, for those closed now.' }),
		handoffs: originBuckets
			.extend({
				total: count.openapi({ description: 'Handoffs in the range.' }),
				arrived: count.openapi({
					description:
						'Of them, those that arrived: the customer’s first message in the app named the hand-off, so it became a conversation (on a connected WhatsApp number) with the click’s origin.',
				}),
				byChannel: z.array(bucket).openapi({ description: 'By messaging app.' }),
			})
			.openapi({
				description:
					'Visitors who left the widget for a messaging app in the range, by the origin of their click. The origin filters apply; channel, group and assignee do not (a handoff has none).',
			}),
		series: z
			.array(
				z.object({
					date: z.string().openapi({ description: 'The day (YYYY-MM-DD).' }),
					conversations: count.openapi({ description: 'Conversations created that day.' }),
					closed: count.openapi({ description: 'Of those, the ones closed now.' }),
					handoffs: count.openapi({ description: 'Messaging-app handoffs that day.' }),
				}),
			)
			.openapi({ description: 'Each day of the range: conversations created, those of them closed now, handoffs.' }),
	})
	.openapi('ConversationReport');
export type ConversationReport = z.infer<typeof conversationReportSchema>;

interface Range {
	from: string;
	to: string;
	/** Each day's local date and its start and end instants (ends are the next day's start). */
	days: Array<{ date: string; start: number; end: number }>;
}

/** The days of the range, each bounded by its local midnights (23 or 25 hours on a daylight-saving day). */
export function reportRange(query: Pick<ConversationReportQuery, 'from' | 'to'>, timeZone: string, now: number): Range {
	const to = query.to ?? localDateTime(now, timeZone).date;
	const from = query.from ?? new Date(Date.parse(to) - 29 * DAY_MS).toISOString().slice(0, 10);
	const span = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
	if (span < 1) throw new Invalid('must be on or before `to`', { field: ['from'] });
	if (span > MAX_REPORT_DAYS)
		throw new Invalid(`the range is longer than ${MAX_REPORT_DAYS} days`, { field: ['from'] });
	const dates = Array.from({ length: span + 1 }, (_, i) =>
		new Date(Date.parse(from) + i * DAY_MS).toISOString().slice(0, 10),
	);
	const starts = dates.map((date) => zonedInstant(timeZone, date, 0));
	return {
		from,
		to,
		days: dates.slice(0, -1).map((date, i) => ({ date, start: starts[i] as number, end: starts[i + 1] as number })),
	};
}

/** The filters as a condition on `conversations`. */
function conversationFilters(workspaceId: string, query: ConversationReportQuery, range: Range): SQL | undefined {
	const c = conversations;
	const first = range.days[0] as Range['days'][number];
	const last = range.days.at(-1) as Range['days'][number];
	return and(
		eq(c.workspaceId, workspaceId),
		sql`${c.createdAt} >= CAST(${first.start} AS INTEGER) AND ${c.createdAt} < CAST(${last.end} AS INTEGER)`,
		query.channel === undefined ? undefined : eq(c.channel, query.channel),
		query.groupId === undefined ? undefined : eq(c.groupId, query.groupId),
		query.assigneeId === undefined ? undefined : eq(c.assigneeId, query.assigneeId),
		query.click === undefined ? undefined : eq(c.adClick, query.click),
		query.utmSource === undefined ? undefined : eq(c.utmSource, query.utmSource),
		query.utmMedium === undefined ? undefined : eq(c.utmMedium, query.utmMedium),
		query.utmCampaign === undefined ? undefined : eq(c.utmCampaign, query.utmCampaign),
	);
}

/**
 * The index in `range.days` of the day `column` (an instant) falls on, as SQL: runs of 24-hour days share one
 * division, and a day that a daylight-saving shift makes 23 or 25 hours long is a case of its own, so a year
 * is a CASE of a few branches, and the grouping is one walk of the index with no join. The bounds are
 * instants we computed, written inline as integers.
 */
function dayOf(range: Range, column: SQL): SQL {
	type Run = { start: number; first: number; single: boolean };
	const runs: Run[] = [];
	range.days.forEach((d, i) => {
		const single = d.end - d.start !== DAY_MS;
		const previous = runs.at(-1);
		if (!previous || single || previous.single) runs.push({ start: d.start, first: i, single });
	});
	const integer = (n: number) => sql.raw(String(Math.trunc(n)));
	const branch = (run: Run) =>
		run.single
			? integer(run.first)
			: sql`${integer(run.first)} + (${column} - ${integer(run.start)}) / ${integer(DAY_MS)}`;
	const last = runs.at(-1) as Run;
	if (runs.length === 1) return branch(last);
	const cases = runs
		.slice(0, -1)
		.map((run, i) => sql`WHEN ${column} < ${integer((runs[i + 1] as Run).start)} THEN ${branch(run)}`);
	return sql`CASE ${sql.join(cases, sql.raw(' '))} ELSE ${branch(last)} END`;
}

/** Median, 90th percentile and average (seconds) of `duration` over the conversations `where` selects. */
async function durationsOf(db: Database, duration: SQL, where: SQL | undefined) {
	const [row] = await db.all<{ n: number; median: number | null; p90: number | null; average: number | null }>(sql`
		WITH measured AS (SELECT ${duration} AS d FROM ${conversations} WHERE ${where}),
		ranked AS (SELECT d, ROW_NUMBER() OVER (ORDER BY d) AS rn, COUNT(*) OVER () AS n FROM measured)
		SELECT COUNT(*) AS n, MAX(CASE WHEN rn = (50 * n + 99) / 100 THEN d END) AS median,
		MAX(CASE WHEN rn = (90 * n + 99) / 100 THEN d END) AS p90, AVG(d) AS average FROM ranked`);
	const seconds = (ms: number | null | undefined) => (ms == null ? null : Math.round(ms / 100) / 10);
	return {
		count: row?.n ?? 0,
		medianSeconds: seconds(row?.median),
		p90Seconds: seconds(row?.p90),
		averageSeconds: seconds(row?.average),
	};
}

/** Counts summed by key, largest first (ties by key). */
function buckets<T>(rows: readonly T[], key: (row: T) => string | null, n: (row: T) => number) {
	const sums = new Map<string | null, number>();
	for (const row of rows) sums.set(key(row), (sums.get(key(row)) ?? 0) + n(row));
	return [...sums]
		.map(([k, total]) => ({ key: k, count: total }))
		.sort((a, b) => b.count - a.count || String(a.key).localeCompare(String(b.key)));
}

interface DimensionRow {
	channel: string;
	assignee: string | null;
	grp: string | null;
	click: string;
	source: string | null;
	medium: string | null;
	campaign: string | null;
	n: number;
}

interface HandoffRow {
	day: number;
	channel: string;
	click: string;
	source: string | null;
	medium: string | null;
	campaign: string | null;
	n: number;
	/** Of them, those with the conversation they arrived as. */
	arrived: number;
}

/** The handoffs of the range by day and origin, under the report's origin filters. */
function handoffRows(db: Database, workspaceId: string, query: ConversationReportQuery, range: Range) {
	const h = messagingHandoffs;
	const value = (key: string) => sql`NULLIF(json_extract(${h.origin}, ${`$.${key}`}), '')`;
	const click = sql`CASE WHEN ${value('gclid')} IS NOT NULL THEN 'search' WHEN ${value('fbclid')} IS NOT NULL THEN 'social' ELSE 'none' END`;
	const first = range.days[0] as Range['days'][number];
	const last = range.days.at(-1) as Range['days'][number];
	return db.all<HandoffRow>(sql`SELECT ${dayOf(range, sql`${h.createdAt}`)} AS day, ${h.channel} AS channel, ${click} AS click,
		${value('utmSource')} AS source, ${value('utmMedium')} AS medium, ${value('utmCampaign')} AS campaign, count(*) AS n,
		count(${h.conversationId}) AS arrived
		FROM ${h} WHERE ${and(
			eq(h.workspaceId, workspaceId),
			sql`${h.createdAt} >= CAST(${first.start} AS INTEGER) AND ${h.createdAt} < CAST(${last.end} AS INTEGER)`,
			query.click === undefined ? undefined : sql`${click} = ${query.click}`,
			query.utmSource === undefined ? undefined : sql`${value('utmSource')} = ${query.utmSource}`,
			query.utmMedium === undefined ? undefined : sql`${value('utmMedium')} = ${query.utmMedium}`,
			query.utmCampaign === undefined ? undefined : sql`${value('utmCampaign')} = ${query.utmCampaign}`,
		)}
		GROUP BY 1, 2, 3, 4, 5, 6`);
}

/** The conversations report (see the module comment); six reads, four of them over the report index. */
export async function conversationReport(
	db: Database,
	workspaceId: string,
	query: ConversationReportQuery,
	timeZone: string,
	now = Date.now(),
): Promise<ConversationReport> {
	const range = reportRange(query, timeZone, now);
	const where = conversationFilters(workspaceId, query, range);
	const c = conversations;
	const [daily, dimensions, firstResponse, resolution, handoffs, names] = await Promise.all([
		db.all<{ day: number; status: string; n: number }>(sql`SELECT ${dayOf(range, sql`${c.createdAt}`)} AS day,
			${c.status} AS status, count(*) AS n FROM ${c} WHERE ${where} GROUP BY 1, 2`),
		db.all<DimensionRow>(sql`SELECT ${c.channel} AS channel, ${c.assigneeId} AS assignee, ${c.groupId} AS grp,
			${c.adClick} AS click, ${c.utmSource} AS source, ${c.utmMedium} AS medium, ${c.utmCampaign} AS campaign, count(*) AS n
			FROM ${c} WHERE ${where} GROUP BY 1, 2, 3, 4, 5, 6, 7`),
		durationsOf(db, sql`${c.firstResponseAt} - ${c.createdAt}`, and(where, sql`${c.firstResponseAt} IS NOT NULL`)),
		durationsOf(db, sql`${c.statusChangedAt} - ${c.createdAt}`, and(where, eq(c.status, 'closed'))),
		handoffRows(db, workspaceId, query, range),
		namesOf(db, workspaceId),
	]);
	const named = (list: ReturnType<typeof buckets>, of: Map<string, string>) =>
		list.map((b) => ({ ...b, name: b.key === null ? null : (of.get(b.key) ?? null) }));
	const perDay = (rows: readonly { day: number; n: number }[]) => {
		const sums = new Map<number, number>();
		for (const row of rows) sums.set(row.day, (sums.get(row.day) ?? 0) + row.n);
		return sums;
	};
	const created = perDay(daily);
	const closed = perDay(daily.filter((row) => row.status === 'closed'));
	const handedOff = perDay(handoffs);
	const { from: _f, to: _t, ...filters } = query;
	return {
		from: range.from,
		to: range.to,
		timeZone,
		filters,
		conversations: daily.reduce((sum, row) => sum + row.n, 0),
		byStatus: CONVERSATION_STATUSES.map((status) => ({
			key: status,
			count: daily.filter((row) => row.status === status).reduce((sum, row) => sum + row.n, 0),
		})),
		byChannel: buckets(
			dimensions,
			(r) => r.channel,
			(r) => r.n,
		),
		byAssignee: named(
			buckets(
				dimensions,
				(r) => r.assignee,
				(r) => r.n,
			),
			names.operators,
		),
		byGroup: named(
			buckets(
				dimensions,
				(r) => r.grp,
				(r) => r.n,
			),
			names.groups,
		),
		byOrigin: {
			click: buckets(
				dimensions,
				(r) => r.click,
				(r) => r.n,
			),
			utmSource: buckets(
				dimensions,
				(r) => r.source,
				(r) => r.n,
			),
			utmMedium: buckets(
				dimensions,
				(r) => r.medium,
				(r) => r.n,
			),
			utmCampaign: buckets(
				dimensions,
				(r) => r.campaign,
				(r) => r.n,
			),
		},
		firstResponse,
		resolution,
		handoffs: {
			total: handoffs.reduce((sum, row) => sum + row.n, 0),
			arrived: handoffs.reduce((sum, row) => sum + row.arrived, 0),
			byChannel: buckets(
				handoffs,
				(r) => r.channel,
				(r) => r.n,
			),
			click: buckets(
				handoffs,
				(r) => r.click,
				(r) => r.n,
			),
			utmSource: buckets(
				handoffs,
				(r) => r.source,
				(r) => r.n,
			),
			utmMedium: buckets(
				handoffs,
				(r) => r.medium,
				(r) => r.n,
			),
			utmCampaign: buckets(
				handoffs,
				(r) => r.campaign,
				(r) => r.n,
			),
		},
		series: range.days.map((d, i) => ({
			date: d.date,
			conversations: created.get(i) ?? 0,
			closed: closed.get(i) ?? 0,
			handoffs: handedOff.get(i) ?? 0,
		})),
	};
}

/** The workspace's operators' and groups' names, for the buckets (in SQL, so D1 reports the rows it read). */
async function namesOf(db: Database, workspaceId: string) {
	const rows = await db.all<{ kind: 'operator' | 'group'; id: string; name: string }>(sql`
		SELECT 'operator' AS kind, ${operators.id} AS id, ${operators.name} AS name FROM ${operators} WHERE ${operators.workspaceId} = ${workspaceId}
		UNION ALL SELECT 'group', ${groups.id}, ${groups.name} FROM ${groups} WHERE ${groups.workspaceId} = ${workspaceId}`);
	const of = (kind: 'operator' | 'group') => new Map(rows.filter((r) => r.kind === kind).map((r) => [r.id, r.name]));
	return { operators: of('operator'), groups: of('group') };
}
