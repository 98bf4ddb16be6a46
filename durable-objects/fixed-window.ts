import type { RateLimitDecision, WindowCount } from '../src/model/rate-limits';

/**
 * A fixed-window counter held in a Durable Object's memory, its single owner.
 *
 * Memory, not storage: a storage write per request would cost every API call a commit. The runtime evicts an
 * idle object only after 70 to 140 s without a call, by when its window (a minute) has ended and nothing of
 * the count mattered any more. A deploy or a runtime restart does reset a count once: at worst a caller gets
 * one extra window's budget then, which a limit meant to stop floods, not to bill, can afford.
 */
export class FixedWindow {
	private startedAt = Number.NEGATIVE_INFINITY;
	private count = 0;

	/**
	 * Counts one request (or `units` at once: a socket's lease, see room-sockets.ts) and says whether it fits in
	 * the current window; a lease gets what is left of it, up to `units`.
	 */
	hit(limit: number, windowSeconds: number, now: number, units = 1): RateLimitDecision {
		const windowMs = windowSeconds * 1000;
		// A hit dated before the current window (a caller's clock behind this object's) counts in the current one.
		const windowStart = Math.max(now - (now % windowMs), this.startedAt);
		const endsAt = windowStart + windowMs;
		const used = this.startedAt === windowStart ? this.count : 0;
		const granted = Math.max(0, Math.min(units, limit - used));
		this.startedAt = windowStart;
		this.count = used + granted;
		return {
			allowed: granted > 0,
			granted,
			limit,
			remaining: Math.max(0, limit - used - granted),
			resetSeconds: Math.max(1, Math.ceil((endsAt - now) / 1000)),
			windowSeconds,
		};
	}

	/** The current window and its count. */
	snapshot(): WindowCount {
		return { startedAt: this.startedAt, count: this.count };
	}

	/** Takes over another counter's window: the same window keeps the larger count, a newer one replaces it. */
	absorb(other: WindowCount): void {
		if (other.startedAt > this.startedAt) {
			this.startedAt = other.startedAt;
			this.count = other.count;
		} else if (other.startedAt === this.startedAt) {
			this.count = Math.max(this.count, other.count);
		}
	}
}
