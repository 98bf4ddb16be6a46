/**
 * The sending pace of one WhatsApp business number, as a schedule (the generic cell rate algorithm): each
 * message asks for a moment to be sent at, spaced so that the number never goes over its share of Meta's
 * throughput, and so that one customer never gets messages faster than Meta's pair rate. Held in memory by
 * the number's RateLimiter object (durable-objects/rate-limiter.ts), the one place every consumer asks.
 *
 * Meta's figures (docs/whatsapp.md): 80 messages a second per number by default, inbound counted too, so
 * Parley paces at 96 % of the number's rate (the rest, 3.2 a second, for customers' messages; a second that
 * needs more is answered 130429, which the sender retries); and one message every 6 s to one user, with a
 * burst allowed that is then paid back at that rate (a burst of 45 at most; Parley allows a smaller one).
 */

/** The share of the number's throughput Parley's sending uses: the rest is headroom for inbound messages. */
export const THROUGHPUT_SHARE = 0.96;
/**
 * Messages a second kept below the number's rate whatever the share: the pace gives any second one slot more
 * than its rate, and senders woken up late (up to LATE_MS) reach Meta together, so a slow number (10 a second)
 * needs these two in hand, which 4 % of it is not.
 */
export const MARGIN_PER_SECOND = 2;
/** Meta's pair rate: one message to the same user every 6 s on average. */
export const PAIR_INTERVAL_MS = 6000;
/** Messages one user may get at once before the pair rate applies (Meta allows up to 45, paid back after). */
export const PAIR_BURST = 6;
/** The longest a consumer waits for a slot itself; a later slot sends the Queue message again, delayed. */
export const MAX_WAIT_MS = 2000;
/**
 * How late a sender may wake up for its slot and still use it. Meta counts messages as they arrive: an
 * isolate busy for a moment wakes its waiting senders together, and slots 1/77 s apart would then reach
 * Meta as a burst over 80 in a second (the bench saw it). A slot missed by more is given up and another asked
 * for: a bunch is then at most this long, a few messages more than the pace.
 */
export const LATE_MS = 25;
/** Slots a sender gives up for lateness before it sends on the last one anyway (never stuck on a busy isolate). */
export const LATE_RETRIES = 3;

/** Whether a sender awake at `now` missed its slot at `sendAt` (see LATE_MS): it asks for another instead. */
export function slotMissed(sendAt: number, now: number): boolean {
	return now - sendAt > LATE_MS;
}

/** How one number is paced (see `paceRule`). */
export interface PaceRule {
	/** Milliseconds between two messages of the number. */
	intervalMs: number;
	pairIntervalMs: number;
	pairBurst: number;
	maxWaitMs: number;
}

/** When to send: at `sendAt` (now, or within `maxWaitMs`), or not before `retryAt` (nothing was reserved). */
export type PaceDecision = { sendAt: number } | { retryAt: number };

/** The pace of a number allowed `messagesPerSecond` by Meta. */
export function paceRule(messagesPerSecond: number): PaceRule {
	const perSecond = Math.max(1, Math.min(messagesPerSecond * THROUGHPUT_SHARE, messagesPerSecond - MARGIN_PER_SECOND));
	return {
		intervalMs: 1000 / perSecond,
		pairIntervalMs: PAIR_INTERVAL_MS,
		pairBurst: PAIR_BURST,
		maxWaitMs: MAX_WAIT_MS,
	};
}

/**
 * One number's schedule: the theoretical next slot of the number and of each recipient. In any span of
 * `w` ms the number is given at most `w / intervalMs + 1` slots: no burst, since
 * Meta's own count of the second is unknown (a sliding second is the strictest reading).
 */
export class SendPace {
	private numberNext = Number.NEGATIVE_INFINITY;
	private readonly recipientNext = new Map<string, number>();

	/**
	 * Reserves a moment to send a message to `recipient`, or says when to ask again. `again`: the message's slot
	 * was given up (its sender woke up late) and this is its next one: the customer's pair rate counted the
	 * message already, so only the number's pace is asked (otherwise each late wake would spend the customer's
	 * burst, and a few messages to one customer would end up seconds apart).
	 */
	schedule(recipient: string, now: number, rule: PaceRule, again = false): PaceDecision {
		this.forget(now);
		if (again) {
			const sendAt = Math.max(now, this.numberNext);
			if (sendAt - now > rule.maxWaitMs) return { retryAt: sendAt };
			this.numberNext = sendAt + rule.intervalMs;
			return { sendAt };
		}
		const pairNext = this.recipientNext.get(recipient) ?? now;
		const pairTolerance = (rule.pairBurst - 1) * rule.pairIntervalMs;
		const pairAt = Math.max(now, pairNext - pairTolerance);
		const numberAt = Math.max(now, this.numberNext);
		const sendAt = Math.max(pairAt, numberAt);
		if (sendAt - now > rule.maxWaitMs) return { retryAt: sendAt };
		this.numberNext = Math.max(this.numberNext, sendAt) + rule.intervalMs;
		this.recipientNext.set(recipient, Math.max(pairNext, sendAt) + rule.pairIntervalMs);
		return { sendAt };
	}

	/** Reserves a moment for each of `recipients` in turn (a batch's messages, one call), as `schedule` does. */
	scheduleMany(recipients: readonly string[], now: number, rule: PaceRule): PaceDecision[] {
		return recipients.map((recipient) => this.schedule(recipient, now, rule));
	}

	/** Recipients whose slot is past need no memory: the next message finds them free. */
	private forget(now: number): void {
		if (this.recipientNext.size < 1000) return;
		for (const [recipient, next] of this.recipientNext) if (next <= now) this.recipientNext.delete(recipient);
	}
}
