import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_ATTEMPTS, RoomTimers, TIMERS_SCHEMA, type Timer } from '../durable-objects/room-timers';

/**
 * One Durable Object alarm for every timer of a conversation room: the outbox's retry and a bot's Delay of
 * days live side by side, each timer runs once, and the alarm always points at the earliest.
 */

const HOUR = 3_600_000;

afterEach(() => {
	vi.restoreAllMocks();
});

/**
 * `fn` with a RoomTimers over the storage of a fresh object that is no conversation (so its own alarm
 * handler ignores it). Timers are hours ahead and runs are given their time, so no alarm fires by itself.
 */
function withTimers<T>(fn: (timers: RoomTimers, state: DurableObjectState) => T | Promise<T>): Promise<T> {
	const stub = env.CONVERSATION_ROOM.getByName(`timers-${crypto.randomUUID()}`);
	return runInDurableObject(stub, (_instance, state) => {
		for (const statement of TIMERS_SCHEMA) state.storage.sql.exec(statement);
		return fn(new RoomTimers(state.storage), state);
	});
}

/** Handlers that record what ran, as `kind:id`. */
function recorder(kinds: string[]) {
	const ran: string[] = [];
	const handlers = Object.fromEntries(
		kinds.map((kind) => [kind, async (_payload: unknown, timer: Timer) => void ran.push(`${kind}:${timer.id}`)]),
	);
	return { ran, handlers };
}

function silenceErrors() {
	return vi.spyOn(console, 'error').mockImplementation(() => undefined);
}

describe('RoomTimers', () => {
	it('arms the alarm at the earliest timer, and at the next one once that is cancelled', async () => {
		await withTimers(async (timers, state) => {
			const now = Date.now();
			timers.schedule({ id: 'c', kind: 'ping', dueAt: now + 3 * HOUR, payload: null }, 'replace');
			timers.schedule({ id: 'a', kind: 'ping', dueAt: now + HOUR, payload: null }, 'replace');
			timers.schedule({ id: 'b', kind: 'ping', dueAt: now + 2 * HOUR, payload: null }, 'replace');
			await timers.scheduleNextAlarm();
			expect(await state.storage.getAlarm()).toBe(now + HOUR);
			timers.cancel('a');
			await timers.scheduleNextAlarm();
			expect(await state.storage.getAlarm()).toBe(now + 2 * HOUR);
			timers.cancelKind('ping');
			await timers.scheduleNextAlarm();
			expect(await state.storage.getAlarm()).toBeNull();
		});
	});

	it('moves a timer only sooner with `earliest`, and exactly with `replace`', async () => {
		await withTimers((timers) => {
			const now = Date.now();
			timers.schedule({ id: 'retry', kind: 'ping', dueAt: now + HOUR, payload: { n: 1 } }, 'earliest');
			timers.schedule({ id: 'retry', kind: 'ping', dueAt: now + 2 * HOUR, payload: { n: 2 } }, 'earliest');
			expect(timers.get('retry')).toMatchObject({ dueAt: now + HOUR, payload: { n: 1 } });
			timers.schedule({ id: 'retry', kind: 'ping', dueAt: now + HOUR / 2, payload: { n: 3 } }, 'earliest');
			expect(timers.get('retry')).toMatchObject({ dueAt: now + HOUR / 2, payload: { n: 1 } });
			timers.schedule({ id: 'retry', kind: 'ping', dueAt: now + 2 * HOUR, payload: { n: 4 } }, 'replace');
			expect(timers.get('retry')).toMatchObject({ dueAt: now + 2 * HOUR, payload: { n: 4 } });
		});
	});

	it('runs only the due timers, each by its kind, and never twice however often the alarm comes', async () => {
		await withTimers(async (timers, state) => {
			const now = Date.now();
			const { ran, handlers } = recorder(['ping', 'pong']);
			timers.schedule({ id: 'a', kind: 'ping', dueAt: now + HOUR, payload: null }, 'replace');
			timers.schedule({ id: 'b', kind: 'pong', dueAt: now + 2 * HOUR, payload: null }, 'replace');
			timers.schedule({ id: 'c', kind: 'ping', dueAt: now + 3 * HOUR, payload: null }, 'replace');
			await timers.runDue(handlers, now + 2 * HOUR);
			expect(ran).toEqual(['ping:a', 'pong:b']);
			// The same alarm again, and a late one: what ran is gone.
			await timers.runDue(handlers, now + 2 * HOUR);
			await timers.runDue(handlers, now + 2 * HOUR + 1);
			expect(ran).toEqual(['ping:a', 'pong:b']);
			expect(await state.storage.getAlarm()).toBe(now + 3 * HOUR);
		});
	});

	it('runs a timer once when two runs overlap at an await', async () => {
		await withTimers(async (timers) => {
			const now = Date.now();
			let runs = 0;
			const slow = async () => {
				runs++;
				// The second run starts while this one waits.
				await new Promise((resolve) => setTimeout(resolve, 10));
			};
			timers.schedule({ id: 'once', kind: 'slow', dueAt: now + HOUR, payload: null }, 'replace');
			await Promise.all([timers.runDue({ slow }, now + HOUR), timers.runDue({ slow }, now + HOUR)]);
			expect(runs).toBe(1);
		});
	});

	it('puts a failing timer back with a doubling backoff, and drops it after the last attempt', async () => {
		const errors = silenceErrors();
		await withTimers(async (timers) => {
			const now = Date.now() + HOUR;
			const failing = { fail: () => Promise.reject(new Error('handler failed (injected)')) };
			timers.schedule({ id: 'f', kind: 'fail', dueAt: now, payload: { step: 3 } }, 'replace');
			await timers.runDue(failing, now);
			expect(timers.get('f')).toEqual({ id: 'f', kind: 'fail', dueAt: now + 5_000, payload: { step: 3 }, attempts: 1 });
			// Not due again before its backoff.
			await timers.runDue(failing, now + 4_999);
			expect(timers.get('f')?.attempts).toBe(1);
			await timers.runDue(failing, now + 5_000);
			expect(timers.get('f')).toMatchObject({ dueAt: now + 15_000, attempts: 2 });
			let at = now + 15_000;
			for (let attempt = 3; attempt < MAX_TIMER_ATTEMPTS; attempt++) {
				await timers.runDue(failing, at);
				at = timers.get('f')?.dueAt ?? Number.NaN;
			}
			expect(timers.get('f')?.attempts).toBe(MAX_TIMER_ATTEMPTS - 1);
			await timers.runDue(failing, at);
			expect(timers.get('f')).toBeNull();
		});
		expect(errors).toHaveBeenLastCalledWith(expect.stringContaining('dropped'), expect.any(Error));
	});

	it('does not put back a failing timer cancelled while it ran, nor one scheduled again meanwhile', async () => {
		silenceErrors();
		await withTimers(async (timers) => {
			const now = Date.now() + HOUR;
			timers.schedule({ id: 'delay', kind: 'reply', dueAt: now, payload: { v: 'old' } }, 'replace');
			await timers.runDue(
				{
					reply: async () => {
						// A visitor's reply cancels the Delay whose step is running.
						timers.cancel('delay');
						throw new Error('handler failed (injected)');
					},
				},
				now,
			);
			expect(timers.get('delay')).toBeNull();
			timers.schedule({ id: 'delay', kind: 'reply', dueAt: now, payload: { v: 'old' } }, 'replace');
			await timers.runDue(
				{
					reply: async () => {
						timers.schedule({ id: 'delay', kind: 'reply', dueAt: now + HOUR, payload: { v: 'new' } }, 'replace');
						throw new Error('handler failed (injected)');
					},
				},
				now,
			);
			expect(timers.get('delay')).toMatchObject({ dueAt: now + HOUR, payload: { v: 'new' }, attempts: 0 });
		});
	});

	it('drops a timer of a kind with no handler, and still runs the others', async () => {
		const errors = silenceErrors();
		await withTimers(async (timers, state) => {
			const now = Date.now();
			const { ran, handlers } = recorder(['ping']);
			timers.schedule({ id: 'x', kind: 'retired-kind', dueAt: now + HOUR, payload: null }, 'replace');
			timers.schedule({ id: 'y', kind: 'toString', dueAt: now + HOUR, payload: null }, 'replace');
			timers.schedule({ id: 'z', kind: 'ping', dueAt: now + HOUR, payload: null }, 'replace');
			await timers.runDue(handlers, now + HOUR);
			expect(ran).toEqual(['ping:z']);
			expect(timers.get('x')).toBeNull();
			expect(timers.get('y')).toBeNull();
			expect(await state.storage.getAlarm()).toBeNull();
		});
		expect(errors).toHaveBeenCalledWith(expect.stringContaining('retired-kind'));
	});
});
