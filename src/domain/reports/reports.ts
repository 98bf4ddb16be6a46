/**
 * The conversations report: the conversations created over a range of days in the workspace time zone, by
 * status, channel, assignee, group and origin, with first-response and resolution times and a series by day,
 * all narrowed by the same filters (origin among them); and the messaging-app handoffs by origin beside them.
 *
 * The conversations' figures come from their rollups (./rollups.ts): up to 8 rows per day of the range, whatever
 * the number of conversations, holding every dimension set's count and duration histograms, which the filters
 * select and this sums. Counts and sums are exact; percentiles are within a histogram bucket
 * (./histogram.ts). The handoffs come from their own daily rollups beside them, under the origin filters.
 */
import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { groups, operators } from '../../db/schema';
import { localDateTime } from '../../engines/templates';
import { Invalid } from '../../lib/errors';
import { zonedInstant } from '../../model/business-hours';
import { AD_CLICKS, CONVERSATION_STATUSES, channelName } from '../../model/conversations';
import { addHistogram, percentileOf } from './histogram';
import { type DimensionSet, type Rollups, readRollups } from './rollups';

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
		description:
			'Percentiles by the nearest-rank method (rank ⌈p·n⌉), read from duration histograms: within one bucket of the exact value (buckets 1 s wide below 1 s, then at most 4.5% wide); null with nothing measured.',
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

/** Counts summed by key, largest first (ties by key). */
function buckets<T>(rows: readonly T[], key: (row: T) => string | null, n: (row: T) => number) {
	const sums = new Map<string | null, number>();
	for (const row of rows) sums.set(key(row), (sums.get(key(row)) ?? 0) + n(row));
	return [...sums]
		.map(([k, total]) => ({ key: k, count: total }))
		.sort((a, b) => b.count - a.count || String(a.key).localeCompare(String(b.key)));
}

/** The rollups' sets the filters keep (origin, channel, group, assignee), each with its count over the range. */
function summed(rollups: Rollups, query: ConversationReportQuery) {
	const kept = (set: DimensionSet) =>
		(query.channel === undefined || set.channel === query.channel) &&
		(query.groupId === undefined || set.groupId === query.groupId) &&
		(query.assigneeId === undefined || set.assigneeId === query.assigneeId) &&
		(query.click === undefined || set.click === query.click) &&
		(query.utmSource === undefined || set.utmSource === query.utmSource) &&
		(query.utmMedium === undefined || set.utmMedium === query.utmMedium) &&
		(query.utmCampaign === undefined || set.utmCampaign === query.utmCampaign);
	const perSet = new Map<DimensionSet, number>();
	const created = new Map<string, number>();
	const closed = new Map<string, number>();
	const firstResponse = { n: 0, sum: 0, histogram: new Map<number, [number, number]>() };
	const resolution = { n: 0, sum: 0, histogram: new Map<number, [number, number]>() };
	for (const { day, figures } of rollups.days) {
		for (const [
			id,
			[n, responses, responseMs, resolutions, resolutionMs, responseHistogram, resolutionHistogram],
		] of Object.entries(figures)) {
			const set = rollups.sets.get(id);
			if (!set || !kept(set)) continue;
			perSet.set(set, (perSet.get(set) ?? 0) + n);
			created.set(day, (created.get(day) ?? 0) + n);
			if (set.status === 'closed') closed.set(day, (closed.get(day) ?? 0) + n);
			firstResponse.n += responses;
			firstResponse.sum += responseMs;
			addHistogram(firstResponse.histogram, responseHistogram);
			resolution.n += resolutions;
			resolution.sum += resolutionMs;
			addHistogram(resolution.histogram, resolutionHistogram);
		}
	}
	return {
		perSet,
		created,
		closed,
		firstResponse: durationFigures(firstResponse),
		resolution: durationFigures(resolution),
	};
}

/** Median, 90th percentile (each within its histogram bucket) and average (exact), in seconds to the tenth. */
function durationFigures(measured: { n: number; sum: number; histogram: Map<number, [number, number]> }) {
	const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 100) / 10);
	return {
		count: measured.n,
		medianSeconds: seconds(percentileOf(measured.histogram, 50)),
		p90Seconds: seconds(percentileOf(measured.histogram, 90)),
		averageSeconds: measured.n === 0 ? null : seconds(measured.sum / measured.n),
	};
}

interface HandoffRow {
	day: string;
	channel: string;
	click: string;
	source: string | null;
	medium: string | null;
	campaign: string | null;
	n: number;
	/** Of them, those with the conversation they arrived as. */
	arrived: number;
}

/** The handoffs of the range by day and origin, under the report's origin filters (a handoff has no other). */
function handoffRows(rollups: Rollups, query: ConversationReportQuery): HandoffRow[] {
	const rows: HandoffRow[] = [];
	for (const { day, figures } of rollups.handoffDays) {
		for (const [id, [n, arrived]] of Object.entries(figures)) {
			const set = rollups.handoffSets.get(id);
			if (
				!set ||
				(query.click !== undefined && set.click !== query.click) ||
				(query.utmSource !== undefined && set.utmSource !== query.utmSource) ||
				(query.utmMedium !== undefined && set.utmMedium !== query.utmMedium) ||
				(query.utmCampaign !== undefined && set.utmCampaign !== query.utmCampaign)
			)
				continue;
			const { utmSource: source, utmMedium: medium, utmCampaign: campaign, channel, click } = set;
			rows.push({ day, channel, click, source, medium, campaign, n, arrived });
		}
	}
	return rows;
}

/** The conversations report (see the module comment): one round trip to the rollups, one to the names. */
export async function conversationReport(
	db: Database,
	workspaceId: string,
	query: ConversationReportQuery,
	timeZone: string,
	now = Date.now(),
): Promise<ConversationReport> {
	const range = reportRange(query, timeZone, now);
	const [rollups, names] = await Promise.all([
		readRollups(db, workspaceId, timeZone, range.from, range.to),
		namesOf(db, workspaceId),
	]);
	const handoffs = handoffRows(rollups, query);
	const { perSet, created, closed, firstResponse, resolution } = summed(rollups, query);
	const dimensions = [...perSet].map(([set, n]) => ({ ...set, n }));
	const named = (list: ReturnType<typeof buckets>, of: Map<string, string>) =>
		list.map((b) => ({ ...b, name: b.key === null ? null : (of.get(b.key) ?? null) }));
	const perDay = (rows: readonly { day: string; n: number }[]) => {
		const sums = new Map<string, number>();
		for (const row of rows) sums.set(row.day, (sums.get(row.day) ?? 0) + row.n);
		return sums;
	};
	const handedOff = perDay(handoffs);
	const { from: _f, to: _t, ...filters } = query;
	return {
		from: range.from,
		to: range.to,
		timeZone,
		filters,
		conversations: dimensions.reduce((sum, row) => sum + row.n, 0),
		byStatus: CONVERSATION_STATUSES.map((status) => ({
			key: status,
			count: dimensions.filter((row) => row.status === status).reduce((sum, row) => sum + row.n, 0),
		})),
		byChannel: buckets(
			dimensions,
			(r) => r.channel,
			(r) => r.n,
		),
		byAssignee: named(
			buckets(
				dimensions,
				(r) => r.assigneeId,
				(r) => r.n,
			),
			names.operators,
		),
		byGroup: named(
			buckets(
				dimensions,
				(r) => r.groupId,
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
				(r) => r.utmSource,
				(r) => r.n,
			),
			utmMedium: buckets(
				dimensions,
				(r) => r.utmMedium,
				(r) => r.n,
			),
			utmCampaign: buckets(
				dimensions,
				(r) => r.utmCampaign,
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
		series: range.days.map((d) => ({
			date: d.date,
			conversations: created.get(d.date) ?? 0,
			closed: closed.get(d.date) ?? 0,
			handoffs: handedOff.get(d.date) ?? 0,
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
