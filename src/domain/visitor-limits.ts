import { TooManyRequests } from '../lib/errors';

/**
 * Abuse limits on the public widget endpoints, per minute. A visitor chats at human speed; the per-IP limits
 * are higher because an office or a mobile carrier puts many visitors behind one address.
 */
export const VISITOR_LIMITS = {
	messagesPerVisitor: 20,
	messagesPerIp: 120,
	sessionsPerIp: 30,
} as const;

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
export function messageBuckets(visitorId: string, ip: string) {
	return [
		{ key: `visitor:${visitorId}`, limit: VISITOR_LIMITS.messagesPerVisitor },
		{ key: `ip-messages:${ip}`, limit: VISITOR_LIMITS.messagesPerIp },
	];
}
