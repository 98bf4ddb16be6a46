/**
 * The Durable Objects as the domain calls them: the one place in src/domain that names their bindings and
 * classes. Everything else asks here for a stub, so the domain's reach into the objects is this file's list
 * (checked by `npm run lint`).
 */
import type { RateLimiter } from '../../durable-objects/rate-limiter';

/** The conversation's room: its messages, sockets, bot runs and timers. */
export function conversationRoom(env: Env, conversationId: string) {
	return env.CONVERSATION_ROOM.getByName(conversationId);
}

/** The workspace's hub: presence, the live feed, auto-assignment. */
export function workspaceHub(env: Env, workspaceId: string) {
	return env.WORKSPACE_HUB.getByName(workspaceId);
}

export type RateLimiterStub = DurableObjectStub<RateLimiter>;

/** A named fixed-window counter (sign-in throttles). */
export function rateLimiter(env: Env, key: string): RateLimiterStub {
	return env.RATE_LIMITER.getByName(key);
}

/** The sending pace of a connected WhatsApp number (src/engines/whatsapp/pace.ts): one object per number. */
export function whatsappPacer(env: Env, numberId: string): RateLimiterStub {
	return env.RATE_LIMITER.getByName(`whatsapp-pace:${numberId}`);
}
