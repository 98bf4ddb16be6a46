import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { campaignReport, campaignReportSchema } from '../../domain/campaigns/results';
import { campaignReportRows, conversationReportRows } from '../../domain/reports/csv';
import {
	type ConversationReport,
	conversationReport,
	conversationReportQuerySchema,
	conversationReportSchema,
} from '../../domain/reports/reports';
import { workspaceTimeZone } from '../../domain/widget/settings';
import { errorResponses, idParam, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { type CsvValue, toCsv, wantsCsv } from '../../lib/csv';

const bucket = (key: string | null, count: number) => ({ key, count });
const reportExample: ConversationReport = {
	from: '2026-11-01',
	to: '2026-11-03',
	timeZone: 'America/Sao_Paulo',
	filters: { utmSource: 'google' },
	conversations: 5,
	byStatus: [bucket('open', 2), bucket('pending', 0), bucket('closed', 3)],
	byChannel: [bucket('widget', 5)],
	byAssignee: [
		{ key: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Ana', count: 4 },
		{ key: null, name: null, count: 1 },
	],
	byGroup: [{ key: null, name: null, count: 5 }],
	byOrigin: {
		click: [bucket('search', 4), bucket('none', 1)],
		utmSource: [bucket('google', 5)],
		utmMedium: [bucket('cpc', 4), bucket(null, 1)],
		utmCampaign: [bucket('black-friday', 5)],
	},
	firstResponse: { count: 4, medianSeconds: 42, p90Seconds: 300, averageSeconds: 95.5 },
	resolution: { count: 3, medianSeconds: 1800, p90Seconds: 7200, averageSeconds: 3000 },
	handoffs: {
		total: 2,
		arrived: 1,
		byChannel: [bucket('whatsapp', 2)],
		click: [bucket('search', 2)],
		utmSource: [bucket('google', 2)],
		utmMedium: [bucket('cpc', 2)],
		utmCampaign: [bucket('black-friday', 2)],
	},
	series: [
		{ date: '2026-11-01', conversations: 2, closed: 1, handoffs: 0 },
		{ date: '2026-11-02', conversations: 3, closed: 2, handoffs: 2 },
		{ date: '2026-11-03', conversations: 0, closed: 0, handoffs: 0 },
	],
};

/** A report's 200: JSON, or CSV when the request's Accept asks for `text/csv`. */
function reportResponse<T extends z.ZodType>(description: string, schema: T, example: z.input<T>, csvExample: string) {
	return {
		description,
		content: {
			'application/json': { schema, example },
			'text/csv': { schema: z.string(), example: csvExample },
		},
	} as const;
}

/** Answers with CSV (named `filename`) when asked for, else JSON. */
function respond<T>(c: Context<AppEnv>, json: T, rows: () => CsvValue[][], filename: string) {
	if (!wantsCsv(c.req.header('Accept'))) return c.json(json, 200);
	return c.body(toCsv(rows()), 200, {
		'Content-Type': 'text/csv; charset=utf-8',
		'Content-Disposition': `attachment; filename="${filename}"`,
	});
}

const campaignExample = {
	campaignId: 'cmp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'Black Friday',
	status: 'sent',
	targeted: 120,
	reach: 117,
	failed: 1,
	skipped: 2,
	replies: 23,
	replyRate: 0.1966,
	conversations: 23,
	dealsWon: 4,
	wonValue: [{ currency: 'BRL', valueCents: 1_980_000 }],
};
const campaignParams = z.object({ id: idParam('id', campaignExample.campaignId, 'The campaign id.') });

export const reportsRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/conversations',
			operationId: 'conversationReport',
			summary: 'Conversations over a range of days, by status, channel, assignee, group and origin',
			description:
				'The conversations created from `from` to `to` (days in the workspace time zone, at most 366), with first-response and resolution times (median, 90th percentile, average) and a series by day; every figure narrowed by the filters, origin among them. Messaging-app handoffs appear by origin beside them. `Accept: text/csv` returns the same figures as CSV (`section,key,name,value`).',
			...requires('reports:view'),
			request: { query: conversationReportQuerySchema },
			responses: {
				200: reportResponse(
					'The report.',
					conversationReportSchema,
					reportExample,
					'section,key,name,value\r\nrange,from,,2026-11-01\r\ntotal,conversations,,5\r\nstatus,closed,,3\r\n',
				),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const query = c.req.valid('query');
			const timeZone = await workspaceTimeZone(c.var.db, workspaceId);
			const report = await conversationReport(c.var.db, workspaceId, query, timeZone);
			return respond(c, report, () => conversationReportRows(report), `conversations-${report.from}-${report.to}.csv`);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/campaigns/{id}',
			operationId: 'campaignReport',
			summary: "A campaign's results: reach, replies, conversations and deals won",
			description: '`Accept: text/csv` returns the same figures as CSV (`metric,value`).',
			...requires('reports:view'),
			request: { params: campaignParams },
			responses: {
				200: reportResponse(
					'The campaign report.',
					campaignReportSchema,
					campaignExample,
					'metric,value\r\nreach,117\r\nreplies,23\r\n',
				),
				...errorResponses(403, 404),
			},
		}),
		async (c) => {
			const report = await campaignReport(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id);
			return respond(c, report, () => campaignReportRows(report), `campaign-${report.campaignId}.csv`);
		},
	);
