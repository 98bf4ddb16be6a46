import { createRoute } from '@hono/zod-openapi';
import { closeReplacedTokenSockets } from '../../domain/conversations/live';
import { issuedTokenSchema, regenerateToken } from '../../domain/team/tokens';
import { anyToken, errorResponses, jsonResponse } from '../../http/openapi';
import { issuedTokenExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';

export const tokens = createRouter().openapi(
	createRoute({
		method: 'post',
		path: '/regenerate',
		operationId: 'regenerateToken',
		summary: 'Replace the calling token; the old one stops working at once',
		description: 'Rotate about every 90 days, and at once when a token may have leaked.',
		...anyToken,
		responses: {
			201: jsonResponse('The new token, shown this once.', issuedTokenSchema, issuedTokenExample),
			...errorResponses(),
		},
	}),
	async (c) => {
		const { workspaceId, operatorId } = c.var.caller;
		const issued = await regenerateToken(c.env, c.var.db, c.var.caller);
		await closeReplacedTokenSockets(c.env, workspaceId, operatorId);
		return c.json(issued, 201);
	},
);
