import { createRoute } from '@hono/zod-openapi';
import { callerProfileSchema, describeCaller } from '../../domain/team/caller-profile';
import { presenceSchema, setOwnStatus, statusBodySchema } from '../../domain/team/presence';
import { anyToken, errorResponses, jsonBody, jsonResponse } from '../../http/openapi';
import { createRouter } from '../../http/router';

export const me = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'getMe',
			tags: ['Tokens'],
			summary: 'Who the calling token acts as, and how old it is',
			description:
				'Permission: any valid token. The operator behind the token (id, name, e-mail), its workspace, ' +
				'permissions, groups, capacity and presence status, and the token itself: when it was issued, its age in days and when rotation ' +
				'falls due. Rotate a token about every 90 days, and at once if it may have leaked, with ' +
				'`POST /v3/tokens/regenerate`. Once a token is older than 90 days, every answer to it carries ' +
				'`Deprecation: @<unix seconds>` (RFC 9745) and `Link: </v3/me>; rel="deprecation"`.',
			...anyToken,
			responses: {
				200: jsonResponse('The caller and its token.', callerProfileSchema, {
					operator: { id: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Integration bot', email: 'api@example.com' },
					workspaceId: 'ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					permissions: ['conversations:read', 'messages:send'],
					groups: [{ id: 'grp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Support' }],
					capacity: null,
					status: 'online',
					token: {
						id: 'tok_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
						hint: 'prly_…x9Qe',
						createdAt: '2026-09-01T12:00:00.000Z',
						ageDays: 83,
						rotateAfter: '2026-11-30T12:00:00.000Z',
						rotationDue: false,
					},
					via: 'token',
				}),
				...errorResponses(),
			},
		}),
		async (c) => c.json(await describeCaller(c.env, c.var.db, c.var.caller), 200),
	)
	.openapi(
		createRoute({
			method: 'put',
			path: '/status',
			operationId: 'setMyStatus',
			tags: ['Team'],
			summary: 'Set your presence: online, away, busy or offline',
			description:
				'Permission: any valid token. The team sees it at once (`member.status_changed` on the inbox feed); only `online` operators are available for assignment. An operator whose last inbox feed socket drops turns offline after a grace period (`PRESENCE_GRACE_SECONDS`, 30 by default) and back to the status it chose when a feed reconnects.',
			...anyToken,
			request: { body: jsonBody(statusBodySchema, { status: 'away' }) },
			responses: {
				200: jsonResponse('Your presence as it now is.', presenceSchema, {
					operatorId: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					status: 'away',
					changedAt: '2026-11-23T12:00:00.000Z',
				}),
				...errorResponses(400, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			return c.json(await setOwnStatus(c.env, workspaceId, operatorId, c.req.valid('json').status), 200);
		},
	);
