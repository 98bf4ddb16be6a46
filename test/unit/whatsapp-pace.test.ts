import { describe, expect, it } from 'vitest';
import { LATE_MS, PAIR_BURST, PAIR_INTERVAL_MS, paceRule, SendPace, slotMissed } from '../../src/engines/whatsapp/pace';

/** Meta's default throughput of a number, and Parley's share of it, in a second. */
const META_PER_SECOND = 80;
const PACE_PER_SECOND = 1000 / paceRule(META_PER_SECOND).intervalMs;

/** The most slots any window of `spanMs` holds. */
function busiest(slots: number[], spanMs: number): number {
	const sorted = [...slots].sort((a, b) => a - b);
	let most = 0;
	for (let i = 0, j = 0; i < sorted.length; i++) {
		while ((sorted[i] ?? 0) - (sorted[j] ?? 0) >= spanMs) j++;
		most = Math.max(most, i - j + 1);
	}
	return most;
}

describe('SendPace', () => {
	it('keeps arrivals within the pace when a busy isolate wakes its senders late, as they give up the late slots', () => {
		const rule = paceRule(80);
		/** 140 messages asked for every 3 ms; the isolate is busy from 500 to 900 ms: every timer due then fires at 900. */
		const arrivals = (giveUpLate: boolean) => {
			const pace = new SendPace();
			const at: number[] = [];
			const late: string[] = [];
			for (let i = 0; i < 140; i++) {
				const slot = pace.schedule(`r${i}`, i * 3, rule);
				if (!('sendAt' in slot)) throw new Error('refused');
				const woke = slot.sendAt >= 500 && slot.sendAt < 900 ? 900 : slot.sendAt;
				if (giveUpLate && slotMissed(slot.sendAt, woke)) late.push(`r${i}`);
				else at.push(woke);
			}
			for (const to of late) {
				const again = pace.schedule(to, 900, rule);
				if (!('sendAt' in again)) throw new Error('refused');
				at.push(again.sendAt);
			}
			return at;
		};
		// Sent when woken, the late ones reach Meta in a bunch: over its 80 in a second.
		expect(busiest(arrivals(false), 1000)).toBeGreaterThan(80);
		const paced = arrivals(true);
		expect(paced).toHaveLength(140);
		// The pace's share in a second, and those woken up to LATE_MS late sent with the rest: never over Meta's 80.
		expect(busiest(paced, 1000)).toBeLessThanOrEqual(
			Math.floor(PACE_PER_SECOND) + 1 + Math.ceil((LATE_MS / 1000) * PACE_PER_SECOND),
		);
		expect(busiest(paced, 1000)).toBeLessThanOrEqual(META_PER_SECOND);
		expect([slotMissed(1000, 1000 + LATE_MS), slotMissed(1000, 1001 + LATE_MS)]).toEqual([false, true]);
	});

	it("never gives a number of 80 a second more than Parley's share of it in any second", () => {
		const pace = new SendPace();
		const rule = paceRule(80);
		const slots: number[] = [];
		// 500 messages to different people, asked for as fast as consumers can ask, every 3 ms.
		for (let i = 0, now = 0; slots.length < 500; i++, now += 3) {
			const decision = pace.schedule(`+1555${i}`, now, rule);
			if ('sendAt' in decision) slots.push(decision.sendAt);
			else expect(decision.retryAt).toBeGreaterThan(now + rule.maxWaitMs);
		}
		expect(busiest(slots, 1000)).toBeLessThanOrEqual(Math.floor(PACE_PER_SECOND) + 1);
		// And it keeps up: 500 messages in about 500 / the pace's seconds.
		expect(Math.max(...slots)).toBeLessThan((500 / PACE_PER_SECOND) * 1000 + 100);
	});

	it("asks only the number's pace for a late message's next slot: a customer's burst is not spent by late wakes", () => {
		const rule = paceRule(80);
		const pace = new SendPace();
		const at: number[] = [];
		// Four messages to one customer, each woken up late for its first slot three times, then sent.
		for (let i = 0; i < 4; i++) {
			let slot = pace.schedule('a', 1000, rule);
			for (let late = 0; late < 3; late++) slot = pace.schedule('a', 1000, rule, true);
			if (!('sendAt' in slot)) throw new Error('refused');
			at.push(slot.sendAt);
		}
		// All within the customer's burst (6): a fraction of a second, not the pair rate's 6 s apart.
		expect(Math.max(...at) - 1000).toBeLessThan(16 * rule.intervalMs + 1);
		// A fifth, sixth and seventh asked for in the usual way: the burst is 6, so the seventh waits for the pair rate.
		const more = [5, 6, 7].map(() => pace.schedule('a', 1000, rule));
		expect(more.map((slot) => 'sendAt' in slot)).toEqual([true, true, false]);
	});

	it('reserves a batch of slots in one call exactly as one call each would, in order', () => {
		const rule = paceRule(80);
		const recipients = ['a', 'b', 'a', 'c', 'a', 'b'];
		const apart = new SendPace();
		const one = recipients.map((r) => apart.schedule(r, 1000, rule));
		expect(new SendPace().scheduleMany(recipients, 1000, rule)).toEqual(one);
		// Spaced at the pace from the first, which goes at once.
		expect(one.map((slot) => ('sendAt' in slot ? Math.round(slot.sendAt - 1000) : null))).toEqual(
			recipients.map((_, i) => Math.round(i * rule.intervalMs)),
		);
	});

	it('lets one customer get a short burst, then one message every 6 s', () => {
		const pace = new SendPace();
		const rule = paceRule(80);
		const at = (now: number) => pace.schedule('+15550100', now, rule);
		for (let i = 0; i < PAIR_BURST; i++) expect(at(0)).toMatchObject({ sendAt: expect.any(Number) });
		const refused = at(0);
		expect(refused).toEqual({ retryAt: PAIR_INTERVAL_MS });
		// Someone else is not held up by it.
		expect(pace.schedule('+15550199', 0, rule)).toMatchObject({ sendAt: expect.any(Number) });
		expect(at(PAIR_INTERVAL_MS)).toEqual({ sendAt: PAIR_INTERVAL_MS });
		expect(at(PAIR_INTERVAL_MS)).toEqual({ retryAt: 2 * PAIR_INTERVAL_MS });
	});

	it('reserves nothing when it refuses', () => {
		const pace = new SendPace();
		const rule = { ...paceRule(1), maxWaitMs: 0 };
		expect(pace.schedule('a', 0, rule)).toEqual({ sendAt: 0 });
		const refused = pace.schedule('b', 0, rule);
		expect(refused).toMatchObject({ retryAt: expect.any(Number) });
		// The refused ask took no slot: the next one is the same slot, not one after it.
		expect(pace.schedule('c', 0, rule)).toEqual(refused);
	});
});
