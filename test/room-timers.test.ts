import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConversationRoom } from '../durable-objects/conversation-room';
import { OUTBOX_TIMER } from '../durable-objects/room-outbox';
import { MAX_TIMER_ATTEMPTS, RoomTimers, TIMERS_SCHEMA, type Timer } from '../durable-objects/room-timers';
import { liveConversationWithoutMail } from './email-continuation-helpers';
import { liveConversation, reply, settleRoom, storedTexts, withTableOffline } from './factories';

/**
 * One Durable Object alarm for every timer of a conversation room: the outbox's retry and a bot's Delay of
 * days live side by side, each timer runs once, and the alarm always points at the earliest.
 */

const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;

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
	it('writes no alarm after a restart when the alarm already points at the earliest timer', async () => {
		await withTimers(async (timers, state) => {
			const dueAt = Date.now() + HOUR;
			timers.schedule({ id: 'w', kind: 'ping', dueAt, payload: null }, 'replace');
			await timers.scheduleNextAlarm();
			// A new instance over the same storage, as after hibernation; it counts the alarm writes it makes.
			const writes: string[] = [];
			const storage = new Proxy(state.storage, {
				get(target, key) {
					const value = Reflect.get(target, key, target);
					if (key !== 'setAlarm' && key !== 'deleteAlarm')
						return typeof value === 'function' ? value.bind(target) : value;
					return (...args: unknown[]) => {
						writes.push(String(key));
						return (value as (...a: unknown[]) => unknown).apply(target, args);
					};
				},
			});
			const woken = new RoomTimers(storage);
			await woken.load();
			woken.schedule({ id: 'w', kind: 'ping', dueAt: dueAt + HOUR, payload: null }, 'earliest');
			await woken.scheduleNextAlarm();
			expect(writes).toEqual([]);
			// Without what `load` learnt, it would have written the same time again.
			const unaware = new RoomTimers(storage);
			await unaware.scheduleNextAlarm();
			expect(writes).toEqual(['setAlarm']);
			expect(await state.storage.getAlarm()).toBe(dueAt);
		});
	});

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

/** The room's own RoomTimers (the one its alarm and outbox use). */
function roomTimers(instance: ConversationRoom): RoomTimers {
	return (instance as unknown as { timers: RoomTimers }).timers;
}

/** The room's alarm, its outbox timer and its far-future test timer, read in one go. */
function roomState(conversationId: string) {
	return runInDurableObject(
		env.CONVERSATION_ROOM.getByName(conversationId),
		async (instance: ConversationRoom, state) => ({
			alarm: await state.storage.getAlarm(),
			outbox: roomTimers(instance).get(OUTBOX_TIMER),
			far: roomTimers(instance).get('far'),
		}),
	);
}

describe("a conversation room's alarm", () => {
	it("keeps a far-future timer through the outbox's retry, which it neither delays nor is moved by", async () => {
		silenceErrors();
		const { token, conversationId } = await liveConversationWithoutMail();
		const stub = env.CONVERSATION_ROOM.getByName(conversationId);
		// The start's flush is done and the room idle: no outbox timer, no alarm.
		await settleRoom(conversationId);
		expect(await roomState(conversationId)).toMatchObject({ alarm: null, outbox: null });
		const farAt = Date.now() + WEEK;
		await runInDurableObject(stub, (instance: ConversationRoom) => {
			roomTimers(instance).schedule({ id: 'far', kind: 'test-delay', dueAt: farAt, payload: { step: 1 } }, 'replace');
			return roomTimers(instance).scheduleNextAlarm();
		});
		expect((await roomState(conversationId)).alarm).toBe(farAt);

		await withTableOffline('messages', async () => {
			await reply(token, conversationId, 'written while D1 was down');
			// The failed flush's retry is due in seconds (if it already ran, it failed again): the alarm is its.
			const failing = await roomState(conversationId);
			expect(failing.outbox?.dueAt).toBeLessThan(Date.now() + 60_000);
			expect(failing.alarm).toBe(failing.outbox?.dueAt);
			expect(failing.far?.dueAt).toBe(farAt);
			// A change arms the outbox's watchdog (30 s): the retry, due sooner, keeps its time.
			const retry = await runInDurableObject(stub, async (instance: ConversationRoom) => {
				const before = roomTimers(instance).get(OUTBOX_TIMER)?.dueAt;
				const armed = (instance as unknown as { outbox: { arm(): Promise<void> } }).outbox.arm();
				const after = roomTimers(instance).get(OUTBOX_TIMER)?.dueAt;
				await armed;
				return { before, after };
			});
			expect(retry.after).toBe(retry.before);
		});

		// D1 is back. The retry fires by itself in seconds; run it now (if it ran already, this runs the far
		// timer's alarm early, which must leave that timer as it is).
		expect(await runDurableObjectAlarm(stub)).toBe(true);
		expect(await storedTexts(token, conversationId)).toEqual(['Hi, I need help', 'written while D1 was down']);
		expect(await roomState(conversationId)).toMatchObject({ alarm: farAt, outbox: null, far: { dueAt: farAt } });

		// A new message comes and goes: the alarm returns to the far timer, which has not moved.
		await reply(token, conversationId, 'D1 is fine again');
		await settleRoom(conversationId);
		expect(await roomState(conversationId)).toMatchObject({ alarm: farAt, outbox: null });
		expect((await roomState(conversationId)).far).toMatchObject({ dueAt: farAt, payload: { step: 1 } });
		expect(await storedTexts(token, conversationId)).toEqual([
			'Hi, I need help',
			'written while D1 was down',
			'D1 is fine again',
		]);
	});

	it('flushes work left by an older release under its own alarm, with no outbox timer', async () => {
		silenceErrors();
		const { token, conversationId } = await liveConversation();
		const stub = env.CONVERSATION_ROOM.getByName(conversationId);
		await withTableOffline('messages', async () => {
			await reply(token, conversationId, 'pending from before timers');
			// As the older release left it: the message not in D1, an alarm of its own, no timer row.
			await runInDurableObject(stub, (_instance, state) => {
				state.storage.sql.exec('DELETE FROM timers');
				return state.storage.setAlarm(Date.now() + HOUR);
			});
		});
		expect(await runDurableObjectAlarm(stub)).toBe(true);
		expect(await storedTexts(token, conversationId)).toEqual(['Hi, I need help', 'pending from before timers']);
		expect(await roomState(conversationId)).toMatchObject({ alarm: null, outbox: null });
	});
});
