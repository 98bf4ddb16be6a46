import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ConversationRoom, SOCKET_FLUSH_DELAY_MS } from '../durable-objects/conversation-room';
import { KEEP_WATCHDOG_MS } from '../durable-objects/room-outbox';
import { liveConversationWithoutMail } from './email-continuation-helpers';
import {
	api,
	d1Timing,
	expectError,
	liveConversation,
	reply,
	seedConversation,
	seedOperator,
	seedWorkspace,
	settleRoom,
	startVisitor,
	startVisitorConversation,
	storedTexts,
	type Visitor,
	widgetApi,
	withTableOffline,
} from './factories';
import { openSocket, tryUpgrade, visitorSocket } from './sockets';

function liveVisitorSocket(visitor: Visitor, conversationId: string, after = 0) {
	return visitorSocket(visitor, conversationId, { after, synced: false });
}

/** What the burst test reads inside the room: the D1 statements its outbox has sent. */
type RoomInternals = { outbox: { statementsSent: number } };

function operatorSocket(token: string, conversationId: string, after = 0) {
	return openSocket(`/v3/conversations/${conversationId}/live?after=${after}`, { Authorization: `Bearer ${token}` });
}

async function storedSeqs(token: string, conversationId: string) {
	const res = await api(token, 'GET', `/v3/conversations/${conversationId}/messages?limit=100`);
	return ((await res.json()) as { data: Array<{ seq: number; text: string }> }).data;
}

describe('conversation WebSockets', () => {
	it('delivers every message to two sockets on one conversation, in order, exactly once', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const contact = await liveVisitorSocket(visitor, conversationId);
		const operator = await operatorSocket(token, conversationId);
		for (let i = 1; i <= 5; i++) await reply(token, conversationId, `answer ${i}`);
		await contact.next('message', (f) => f.message.seq === 6);
		await operator.next('message', (f) => f.message.seq === 6);
		expect(contact.messageSeqs()).toEqual([1, 2, 3, 4, 5, 6]);
		expect(operator.messageSeqs()).toEqual([1, 2, 3, 4, 5, 6]);
		expect((await storedSeqs(token, conversationId)).map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
	});

	it('sends a reconnecting socket exactly the messages after the seq it saw, then live ones', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		for (let i = 1; i <= 4; i++) await reply(token, conversationId, `answer ${i}`);
		const socket = await liveVisitorSocket(visitor, conversationId, 2);
		const synced = await socket.next('synced');
		expect(synced.lastSeq).toBe(5);
		expect(socket.messageSeqs()).toEqual([3, 4, 5]);
		await reply(token, conversationId, 'live one');
		await socket.next('message', (f) => f.message.seq === 6);
		expect(socket.messageSeqs()).toEqual([3, 4, 5, 6]);
	});

	it('acks a burst of socket sends at once and copies them to D1 in one write a moment later', async () => {
		const { token, conversationId } = await liveConversation();
		const operator = await operatorSocket(token, conversationId);
		await operator.next('synced');
		await settleRoom(conversationId);
		const room = env.CONVERSATION_ROOM.getByName(conversationId);
		const statementsSent = () =>
			runInDurableObject(room, (instance) => (instance as unknown as RoomInternals).outbox.statementsSent);
		const before = await statementsSent();
		// Wide enough that however slowly this machine takes the eight frames, the copy waits for all of them.
		ConversationRoom.socketFlushDelayMs = 2_000;
		try {
			for (let i = 1; i <= 8; i++) operator.send({ type: 'message', text: `burst ${i}`, clientMessageId: `b-${i}` });
			await expect.poll(() => operator.frames.filter((f) => f.type === 'ack').length).toBe(8);
			// Every ack came before any copy to D1.
			expect(await statementsSent()).toBe(before);
			// D1 read directly: polling the API for two seconds would spend the token's rate limit.
			const inD1 = () =>
				env.DB.prepare('SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ?')
					.bind(conversationId)
					.first<{ n: number }>()
					.then((row) => row?.n);
			await expect.poll(inD1, { interval: 100 }).toBe(9);
			// Then one insert statement for the eight messages and one update of the conversation's summary.
			expect((await statementsSent()) - before).toBe(2);
		} finally {
			ConversationRoom.socketFlushDelayMs = SOCKET_FLUSH_DELAY_MS;
		}
	});

	it('declines the compression a client offers, on conversation and inbox sockets alike', async () => {
		const { token, conversationId } = await liveConversation();
		const offer = { Authorization: `Bearer ${token}`, 'Sec-WebSocket-Extensions': 'permessage-deflate' };
		for (const path of [`/v3/conversations/${conversationId}/live`, '/v3/live']) {
			const res = await tryUpgrade(path, offer);
			expect(res.status).toBe(101);
			// No extension agreed (wrangler.toml's no_web_socket_compression): no frame is deflated.
			expect(res.headers.get('Sec-WebSocket-Extensions')).toBeNull();
			res.webSocket?.accept();
			res.webSocket?.close(1000, 'done');
		}
	});

	it('stores one message for a client message id sent twice, and acks both with it', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const socket = await liveVisitorSocket(visitor, conversationId);
		socket.send({ type: 'message', text: 'only once', clientMessageId: 'c-1' });
		socket.send({ type: 'message', text: 'only once', clientMessageId: 'c-1' });
		await socket.next('ack');
		await expect.poll(() => socket.frames.filter((f) => f.type === 'ack').length).toBe(2);
		const acks = socket.frames.flatMap((f) => (f.type === 'ack' ? [f.message.id] : []));
		expect(new Set(acks).size).toBe(1);
		const stored = await storedSeqs(token, conversationId);
		expect(stored.filter((m) => m.text === 'only once')).toHaveLength(1);
	});

	it('relays typing and read receipts to the other side without storing them as messages', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const contact = await liveVisitorSocket(visitor, conversationId);
		const operator = await operatorSocket(token, conversationId);
		contact.send({ type: 'typing', typing: true });
		const typing = await operator.next('typing');
		expect(typing).toMatchObject({ author: 'contact', typing: true });
		expect(contact.frames.some((f) => f.type === 'typing')).toBe(false);

		const unread = async () => {
			const res = await api(token, 'GET', `/v3/conversations/${conversationId}`);
			return ((await res.json()) as { unreadByOperators: number }).unreadByOperators;
		};
		expect(await unread()).toBe(1);
		operator.send({ type: 'read', seq: 1 });
		expect(await contact.next('read')).toMatchObject({ reader: 'operator', seq: 1 });
		await expect.poll(unread).toBe(0);
		expect(await storedSeqs(token, conversationId)).toHaveLength(1);
	});

	it('keeps both unread counts exact through messages of each side and read receipts, counted or carried', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const counts = async () => {
			const res = await api(token, 'GET', `/v3/conversations/${conversationId}`);
			const { unreadByOperators, unreadByContact } = (await res.json()) as Record<string, number>;
			return [unreadByOperators, unreadByContact];
		};
		const contact = await liveVisitorSocket(visitor, conversationId);
		contact.send({ type: 'message', text: 'second from the visitor', clientMessageId: 'v-2' });
		await contact.next('ack', (f) => f.clientMessageId === 'v-2');
		await reply(token, conversationId, 'an answer');
		await reply(token, conversationId, 'another answer');
		expect(await counts()).toEqual([2, 2]);
		const operator = await operatorSocket(token, conversationId);
		operator.send({ type: 'read', seq: 2 });
		await contact.next('read');
		contact.send({ type: 'message', text: 'third from the visitor', clientMessageId: 'v-3' });
		// Its own ack: `next` finds the first matching frame ever received, and v-2's is there already. Waiting
		// for that one let the reply below race this message into the room (then seq 5, not 6): a loaded machine
		// now and then read [0, 3], the summary written before this message was stored.
		await contact.next('ack', (f) => f.clientMessageId === 'v-3');
		await reply(token, conversationId, 'a third answer');
		await runDurableObjectAlarm(env.CONVERSATION_ROOM.getByName(conversationId));
		expect(await counts()).toEqual([1, 3]);
		// A new instance counts afresh from storage, and goes on from there.
		await runInDurableObject(env.CONVERSATION_ROOM.getByName(conversationId), (instance) => {
			(instance as unknown as { store: { unread: unknown } }).store.unread = null;
		});
		await reply(token, conversationId, 'a fourth answer');
		expect(await counts()).toEqual([1, 4]);
	});

	it('answers a bad frame with an error frame and keeps the socket open', async () => {
		const { visitor, conversationId } = await liveConversation();
		const socket = await liveVisitorSocket(visitor, conversationId);
		socket.send({ type: 'shout' });
		expect(await socket.next('error')).toMatchObject({ statusCode: 422, error: 'Unprocessable Entity' });
		socket.send({ type: 'message', text: 'x'.repeat(4001), clientMessageId: 'long' });
		expect(await socket.next('error', (f) => f.clientMessageId === 'long')).toMatchObject({ statusCode: 422 });
		socket.send({ type: 'message', text: 'still here', clientMessageId: 'ok' });
		expect((await socket.next('ack')).message.text).toBe('still here');
	});

	it('lets an operator send on a socket only with messages:send', async () => {
		const { workspaceId, token, conversationId } = await liveConversation();
		const reader = await seedOperator(workspaceId, ['conversations:read']);
		const readOnly = await operatorSocket(reader.token, conversationId);
		readOnly.send({ type: 'message', text: 'not allowed', clientMessageId: 'r-1' });
		expect(await readOnly.next('error', (f) => f.clientMessageId === 'r-1')).toMatchObject({ statusCode: 403 });
		const sender = await operatorSocket(token, conversationId);
		sender.send({ type: 'message', text: 'allowed', clientMessageId: 's-1' });
		expect((await sender.next('ack')).message).toMatchObject({ seq: 2, authorKind: 'operator', text: 'allowed' });
		// A socket's send reaches D1 with the flush that follows its ack.
		await expect
			.poll(async () => (await storedSeqs(token, conversationId)).map((m) => m.text))
			.toEqual(['Hi, I need help', 'allowed']);
	});

	it("closes a visitor's sockets on reset, and refuses a send once its session has ended", async () => {
		const { workspaceId, visitor, conversationId } = await liveConversation();
		const first = await liveVisitorSocket(visitor, conversationId);
		await widgetApi('POST', `/widget/${workspaceId}/reset`, undefined, visitor.session);
		expect(await first.closed).toBe(4001);

		const other = await startVisitor(workspaceId);
		const otherConversation = await startVisitorConversation(other);
		const socket = await liveVisitorSocket(other, otherConversation);
		// Ended behind the socket's back (no reset call): the send itself must notice.
		await env.DB.prepare('UPDATE visitor_sessions SET ended_at = ? WHERE id = ?')
			.bind(Date.now(), other.visitorId)
			.run();
		socket.send({ type: 'message', text: 'still me?', clientMessageId: 'late' });
		expect(await socket.next('error', (f) => f.clientMessageId === 'late')).toMatchObject({ statusCode: 401 });
	});

	it("drops a room from the hub's list once the operator's last socket there closes", async () => {
		const { workspaceId, token, operatorId, conversationId } = await liveConversation();
		const hub = env.WORKSPACE_HUB.getByName(workspaceId);
		const listed = () =>
			runInDurableObject(hub, (_instance, state) =>
				state.storage.sql
					.exec<{ conversation_id: string }>(
						'SELECT conversation_id FROM room_sockets WHERE operator_id = ?',
						operatorId,
					)
					.toArray()
					.map((r) => r.conversation_id),
			);
		const first = await operatorSocket(token, conversationId);
		const second = await operatorSocket(token, conversationId);
		expect(await listed()).toEqual([conversationId]);
		first.close();
		await first.closed;
		expect(await listed()).toEqual([conversationId]);
		second.close();
		await second.closed;
		await expect.poll(listed).toEqual([]);
	});

	it('refuses a send on a socket whose token was revoked behind its back, at its next re-check', async () => {
		const { token, operatorId, conversationId } = await liveConversation();
		const room = await operatorSocket(token, conversationId);
		await env.DB.prepare('UPDATE api_tokens SET revoked_at = ? WHERE operator_id = ?')
			.bind(Date.now(), operatorId)
			.run();
		// Revoked outside the API (no close pushed to the sockets): the socket learns it at its next re-check,
		// at most a second later; here the last check is made a second old instead of waiting.
		await runInDurableObject(env.CONVERSATION_ROOM.getByName(conversationId), (_instance, state) => {
			for (const socket of state.getWebSockets('operator')) {
				socket.serializeAttachment({ ...socket.deserializeAttachment(), checkedAt: Date.now() - 1_001 });
			}
		});
		room.send({ type: 'message', text: 'with a revoked token', clientMessageId: 'old' });
		expect(await room.next('error', (f) => f.clientMessageId === 'old')).toMatchObject({ statusCode: 401 });
		expect(await room.closed).toBe(4001);
	});

	it("closes an operator's feed and conversation sockets before the token's replacement is answered", async () => {
		const { token, conversationId } = await liveConversation();
		const feed = await openSocket('/v3/live', { Authorization: `Bearer ${token}` });
		const room = await operatorSocket(token, conversationId);
		const res = await api(token, 'POST', '/v3/tokens/regenerate');
		expect(res.status).toBe(201);
		// Sent the moment the new token is in hand, well within the socket's one-second re-check window: the
		// replacement closed the socket already, so nothing of it is stored.
		try {
			room.send({ type: 'message', text: 'after the replacement', clientMessageId: 'late' });
		} catch {
			// A socket the test side already knows closed refuses to send: just as good.
		}
		expect(await feed.closed).toBe(4001);
		expect(await room.closed).toBe(4001);
		const { token: fresh } = (await res.json()) as { token: string };
		expect(room.frames.filter((f) => f.type === 'ack')).toEqual([]);
		expect((await storedSeqs(fresh, conversationId)).map((m) => m.text)).not.toContain('after the replacement');
	});

	// 501 messages posted one by one first: over the default 30 s beside the whole suite on two cores.
	it('cuts a very long backlog, says so, and sends the rest on the next reconnect', async () => {
		const { workspaceId, visitor, conversationId } = await liveConversation();
		const room = env.CONVERSATION_ROOM.getByName(conversationId);
		for (let i = 2; i <= 502; i++) {
			await room.post(
				{
					workspaceId,
					conversationId,
					authorKind: 'operator',
					authorId: 'op_straight',
					text: `m${i}`,
					attachments: [],
					clientMessageId: null,
				},
				null,
			);
		}
		const first = await liveVisitorSocket(visitor, conversationId);
		const cut = await first.next('synced');
		expect(cut).toEqual({ type: 'synced', lastSeq: 500, complete: false });
		expect(first.messageSeqs()).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
		const rest = await liveVisitorSocket(visitor, conversationId, cut.lastSeq);
		expect(await rest.next('synced')).toEqual({ type: 'synced', lastSeq: 502, complete: true });
		expect(rest.messageSeqs()).toEqual([501, 502]);
	}, 90_000);

	it('caps sockets per visitor without ever refusing the team', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		for (let i = 0; i < 5; i++) await liveVisitorSocket(visitor, conversationId);
		const sixth = await tryUpgrade(
			`/widget/${visitor.workspaceId}/conversations/${conversationId}/live?session=${visitor.session}`,
		);
		await expectError(sixth, 429);
		expect((await (await operatorSocket(token, conversationId)).next('synced')).lastSeq).toBe(1);
	});

	it('relays at most one typing frame a second per socket', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const contact = await liveVisitorSocket(visitor, conversationId);
		const operator = await operatorSocket(token, conversationId);
		await operator.next('synced');
		for (let i = 0; i < 3; i++) contact.send({ type: 'typing', typing: true });
		// Frames on one socket arrive in order: once the message is there, every relayed typing frame is too.
		contact.send({ type: 'message', text: 'done typing', clientMessageId: 'after-typing' });
		await operator.next('message', (f) => f.message.text === 'done typing');
		expect(operator.frames.filter((f) => f.type === 'typing')).toHaveLength(1);
	});

	it('keeps no state in memory: a fresh instance (as after hibernation) serves the open sockets', async () => {
		const { visitor, conversationId } = await liveConversation();
		const socket = await liveVisitorSocket(visitor, conversationId);
		await socket.next('synced');
		const stub = env.CONVERSATION_ROOM.getByName(conversationId);
		await runInDurableObject(stub, async (_instance: ConversationRoom, state) => {
			const woken = new ConversationRoom(state, env);
			const [server] = state.getWebSockets('contact');
			if (!server) throw new Error('the socket is not known to the object');
			await woken.webSocketMessage(
				server,
				JSON.stringify({ type: 'message', text: 'after waking', clientMessageId: 'wake-1' }),
			);
		});
		const ack = await socket.next('ack');
		expect(ack.message).toMatchObject({ seq: 2, authorKind: 'contact', text: 'after waking' });
	});

	it('refuses a socket for a conversation of another workspace, and a plain GET', async () => {
		const { conversationId } = await liveConversation();
		const stranger = await seedWorkspace();
		await expectError(
			await tryUpgrade(`/v3/conversations/${conversationId}/live`, { Authorization: `Bearer ${stranger.token}` }),
			404,
		);
		const { token } = await liveConversation();
		const plain = await api(token, 'GET', `/v3/conversations/${conversationId}/live`);
		await expectError(plain, 426);
	});
});

describe('the conversation outbox', () => {
	it('writes a backlog longer than one insert statement holds (eight rows), all of it in order', async () => {
		const { token, conversationId } = await liveConversation();
		const texts = Array.from({ length: 20 }, (_, i) => `backlog ${i + 1}`);
		await withTableOffline('messages', async () => {
			for (const text of texts) await reply(token, conversationId, text);
		});
		expect(await storedTexts(token, conversationId)).toEqual(['Hi, I need help']);
		await runDurableObjectAlarm(env.CONVERSATION_ROOM.getByName(conversationId));
		const stored = await storedSeqs(token, conversationId);
		expect(stored.map((m) => m.text)).toEqual(['Hi, I need help', ...texts]);
		expect(stored.map((m) => m.seq)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
	});

	it('acknowledges a message while D1 is failing, then writes it to D1 from the alarm', async () => {
		const { token, conversationId } = await liveConversation();
		const sent = await withTableOffline('messages', () => reply(token, conversationId, 'written while D1 was down'));
		expect(sent.seq).toBe(2);
		expect((await storedSeqs(token, conversationId)).map((m) => m.seq)).toEqual([1]);
		const stub = env.CONVERSATION_ROOM.getByName(conversationId);
		// The retry alarm fires by itself after 5 s; run it now (it may already have run on a slow machine).
		await runDurableObjectAlarm(stub);
		const stored = await storedSeqs(token, conversationId);
		expect(stored.map((m) => [m.seq, m.text])).toEqual([
			[1, 'Hi, I need help'],
			[2, 'written while D1 was down'],
		]);
		const summary = await api(token, 'GET', `/v3/conversations/${conversationId}`);
		expect(((await summary.json()) as { lastMessageSeq: number }).lastMessageSeq).toBe(2);
		// The alarm's run claimed the outbox timer: what its flush sent is recorded at once, not left for later.
		const unrecorded = await runInDurableObject(stub, (_instance, state) => ({
			notInD1: state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM log WHERE in_d1 = 0').one().n,
			events: state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM outbox').one().n,
		}));
		expect(unrecorded).toEqual({ notInD1: 0, events: 0 });
	});

	it('keeps an event the Queue refused and sends it from the alarm', async () => {
		const { token, conversationId } = await liveConversation();
		const stub = env.CONVERSATION_ROOM.getByName(conversationId);
		// Inject the failure at the binding: the Queue itself cannot be made to refuse a small message.
		await runInDurableObject(stub, (instance: ConversationRoom) => {
			const refusing = { ...env, EVENTS: { send: refuse, sendBatch: refuse } };
			(instance as unknown as { env: Env }).env = refusing as unknown as Env;
			(instance as unknown as { outbox: { env: Env } }).outbox.env = refusing as unknown as Env;
		});
		const sent = await reply(token, conversationId, 'event held back');
		const pending = await runInDurableObject(stub, (_i, state) =>
			state.storage.sql.exec<{ event: string }>('SELECT event FROM outbox').toArray(),
		);
		expect(pending.map((p) => (JSON.parse(p.event) as { type: string }).type)).toEqual(['message.created']);
		await runInDurableObject(stub, (instance: ConversationRoom) => {
			(instance as unknown as { env: Env }).env = env;
			(instance as unknown as { outbox: { env: Env } }).outbox.env = env;
		});
		// The retry alarm fires by itself after 5 s; run it now (it may already have run on a slow machine).
		await runDurableObjectAlarm(stub);
		await expect
			.poll(async () => {
				const row = await env.DB.prepare(
					"SELECT COUNT(*) AS n FROM events WHERE type = 'message.created' AND json_extract(payload, '$.message.id') = ?",
				)
					.bind(sent.id)
					.first<{ n: number }>();
				return row?.n;
			})
			.toBe(1);
	});
});

describe('events after a Queue outage', () => {
	it("sends a backlog of long messages' events in several batches instead of failing forever", async () => {
		const { workspaceId, conversationId } = await liveConversation();
		const stub = env.CONVERSATION_ROOM.getByName(conversationId);
		const setEnv = (value: Env) =>
			runInDurableObject(stub, (instance: ConversationRoom) => {
				(instance as unknown as { env: Env }).env = value;
				(instance as unknown as { outbox: { env: Env } }).outbox.env = value;
			});
		await setEnv({ ...env, EVENTS: { send: refuse, sendBatch: refuse } } as unknown as Env);
		const long = 'x'.repeat(9_000);
		// 40 events of 9 KB: over the Queue's 256 KB batch cap (and miniflare's 288 KB), so one batch would fail.
		for (let i = 0; i < 40; i++) {
			await stub.post(
				{
					workspaceId,
					conversationId,
					authorKind: 'operator',
					authorId: 'op_straight',
					text: `${i}${long}`,
					attachments: [],
					clientMessageId: null,
				},
				null,
			);
		}
		await setEnv(env);
		// The retry alarm fires by itself after 5 s; run it now (it may already have run on a slow machine).
		await runDurableObjectAlarm(stub);
		await expect
			.poll(async () => {
				const row = await env.DB.prepare(
					"SELECT COUNT(*) AS n FROM events WHERE type = 'message.created' AND json_extract(payload, '$.message.conversationId') = ?",
				)
					.bind(conversationId)
					.first<{ n: number }>();
				return row?.n;
			})
			.toBe(41);
	});
});

describe('the outbox alarm', () => {
	it('stays while messages come, so that they write no alarm, and is gone once the room has been idle', async () => {
		const { token, conversationId } = await liveConversationWithoutMail();
		const stub = env.CONVERSATION_ROOM.getByName(conversationId);
		const alarm = () => runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
		await reply(token, conversationId, 'first');
		const armed = await alarm();
		expect(armed).toBeGreaterThan(Date.now());
		// Everything reached D1 (the reply waited for it): the next message finds the timer and keeps it.
		await reply(token, conversationId, 'second');
		expect(await alarm()).toBe(armed);
		await expect.poll(alarm, { timeout: KEEP_WATCHDOG_MS + 5_000, interval: 500 }).toBeNull();
	});

	it('lets a retried send finish what a first attempt left undone, even with its alarm lost', async () => {
		const { token, conversationId } = await liveConversation();
		await withTableOffline('messages', async () => {
			await reply(token, conversationId, 'retried', 'key-1');
		});
		const stub = env.CONVERSATION_ROOM.getByName(conversationId);
		// As if the object had been reset before its retry alarm was stored.
		await runInDurableObject(stub, (_instance, state) => state.storage.deleteAlarm());
		const again = await api(
			token,
			'POST',
			'/v3/messages',
			{ conversationId, text: 'retried' },
			{ 'Idempotency-Key': 'key-1' },
		);
		expect(again.headers.get('Idempotent-Replayed')).toBe('true');
		expect((await storedSeqs(token, conversationId)).map((m) => m.text)).toEqual(['Hi, I need help', 'retried']);
	});
});

async function refuse(): Promise<never> {
	throw new Error('Queue send failed (injected)');
}

describe('the cost of a send', () => {
	it("counts the room's D1 statements in Server-Timing: one read on first use, then one batch per message", async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const send = async (text: string) => {
			const res = await api(token, 'POST', '/v3/messages', { conversationId, text });
			return d1Timing(res);
		};
		// The token's first read by its gate, the room's first read of D1 (one batch of two: it is also the
		// existence check, so the Worker makes none), then its write: the insert and the summary update (which
		// also returns the workspace's feed flag); then only the write (the gate knows the token by then).
		expect(await send('first')).toBe('d1;desc="5 queries"');
		expect(await send('second')).toBe('d1;desc="2 queries"');
	});
});

describe('GET /v3/live (the inbox feed)', () => {
	it('streams conversation.created, message.created and conversation.updated to an operator', async () => {
		const { token } = await seedWorkspace();
		const feed = await openSocket('/v3/live', { Authorization: `Bearer ${token}` });
		const created = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'feed@example.com' },
			message: { text: 'Welcome aboard' },
		});
		const { id } = (await created.json()) as { id: string };
		await api(token, 'PATCH', `/v3/conversations/${id}`, { status: 'pending' });
		const types = async () =>
			feed.frames.flatMap((f) => (f.type === 'event' ? [f.event.type] : [])).filter((t) => t !== 'conversation.read');
		await expect.poll(types).toEqual(['conversation.created', 'message.created', 'conversation.updated']);
	});

	it('carries what an inbox shows of tags and contacts, and not the CRM', async () => {
		const { token } = await seedWorkspace();
		const feed = await openSocket('/v3/live', { Authorization: `Bearer ${token}` });
		const created = await api(token, 'POST', '/v3/conversations', { contact: { email: 'tags@example.com' } });
		const { id, contactId } = (await created.json()) as { id: string; contactId: string };
		await api(token, 'PUT', `/v3/conversations/${id}/tags/vip`);
		await api(token, 'PATCH', `/v3/contacts/${contactId}`, { name: 'Tânia' });
		const duplicate = (await (await api(token, 'POST', '/v3/contacts', { name: 'T.' })).json()) as { id: string };
		await api(token, 'POST', `/v3/contacts/${contactId}/merge`, { duplicateId: duplicate.id });
		await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New'] });
		await api(token, 'POST', '/v3/deals', { funnel: 'Sales', name: 'Not for the inbox' });
		const types = async () => feed.frames.flatMap((f) => (f.type === 'event' ? [f.event.type] : []));
		await expect.poll(types).toEqual(['conversation.created', 'tag.applied', 'contact.updated', 'contact.merged']);
	});

	it("takes a browser's credential as a subprotocol next to parley.v1, and selects parley.v1", async () => {
		const { workspaceId, token, visitor, conversationId } = await liveConversation();
		const feed = await tryUpgrade('/v3/live', { 'Sec-WebSocket-Protocol': `parley.v1, bearer.${token}` });
		expect(feed.status).toBe(101);
		expect(feed.headers.get('Sec-WebSocket-Protocol')).toBe('parley.v1');
		const room = await tryUpgrade(`/v3/conversations/${conversationId}/live`, {
			'Sec-WebSocket-Protocol': `parley.v1, bearer.${token}`,
		});
		expect(room.status).toBe(101);
		expect(room.headers.get('Sec-WebSocket-Protocol')).toBe('parley.v1');

		const socket = await openSocket(`/widget/${workspaceId}/conversations/${conversationId}/live`, {
			'Sec-WebSocket-Protocol': `parley.v1, session.${visitor.session}`,
		});
		expect((await socket.next('synced')).lastSeq).toBe(1);

		// Without parley.v1 the credential is not looked for.
		await expectError(await tryUpgrade('/v3/live', { 'Sec-WebSocket-Protocol': `bearer.${token}` }), 401);
	});

	it('needs the conversations:read permission', async () => {
		const { workspaceId } = await seedWorkspace();
		const sender = await seedOperator(workspaceId, ['messages:send']);
		await expectError(await tryUpgrade('/v3/live', { Authorization: `Bearer ${sender.token}` }), 403);
	});
});
