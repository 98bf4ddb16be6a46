import { TooManyRequests } from '../lib/errors';

/**
 * Abuse limits on the public widget endpoints, per minute. A visitor chats at human speed; the per-IP limits
 * are higher because an office or a mobile carrier puts many visitors behind one address. The per-IP ones
 * can be raised with vars (WIDGET_MESSAGES_PER_IP, WIDGET_SESSIONS_PER_IP) for a load test or a big NAT.
 */
export function visitorLimits(env: Env) {
	return {
		messagesPerVisitor: 20,
		messagesPerIp: Number(env.WIDGET_MESSAGES_PER_IP) || 120,
		sessionsPerIp: Number(env.WIDGET_SESSIONS_PER_IP) || 30,
	};
}

/** The client address Cloudflare reports; locally (no header) every request shares one bucket. */
export function clientIp(headers: Headers): string {
	return headers.get('CF-Connecting-IP') ?? 'local';
}

/**
 * Counts one hit against each named bucket and throws TooManyRequests (with the seconds to wait) when any is
 * over its limit. Buckets live in the same RateLimiter Durable Object class as the API's token limits.
 */
export async function enforceLimits(env: Env, buckets: Array<{ key: string; limit: number }>): Promise<void> {
	const decisions = await Promise.all(
		buckets.map(({ key, limit }) => env.RATE_LIMITER.getByName(`widget:${key}`).hit(limit, 60)),
	);
	const refused = decisions.find((d) => !d.allowed);
	if (refused) {
		throw new TooManyRequests(
			`Too many requests from this visitor; try again in ${refused.resetSeconds} s.`,
			refused.resetSeconds,
		);
	}
}

/** The buckets one visitor message counts against. */
export function messageBuckets(env: Env, visitorId: string, ip: string) {
	const limits = visitorLimits(env);
	return [
		{ key: `visitor:${visitorId}`, limit: limits.messagesPerVisitor },
		{ key: `ip-messages:${ip}`, limit: limits.messagesPerIp },
	];
}

/** The bucket a session start counts against. */
export function sessionBuckets(env: Env, ip: string) {
	return [{ key: `ip-sessions:${ip}`, limit: visitorLimits(env).sessionsPerIp }];
}
