/** A counter's window and its count, as handed from one counter to another (a token's budget to its successor). */
export interface WindowCount {
	startedAt: number;
	count: number;
}

/** What a RateLimiter object answers (durable-objects/rate-limiter.ts): the IETF rate-limit headers' figures. */
export interface RateLimitDecision {
	allowed: boolean;
	/** Hits counted by this call: 1 for a request, up to the units asked for a lease (0 when refused). */
	granted: number;
	limit: number;
	remaining: number;
	/** Seconds until the current window ends and the count starts again. */
	resetSeconds: number;
	windowSeconds: number;
}
