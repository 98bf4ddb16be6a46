import { createRoute } from '@hono/zod-openapi';
import { requirePermission } from '../auth/middleware';
import { connectToFeed } from '../domain/live';
import { bearerSecurity, errorResponses } from '../lib/openapi';
import { createRouter } from '../lib/router';

/** The operators' live inbox feed: one WebSocket per console for the whole workspace. */
export const live = createRouter().openapi(
	createRoute({
		method: 'get',
		path: '/',
		summary: 'The workspace inbox feed (WebSocket): conversation.created, conversation.updated, message.created',
		security: bearerSecurity,
		middleware: [requirePermission('conversations:read')] as const,
		responses: {
			101: { description: 'Switching to the WebSocket protocol; each frame is `{ type: "event", event }`.' },
			...errorResponses(403, 426, 429),
		},
	}),
	async (c) => connectToFeed(c.env, c.req.raw, c.var.caller),
);
