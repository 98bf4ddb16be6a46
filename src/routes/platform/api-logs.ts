import { createRoute } from '@hono/zod-openapi';
import { apiLogFiltersSchema, apiLogSchema, listApiLogs } from '../../domain/platform/api-logs';
import { errorResponses, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';

const logPage = pageSchema('ApiLogPage', apiLogSchema, 'This page, newest first.');

export const apiLogsRoutes = createRouter().openapi(
	createRoute({
		method: 'get',
		path: '/',
		operationId: 'listApiLogs',
		summary: 'The API log: every /v3 request of the last 30 days',
		description:
			'Time, operator, credential (a token’s hint, or `console`), method, path, status, duration and rate-limit state of each request: never a body, a query string or a secret. Entries appear within seconds (they are written off the request’s path).',
		...requires('admin'),
		request: { query: apiLogFiltersSchema.extend(pageQuery(50)) },
		responses: {
			200: jsonResponse('A page of entries.', logPage, {
				data: [
					{
						id: 'log_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
						at: '2026-11-24T10:40:00.000Z',
						operatorId: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
						credential: 'token',
						hint: 'prly_…x9Qe',
						method: 'POST',
						path: '/v3/messages',
						status: 201,
						durationMs: 42,
						rateRemaining: 118,
						rateLimited: false,
					},
				],
				nextCursor: null,
			}),
			...errorResponses(403, 422),
		},
	}),
	async (c) => {
		const { limit, cursor, ...filters } = c.req.valid('query');
		const after = readCursor(cursor, newestFirstCursor);
		return c.json(await listApiLogs(c.var.db, c.var.caller.workspaceId, filters, after, limit), 200);
	},
);
