import { createRoute } from '@hono/zod-openapi';
import { disconnectOperatorLater } from '../domain/live';
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
		const issued = await regenerateToken(c.var.db, workspaceId, operatorId, tokenId);
		disconnectOperatorLater(c.executionCtx, c.env, workspaceId, operatorId);
		return c.json(issued, 201);
	},
);
