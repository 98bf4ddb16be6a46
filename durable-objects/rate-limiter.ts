import { DurableObject } from 'cloudflare:workers';
import type { RateLimitDecision } from '../src/domain/rate-limits';
import { FixedWindow } from './fixed-window';

/**
 * One instance per counted thing that has no token (a visitor, an address in a workspace), so every isolate in
 * every location counts against the same number. A fixed window per minute, in memory (see `FixedWindow`): an
 * instance stores nothing, so the many that see a handful of hits and never come back cost nothing once gone.
 * (API tokens are counted by their `TokenGate`, which checks them too.)
 */
export class RateLimiter extends DurableObject<Env> {
	private readonly window = new FixedWindow();

	/**
	 * Counts one request (or `units` at once: a campaign batch's next messages) and says whether it fits in the
	 * current window; `units` get what is left of it.
	 */
	hit(limit: number, windowSeconds = 60, units = 1): RateLimitDecision {
		return this.window.hit(limit, windowSeconds, Date.now(), units);
	}

	/**
	 * Only an instance stored by an older release (which kept its window in storage, with an alarm at the
	 * window's end) has an alarm: it clears what that release left behind.
	 */
	override async alarm(): Promise<void> {
		await this.ctx.storage.deleteAll();
	}
}
