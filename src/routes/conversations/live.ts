import { createRoute } from '@hono/zod-openapi';
import { connectToFeed } from '../../domain/conversations/live';
import { errorResponses, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';

/** The operators' live inbox feed: one WebSocket per console for the whole workspace. */
export const live = createRouter().openapi(
	createRoute({
		method: 'get',
		path: '/',
		operationId: 'connectInboxFeed',
		summary: 'The workspace inbox feed (WebSocket): conversation.created, conversation.updated, message.created',
		description:
			'Upgrades to a WebSocket (subprotocol `parley.v1`; a browser offers the token as the `bearer.<token>` subprotocol). Each frame is `{ type: "event", event }`. Frames, close codes and limits: docs/live-protocol.md.',
		...requires('conversations:read'),
		responses: {
			101: { description: 'Switching to the WebSocket protocol (frames: docs/live-protocol.md).' },
			...errorResponses(403, 426, 429),
		},
	}),
	async (c) => connectToFeed(c.env, c.req.raw, c.var.caller),
);
