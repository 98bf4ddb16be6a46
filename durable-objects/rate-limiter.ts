import { DurableObject } from 'cloudflare:workers';
import { failed, type ThrottlePolicy, type ThrottleState, waitMs } from '../src/domain/team/sign-in-throttle';
import { type PaceDecision, type PaceRule, SendPace } from '../src/engines/whatsapp/pace';
import type { RateLimitDecision } from '../src/model/rate-limits';
import { FixedWindow } from './fixed-window';

const THROTTLE_KEY = 'sign-in';

/**
 * One instance per counted thing that has no token (a visitor, an address in a workspace), so every isolate in
 * every location counts against the same number. A fixed window per minute, in memory (see `FixedWindow`): an
 * instance stores nothing, so the many that see a handful of hits and never come back cost nothing once gone;
 * except failed console sign-ins, whose lock must outlive the object's eviction: kept in storage until forgotten.
 * (API tokens are counted by their `TokenGate`, which checks them too.)
 */
export class RateLimiter extends DurableObject<Env> {
	private readonly window = new FixedWindow();
	/** A WhatsApp number's sending schedule, when this instance paces one (named `whatsapp-pace:<number>`). */
	private pace: SendPace | null = null;

	/**
	 * Counts one request (or `units` at once: a campaign batch's next messages) and says whether it fits in the
	 * current window; `units` get what is left of it.
	 */
	hit(limit: number, windowSeconds = 60, units = 1): RateLimitDecision {
		return this.window.hit(limit, windowSeconds, Date.now(), units);
	}

	/**
	 * Reserves a moment to send a WhatsApp message to `recipient` within the number's pace, or says when to ask
	 * again. In memory like the window: an instance is evicted only long after its last slot has passed.
	 */
	paceSend(recipient: string, rule: PaceRule, again = false): PaceDecision {
		this.pace ??= new SendPace();
		return this.pace.schedule(recipient, Date.now(), rule, again);
	}

	/** `paceSend` for a batch's messages in one call, in order: a consumer asks once, not once per message. */
	paceSends(recipients: string[], rule: PaceRule): PaceDecision[] {
		this.pace ??= new SendPace();
		return this.pace.scheduleMany(recipients, Date.now(), rule);
	}

	/**
	 * Milliseconds a console sign-in counted by this instance (an e-mail's, or a client address's) must still wait
	 * (src/domain/team/sign-in-throttle.ts); 0 when it may try now.
	 */
	async signInWait(policy: ThrottlePolicy): Promise<number> {
		return waitMs(await this.ctx.storage.get<ThrottleState>(THROTTLE_KEY), Date.now(), policy);
	}

	/** Counts a failed sign-in, kept in storage until `lockMs` after it (the alarm then clears it). */
	async signInFailed(policy: ThrottlePolicy): Promise<void> {
		const now = Date.now();
		const state = failed(await this.ctx.storage.get<ThrottleState>(THROTTLE_KEY), now, policy);
		await this.ctx.storage.put(THROTTLE_KEY, state);
		await this.ctx.storage.setAlarm(now + policy.lockMs);
	}

	/** A good sign-in: the e-mail's failures are forgotten. */
	async signInSucceeded(): Promise<void> {
		await this.ctx.storage.deleteAll();
	}

	/**
	 * The alarm `signInFailed` sets once its failures are forgotten; and (from an older release, which kept its
	 * window in storage with an alarm at the window's end) one that clears what that release left behind.
	 */
	override async alarm(): Promise<void> {
		await this.ctx.storage.deleteAll();
	}
}
