import { createRoute } from '@hono/zod-openapi';
import { issuedTokenSchema, regenerateToken } from '../domain/team';
import { bearerSecurity, errorResponses, jsonResponse } from '../lib/openapi';
import { createRouter } from '../lib/router';

export const tokens = createRouter().openapi(
	createRoute({
		method: 'post',
		path: '/regenerate',
		summary: 'Replace the calling token; the old one stops working at once',
		security: bearerSecurity,
		responses: { 201: jsonResponse('The new token, shown this once.', issuedTokenSchema), ...errorResponses() },
	}),
	async (c) => {
		const { workspaceId, operatorId, tokenId } = c.var.caller;
		return c.json(await regenerateToken(c.var.db, workspaceId, operatorId, tokenId), 201);
	},
);
