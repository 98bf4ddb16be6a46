import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { SNOOZE_TIMER } from '../durable-objects/room-snooze';
import {
	api,
	expectError,
	liveConversation,
	reply,
	seedConversation,
	seedWorkspace,
	settleRoom,
	visitorSend,
} from './factories';

const HOUR = 3_600_000;

interface Conversation {
	id: string;
	status: string;
	snoozedUntil: string | null;
	waitingSince: string | null;
}

function room(conversationId: string) {
	return env.CONVERSATION_ROOM.getByName(conversationId);
}

/** The room's snooze timer, as stored: its due time, or null when there is none. */
function snoozeDue(conversationId: string): Promise<number | null> {
	return runInDurableObject(room(conversationId), (_instance, state) => {
		const row = state.storage.sql
			.exec<{ due_at: number }>('SELECT due_at FROM timers WHERE id = ?', SNOOZE_TIMER)
			.toArray()[0];
		return row?.due_at ?? null;
	});
}

/** Time passes for the room: its snooze timer is due now, and the alarm runs. */
async function snoozeComesDue(conversationId: string): Promise<void> {
	await runInDurableObject(room(conversationId), (_instance, state) => {
		state.storage.sql.exec('UPDATE timers SET due_at = ? WHERE id = ?', Date.now() - 1, SNOOZE_TIMER);
	});
	await runDurableObjectAlarm(room(conversationId));
}

async function read(token: string, id: string): Promise<Conversation> {
	return (await (await api(token, 'GET', `/v3/conversations/${id}`)).json()) as Conversation;
}

describe('PATCH /v3/conversations/{id} with snoozedUntil', () => {
	it('makes it pending until then, and its room reopens it on its timer', async () => {
		const { token, conversationId } = await liveConversation();
		await settleRoom(conversationId);
		const until = new Date(Date.now() + 2 * HOUR).toISOString();
		const res = await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { snoozedUntil: until });
		expect(res.status).toBe(200);
		expect(await res.json()).toMatchObject({ status: 'pending', snoozedUntil: until });
		expect(await snoozeDue(conversationId)).toBe(Date.parse(until));
		await snoozeComesDue(conversationId);
		expect(await read(token, conversationId)).toMatchObject({ status: 'open', snoozedUntil: null });
		// The timer ran once: the alarm has nothing left of it.
		expect(await snoozeDue(conversationId)).toBeNull();
	});

	it('wakes it as soon as the customer writes, on the same timer, and only a snoozed one', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const until = new Date(Date.now() + 2 * HOUR).toISOString();
		await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { snoozedUntil: until });
		expect((await read(token, conversationId)).status).toBe('pending');
		const sent = await visitorSend(visitor, conversationId, 'Any news on my order?', 'wake-1');
		expect(sent.status).toBe(201);
		// The timer is due at once, not in two hours; the alarm it set reopens the conversation.
		expect(await snoozeDue(conversationId)).toBeLessThanOrEqual(Date.now());
		await runDurableObjectAlarm(room(conversationId));
		expect(await read(token, conversationId)).toMatchObject({ status: 'open', snoozedUntil: null });
		expect(await snoozeDue(conversationId)).toBeNull();
		// A pending conversation that is not snoozed stays pending when the customer writes.
		await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { status: 'pending' });
		expect((await visitorSend(visitor, conversationId, 'Still there?', 'wake-2')).status).toBe(201);
		await runDurableObjectAlarm(room(conversationId));
		expect((await read(token, conversationId)).status).toBe('pending');
	});

	it('does not reopen a conversation whose snooze ended or moved before the timer fired', async () => {
		const { token, conversationId } = await liveConversation();
		const first = new Date(Date.now() + HOUR).toISOString();
		await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { snoozedUntil: first });
		// Closed meanwhile: the snooze is over, and the old timer finds nothing to do.
		await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { status: 'closed' });
		expect(await read(token, conversationId)).toMatchObject({ status: 'closed', snoozedUntil: null });
		await snoozeComesDue(conversationId);
		expect((await read(token, conversationId)).status).toBe('closed');
		// Snoozed again, then moved later: only the later time reopens it.
		const later = new Date(Date.now() + 3 * HOUR).toISOString();
		await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { snoozedUntil: first });
		await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { snoozedUntil: later });
		expect(await snoozeDue(conversationId)).toBe(Date.parse(later));
		await snoozeComesDue(conversationId);
		expect(await read(token, conversationId)).toMatchObject({ status: 'open', snoozedUntil: null });
	});

	it('refuses a time past, too far, or with another status, changing nothing', async () => {
		const { token, conversationId } = await liveConversation();
		const past = new Date(Date.now() - 1000).toISOString();
		const far = new Date(Date.now() + 400 * 24 * HOUR).toISOString();
		await expectError(await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { snoozedUntil: past }), 422);
		await expectError(await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { snoozedUntil: far }), 422);
		await expectError(
			await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { snoozedUntil: 'tomorrow' }),
			422,
		);
		const soon = new Date(Date.now() + HOUR).toISOString();
		await expectError(
			await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { snoozedUntil: soon, status: 'closed' }),
			422,
		);
		expect(await read(token, conversationId)).toMatchObject({ status: 'open', snoozedUntil: null });
		expect(await snoozeDue(conversationId)).toBeNull();
	});
});

describe('GET /v3/conversations?sort=waiting', () => {
	it('lists the customers waiting for a reply, longest waiting first, paged', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const now = Date.now();
		const ids = [];
		for (const waited of [5, 30, 10]) {
			ids.push(await seedConversation(workspaceId, { waitingSince: now - waited * 60_000 }, now - waited * 60_000));
		}
		const answered = await seedConversation(workspaceId, { waitingSince: null });
		const page = async (query: string) =>
			(await (await api(token, 'GET', `/v3/conversations?sort=waiting&${query}`)).json()) as {
				data: Conversation[];
				nextCursor: string | null;
			};
		const first = await page('limit=2');
		expect(first.data.map((c) => c.id)).toEqual([ids[1], ids[2]]);
		const second = await page(`limit=2&cursor=${first.nextCursor}`);
		expect(second.data.map((c) => c.id)).toEqual([ids[0]]);
		expect(second.nextCursor).toBeNull();
		expect([...first.data, ...second.data].map((c) => c.id)).not.toContain(answered);
		// The default order is by last activity, the newest first.
		const byActivity = (await (await api(token, 'GET', '/v3/conversations?limit=10')).json()) as {
			data: Conversation[];
		};
		expect(byActivity.data.map((c) => c.id)).toEqual([answered, ids[0], ids[2], ids[1]]);
		await expectError(await api(token, 'GET', '/v3/conversations?sort=oldest'), 422);
	});

	it("knows a visitor's wait from the room, and ends it with the team's reply", async () => {
		const { token, conversationId } = await liveConversation();
		const waiting = async () =>
			((await (await api(token, 'GET', '/v3/conversations?sort=waiting')).json()) as { data: Conversation[] }).data.map(
				(c) => c.id,
			);
		expect(await waiting()).toEqual([conversationId]);
		await reply(token, conversationId, 'Here I am');
		expect(await waiting()).toEqual([]);
	});
});
