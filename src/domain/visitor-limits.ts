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
		// Every widget request (config, history, identify, sockets...): generous, it only stops floods.
		requestsPerIp: 10 * (Number(env.WIDGET_SESSIONS_PER_IP) || 30),
	};
}

/**
 * The client address Cloudflare reports, as a limit bucket: IPv6 by its /64 (one subscriber holds a whole
 * /64, so per-address buckets would give it 2^64 budgets). Locally (no header) every request shares one.
 */
export function clientIp(headers: Headers): string {
	const ip = headers.get('CF-Connecting-IP');
	if (!ip) return 'local';
	if (!ip.includes(':')) return ip;
	const groups = expandIpv6(ip);
	return groups ? `${groups.slice(0, 4).join(':')}::/64` : ip;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded), or null when it is not one. */
function expandIpv6(ip: string): string[] | null {
	const [head = '', tail, extra] = ip.split('::');
	if (extra !== undefined) return null;
	const left = head ? head.split(':') : [];
	const right = tail ? tail.split(':') : [];
	const missing = 8 - left.length - right.length;
	if (tail === undefined ? missing !== 0 : missing < 1) return null;
	return [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right].map((g) => g.toLowerCase());
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

/** The bucket every public widget request counts against, on top of the stricter ones of sends. */
export function requestBuckets(env: Env, ip: string) {
	return [{ key: `ip-requests:${ip}`, limit: visitorLimits(env).requestsPerIp }];
}
