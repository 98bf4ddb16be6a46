import { createRoute } from '@hono/zod-openapi';
import { callerProfileSchema, describeCaller } from '../domain/caller-profile';
import { bearerSecurity, errorResponses, jsonResponse } from '../lib/openapi';
import { createRouter } from '../lib/router';

export const me = createRouter().openapi(
	createRoute({
		method: 'get',
		path: '/',
		operationId: 'getMe',
		tags: ['Tokens'],
		summary: 'Who the calling token acts as, and how old it is',
		description:
			'Permission: any valid token. The operator behind the token (id, name, e-mail), its workspace, ' +
			'permissions and groups, and the token itself: when it was issued, its age in days and when rotation ' +
			'falls due. Rotate a token about every 90 days, and at once if it may have leaked, with ' +
			'`POST /v3/tokens/regenerate`. Once a token is older than 90 days, every answer to it carries ' +
			'`Deprecation: @<unix seconds>` (RFC 9745) and `Link: </v3/me>; rel="deprecation"`.',
		security: bearerSecurity,
		responses: { 200: jsonResponse('The caller and its token.', callerProfileSchema), ...errorResponses() },
	}),
	async (c) => c.json(await describeCaller(c.var.db, c.var.caller), 200),
);
