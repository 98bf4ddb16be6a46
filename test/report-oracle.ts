/**
 * The test oracle: the conversations report as it was answered before its rollups (every conversation in range
 * grouped and ranked in SQL), kept only to check the rollups' answers against on the same data.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../src/db/client';
import { conversations, groups, messagingHandoffs, operators } from '../src/db/schema';
import { type ConversationReport, type ConversationReportQuery, reportRange } from '../src/domain/reports/reports';
import { CONVERSATION_STATUSES } from '../src/model/conversations';

const DAY_MS = 86_400_000;
type Range = ReturnType<typeof reportRange>;

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

/** The report as it was computed before the rollups: six reads, four of them over every conversation in range. */
export async function conversationReportByScan(
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
