import { createRoute, z } from '@hono/zod-openapi';
import { listSessions, revokeSession, sessionFiltersSchema, sessionSchema } from '../../domain/team/console-auth';
import { createPasswordLink, passwordLinkSchema } from '../../domain/team/console-passwords';
import { errorResponses, idParam, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';

const sessionExample = {
	id: 'ses_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	operatorId: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 Safari/605.1.15',
	createdAt: '2026-11-20T09:12:00.000Z',
	lastSeenAt: '2026-11-24T10:40:00.000Z',
	expiresAt: '2026-12-20T09:12:00.000Z',
	revokedAt: null,
	current: false,
};
const sessionPage = pageSchema('ConsoleSessionPage', sessionSchema, 'This page, newest first.');

/** How members get into the console: their sessions (an admin ends one) and one-time password links. */
export const teamAccess = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/sessions',
			operationId: 'listConsoleSessions',
			summary: "The workspace's console sessions",
			description: 'Who is signed in where, newest first; filtered by operator or by whether still active.',
			...requires('admin'),
			request: { query: sessionFiltersSchema.extend(pageQuery(50)) },
			responses: {
				200: jsonResponse('A page of sessions.', sessionPage, { data: [sessionExample], nextCursor: null }),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor, ...filters } = c.req.valid('query');
			const after = readCursor(cursor, newestFirstCursor);
			return c.json(await listSessions(c.var.db, c.var.caller, filters, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/sessions/{id}',
			operationId: 'revokeConsoleSession',
			summary: 'End a console session',
			description:
				'The browser holding it is refused from its next request; its live sockets close at their next check.',
			...requires('admin'),
			request: { params: z.object({ id: idParam('id', sessionExample.id, 'The session id.') }) },
			responses: { 204: { description: 'The session has ended.' }, ...errorResponses(403, 404) },
		}),
		async (c) => {
			await revokeSession(c.env, c.var.db, c.var.caller.workspaceId, c.req.valid('param').id);
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/members/{id}/password-link',
			operationId: 'createPasswordLink',
			summary: 'A one-time link that sets a member’s password',
			description:
				'An invitation (valid 7 days) for a member with no password yet, else a reset link (24 hours). Hand it to the member: it opens the console, which sets the password and signs them in. A newer link voids the older one.',
			...requires('admin'),
			request: { params: z.object({ id: idParam('id', 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The operator id.') }) },
			responses: {
				201: jsonResponse('The link, shown this once.', passwordLinkSchema, {
					url: 'https://parley.example/console/set-password#token=ppl_…',
					purpose: 'invite',
					expiresAt: '2026-12-01T12:00:00.000Z',
				}),
				...errorResponses(403, 404),
			},
		}),
		async (c) => {
			const origin = new URL(c.req.url).origin;
			c.header('Cache-Control', 'no-store');
			return c.json(await createPasswordLink(c.var.db, c.var.caller, c.req.valid('param').id, origin), 201);
		},
	);
