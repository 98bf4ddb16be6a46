import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { newId } from '../src/lib/ids';
import type { DomainEvent } from '../src/model/events';
import {
	api,
	awayFromMinuteBoundary,
	closeConversation,
	conversationStatus,
	expectError,
	liveConversation,
	seedWorkspace,
	startVisitor,
	visitorSend,
	widgetApi,
} from './factories';
import { openSocket, tryUpgrade, visitorSocket } from './sockets';

/** The SQLite tables a conversation room holds (none for an object that was never a real conversation). */
function roomTables(conversationId: string): Promise<string[]> {
	return runInDurableObject(env.CONVERSATION_ROOM.getByName(conversationId), (_instance, state) =>
		state.storage.sql
			.exec<{ name: string }>(
				"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'",
			)
			.toArray()
			.map((r) => r.name),
	);
}

describe('made-up conversation ids', () => {
	it('answer 404 on every path into a room and leave no room storage behind', async () => {
		const { workspaceId, token, visitor } = await liveConversation();
		const madeUp = newId('conv');
		await expectError(await api(token, 'POST', '/v3/messages', { conversationId: madeUp, text: 'hello?' }), 404);
		await expectError(await api(token, 'POST', `/v3/conversations/${madeUp}/read`, { seq: 1 }), 404);
		await expectError(await tryUpgrade(`/v3/conversations/${madeUp}/live`, { Authorization: `Bearer ${token}` }), 404);
		await expectError(await visitorSend(visitor, madeUp, 'hello?', 'made-up'), 404);
		await expectError(
			await widgetApi('POST', `/widget/${workspaceId}/conversations/${madeUp}/read`, { seq: 1 }, visitor.session),
			404,
		);
		expect(await roomTables(madeUp)).toEqual([]);
	});

	it("answer 404 for another workspace's conversation, which gets nothing written", async () => {
		const { conversationId } = await liveConversation();
		const stranger = await seedWorkspace();
		await expectError(await api(stranger.token, 'POST', '/v3/messages', { conversationId, text: 'not mine' }), 404);
		const log = await runInDurableObject(env.CONVERSATION_ROOM.getByName(conversationId), (_i, state) =>
			state.storage.sql.exec<{ body: string }>('SELECT body FROM log').toArray(),
		);
		expect(log.map((m) => m.body)).toEqual(['Hi, I need help']);
	});

	it('are refused by the room itself without creating its tables (defence in depth)', async () => {
		const { workspaceId } = await seedWorkspace();
		const madeUp = newId('conv');
		const room = env.CONVERSATION_ROOM.getByName(madeUp);
		const input = {
			workspaceId,
			conversationId: madeUp,
			authorKind: 'operator' as const,
			authorId: 'op_straight',
			text: 'straight to the room',
			attachments: [],
			clientMessageId: null,
		};
		expect(await room.post(input, null)).toEqual({ status: 'not_found' });
		expect(await room.replay(input)).toEqual({ status: 'not_found' });
		expect((await room.markRead(workspaceId, madeUp, 'operator', null, 1)).status).toBe('not_found');
		expect(await roomTables(madeUp)).toEqual([]);
	});
});

describe('a visitor writing on a closed conversation', () => {
	it('reopens it over HTTP, with conversation.updated naming the contact and the previous status', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		await closeConversation(token, conversationId);
		const feed = await openSocket('/v3/live', { Authorization: `Bearer ${token}` });
		const res = await visitorSend(visitor, conversationId, 'Me again', 'again-1');
		expect(res.status).toBe(201);
		expect(await conversationStatus(token, conversationId)).toBe('open');
		const reopened = () =>
			feed.frames.flatMap((f) =>
				f.type === 'event' && f.event.type === 'conversation.updated' ? [f.event as DomainEvent] : [],
			);
		await expect.poll(() => reopened().length).toBe(1);
		const contactId = (await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json()) as {
			contact: { id: string };
		};
		expect(reopened()[0]?.actor).toEqual({ kind: 'contact', id: contactId.contact.id });
		expect(reopened()[0]?.payload).toEqual({
			conversation: expect.objectContaining({ id: conversationId, status: 'open' }),
			changed: ['status'],
			changes: { status: { from: 'closed', to: 'open' } },
		});
		// A retry of the same message changes nothing more.
		expect((await visitorSend(visitor, conversationId, 'Me again', 'again-1')).status).toBe(201);
		const list = await api(token, 'GET', '/v3/conversations?status=open');
		expect(((await list.json()) as { data: Array<{ id: string }> }).data.map((c) => c.id)).toContain(conversationId);
	});

	it('reopens it over the socket too', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		await closeConversation(token, conversationId);
		const socket = await visitorSocket(visitor, conversationId, { synced: false });
		socket.send({ type: 'message', text: 'Hello? Still there?', clientMessageId: 'socket-again' });
		expect((await socket.next('ack')).message.seq).toBe(2);
		// Reopened by the flush that copies the message to D1, which follows the ack.
		await expect.poll(() => conversationStatus(token, conversationId)).toBe('open');
	});

	it('is refused with 409 over HTTP and the socket when the workspace has visitors start a new one', async () => {
		const { workspaceId, token, visitor, conversationId } = await liveConversation();
		const saved = await api(token, 'PUT', '/v3/widget/settings', { closedConversationReply: 'new' });
		expect(saved.status).toBe(200);
		const config = await widgetApi('GET', `/widget/${workspaceId}/config`);
		expect(((await config.json()) as { closedConversationReply: string }).closedConversationReply).toBe('new');
		await closeConversation(token, conversationId);
		const refused = await expectError(await visitorSend(visitor, conversationId, 'Me again', 'again-2'), 409);
		expect(refused.message).toContain('start a new conversation');
		const socket = await visitorSocket(visitor, conversationId, { synced: false });
		socket.send({ type: 'message', text: 'And over the socket', clientMessageId: 'again-3' });
		expect(await socket.next('error')).toMatchObject({ statusCode: 409, clientMessageId: 'again-3' });
		expect(await conversationStatus(token, conversationId)).toBe('closed');
		const messages = await api(token, 'GET', `/v3/conversations/${conversationId}/messages`);
		expect(((await messages.json()) as { data: unknown[] }).data).toHaveLength(1);
	});

	it("leaves it closed when an operator writes (the team's own follow-up does not reopen it)", async () => {
		const { token, conversationId } = await liveConversation();
		await closeConversation(token, conversationId);
		expect((await api(token, 'POST', '/v3/messages', { conversationId, text: 'Closing note' })).status).toBe(201);
		expect(await conversationStatus(token, conversationId)).toBe('closed');
	});
});

describe('retried sends', () => {
	it('returns the first message for an identical retry of a text holding a lone surrogate', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const text = 'broken \uD800 pair';
		const first = await api(token, 'POST', '/v3/messages', { conversationId, text }, { 'Idempotency-Key': 'lone' });
		expect(first.status).toBe(201);
		const again = await api(token, 'POST', '/v3/messages', { conversationId, text }, { 'Idempotency-Key': 'lone' });
		expect(again.status).toBe(201);
		expect(again.headers.get('Idempotent-Replayed')).toBe('true');
		const [a, b] = (await Promise.all([first.json(), again.json()])) as Array<{ id: string; text: string }>;
		expect(b?.id).toBe(a?.id);
		expect(a?.text).toBe('broken \uFFFD pair');
		const fromVisitor = await visitorSend(visitor, conversationId, text, 'lone-v');
		const visitorAgain = await visitorSend(visitor, conversationId, text, 'lone-v');
		expect([fromVisitor.status, visitorAgain.status]).toEqual([201, 201]);
	});

	it("does not count a visitor's retries of one clientMessageId against the 20-a-minute budget", async () => {
		await awayFromMinuteBoundary();
		const { visitor, conversationId } = await liveConversation();
		const statuses: number[] = [];
		for (let i = 0; i < 25; i++) statuses.push((await visitorSend(visitor, conversationId, 'Once', 'retry-me')).status);
		statuses.push((await visitorSend(visitor, conversationId, 'Something new', 'new-one')).status);
		expect(statuses).toEqual(Array(26).fill(201));
	});

	it('does not count retries of a conversation start (its first clientMessageId) either', async () => {
		await awayFromMinuteBoundary();
		const { workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const start = () =>
			widgetApi(
				'POST',
				`/widget/${workspaceId}/conversations`,
				{ message: { text: 'First words', clientMessageId: 'start-1' } },
				visitor.session,
				{ 'CF-Connecting-IP': visitor.ip },
			);
		const statuses: number[] = [];
		for (let i = 0; i < 25; i++) statuses.push((await start()).status);
		const res = await start();
		statuses.push(res.status);
		const { conversation } = (await res.json()) as { conversation: { id: string } };
		statuses.push((await visitorSend(visitor, conversation.id, 'Something new', 'after-start')).status);
		expect(statuses).toEqual(Array(27).fill(201));
	});
});
