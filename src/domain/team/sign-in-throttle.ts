/**
 * How failed console sign-ins slow an attacker down, counted per e-mail address (whether or not an operator has
 * it, so the answer says nothing about who exists) and per client address (one address trying many e-mails):
 * - the first few failures cost nothing: people mistype;
 * - then each try must wait longer after the last failure (1 s, 2 s, 4 s, … : back-off);
 * - at `lockAt` failures the key is locked for `lockMs` after the last one.
 * Failures are forgotten `lockMs` after the last one, and a good sign-in forgets an e-mail's at once.
 * The state lives in a RateLimiter Durable Object's storage (durable-objects/rate-limiter.ts), so a lock
 * outlives the object's eviction from memory.
 */
export interface ThrottleState {
	failures: number;
	lastFailureAt: number;
}

export interface ThrottlePolicy {
	/** Failures before any wait. */
	free: number;
	/** Failures that lock the key. */
	lockAt: number;
	lockMs: number;
}

export const EMAIL_POLICY: ThrottlePolicy = { free: 4, lockAt: 10, lockMs: 15 * 60_000 };
export const ADDRESS_POLICY: ThrottlePolicy = { free: 20, lockAt: 50, lockMs: 15 * 60_000 };

/** The longest back-off wait before the lock: the waits double up to it. */
const MAX_BACKOFF_MS = 60_000;

/** The failures still remembered at `now` (none once `lockMs` has passed since the last). */
export function current(state: ThrottleState | undefined, now: number, policy: ThrottlePolicy): ThrottleState {
	if (!state || now - state.lastFailureAt >= policy.lockMs) return { failures: 0, lastFailureAt: 0 };
	return state;
}

/** Milliseconds before the next try is allowed at `now` (0: allowed now). */
export function waitMs(state: ThrottleState | undefined, now: number, policy: ThrottlePolicy): number {
	const { failures, lastFailureAt } = current(state, now, policy);
	if (failures < policy.free) return 0;
	const pause =
		failures >= policy.lockAt ? policy.lockMs : Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (failures - policy.free));
	return Math.max(0, lastFailureAt + pause - now);
}

/** The state after a failure at `now`. */
export function failed(state: ThrottleState | undefined, now: number, policy: ThrottlePolicy): ThrottleState {
	return { failures: current(state, now, policy).failures + 1, lastFailureAt: now };
}
