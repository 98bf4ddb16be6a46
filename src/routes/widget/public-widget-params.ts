/**
 * What the public widget sub-apps (public-widget.ts, public-conversations.ts, public-messages.ts) share: the
 * path and header parameters, and the visitor's session from its header.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { authenticateForConversation, authenticateSession } from '../../domain/widget/visitor-sessions';
import { idParam } from '../../http/openapi';

export const SESSION_HEADER = 'Parley-Session';

export const workspaceParam = z.object({
	workspaceId: idParam('workspaceId', 'ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The workspace whose widget this is.'),
});
export const conversationParams = workspaceParam.extend({
	id: idParam('id', 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'One of the visitor’s conversations.'),
});
export const sessionHeaders = z.object({
	'parley-session': z.string().max(1024).optional().openapi({ description: 'The token from POST /sessions.' }),
});
export const afterParam = z.coerce
	.number()
	.int()
	.min(0)
	.max(Number.MAX_SAFE_INTEGER)
	.default(0)
	.openapi({ description: 'The last `seq` the widget has: only later messages come.' });

/** The visitor whose `Parley-Session` header this request carries (Unauthorized without a valid one). */
export async function visitor(c: Context<AppEnv>, workspaceId: string) {
	return authenticateSession(c.var.db, c.env, workspaceId, c.req.header(SESSION_HEADER));
}

/** `visitor`, and NotFound unless the conversation is the visitor's: both in one read. */
export async function visitorIn(c: Context<AppEnv>, workspaceId: string, conversationId: string) {
	return authenticateForConversation(c.var.db, c.env, workspaceId, c.req.header(SESSION_HEADER), conversationId);
}
