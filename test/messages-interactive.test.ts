import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ConversationRoom } from '../durable-objects/conversation-room';
import { SCHEMA_VERSION, SCHEMA_VERSION_KEY } from '../durable-objects/room-schema';
import { messages } from '../src/db/schema';
import { postMessage } from '../src/domain/conversations/live';
import type { Interactive } from '../src/domain/conversations/messages';
import { Invalid } from '../src/lib/errors';
import { newId } from '../src/lib/ids';
import { domainEventSchema } from '../src/model/events';
import {
	api,
	db,
	expectError,
	seedConversation,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
	type Visitor,
	widgetApi,
} from './factories';
import { openSocket } from './sockets';

interface Message {
	id: string;
	seq: number;
	text: string;
	authorKind: string;
	interactive: Interactive | null;
}

const KINDS: Array<[string, Interactive]> = [
	['quick-reply buttons', { type: 'buttons', buttons: [{ label: 'Sales' }, { label: 'Support' }] }],
	['a data-entry prompt', { type: 'input', input: 'email', placeholder: 'you@example.com' }],
	['a rating', { type: 'rating', max: 5 }],
];

/** A workspace with a visitor's conversation (message 1 is the visitor's plain "Hello"). */
async function visitorConversation() {
	const { workspaceId, token } = await seedWorkspace();
	const visitor = await startVisitor(workspaceId);
	const conversationId = await startVisitorConversation(visitor, 'Hello');
	return { workspaceId, token, visitor, conversationId };
}

function visitorSocket(visitor: Visitor, conversationId: string, after = 0) {
	return openSocket(
		`/widget/${visitor.workspaceId}/conversations/${conversationId}/live?session=${visitor.session}&after=${after}`,
		{ 'CF-Connecting-IP': visitor.ip },
	);
}

async function apiHistory(token: string, conversationId: string) {
	const res = await api(token, 'GET', `/v3/conversations/${conversationId}/messages?limit=100`);
	expect(res.status).toBe(200);
	return ((await res.json()) as { data: Message[] }).data;
}

async function widgetHistory(visitor: Visitor, conversationId: string) {
	const res = await widgetApi(
		'GET',
		`/widget/${visitor.workspaceId}/conversations/${conversationId}/messages`,
		undefined,
		visitor.session,
		{ 'CF-Connecting-IP': visitor.ip },
	);
	expect(res.status).toBe(200);
	return ((await res.json()) as { data: Message[] }).data;
}

describe('POST /v3/messages with an interactive message', () => {
	it.each(KINDS)('carries %s through the API, the history, the widget history and the socket', async (_, kind) => {
		const { token, visitor, conversationId } = await visitorConversation();
		const socket = await visitorSocket(visitor, conversationId);
		await socket.next('synced');
		const res = await api(token, 'POST', '/v3/messages', { conversationId, text: 'A question', interactive: kind });
		expect(res.status).toBe(201);
		const sent = (await res.json()) as Message;
		expect(sent).toMatchObject({ seq: 2, text: 'A question', authorKind: 'operator', interactive: kind });

		const frame = await socket.next('message', (f) => f.message.seq === 2);
		expect(frame.message.interactive).toEqual(kind);
		expect((await apiHistory(token, conversationId)).map((m) => m.interactive)).toEqual([null, kind]);
		expect((await widgetHistory(visitor, conversationId)).map((m) => m.interactive)).toEqual([null, kind]);
	});

	it('announces it in the message.created event', async () => {
		const { token, conversationId } = await visitorConversation();
		const res = await api(token, 'POST', '/v3/messages', {
			conversationId,
			text: 'How did we do?',
			interactive: { type: 'rating', max: 5 },
		});
		const { id } = (await res.json()) as Message;
		await expect
			.poll(async () => {
				const row = await env.DB.prepare(
					"SELECT json_extract(payload, '$.message.interactive') AS interactive FROM events WHERE type = 'message.created' AND json_extract(payload, '$.message.id') = ?",
				)
					.bind(id)
					.first<{ interactive: string }>();
				return row && JSON.parse(row.interactive);
			})
			.toEqual({ type: 'rating', max: 5 });
	});

	it('still parses a message.created event queued before the field existed', () => {
		const message = { id: 'msg_1', conversationId: 'conv_1', seq: 1, authorKind: 'operator', authorId: null };
		const queued = {
			id: 'evt_1',
			type: 'message.created',
			workspaceId: 'ws_1',
			occurredAt: '2026-11-21T12:00:00.000Z',
			payload: { message: { ...message, text: 'Hi', attachmentCount: 0, createdAt: '2026-11-21T12:00:00.000Z' } },
		};
		const parsed = domainEventSchema.parse(queued);
		expect(parsed.type === 'message.created' && parsed.payload.message.interactive).toBeNull();
	});

	it('returns the stored interactive for a replayed Idempotency-Key, and refuses the key for another one', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const headers = { 'Idempotency-Key': 'pick-a-team' };
		const body = {
			conversationId,
			text: 'Who do you want to talk to?',
			interactive: { type: 'buttons', buttons: [{ label: 'Sales' }, { label: 'Support' }] },
		};
		const first = await api(token, 'POST', '/v3/messages', body, headers);
		const retry = await api(token, 'POST', '/v3/messages', body, headers);
		expect(retry.status).toBe(201);
		expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
		expect(await retry.json()).toEqual(await first.json());

		const otherButtons = { ...body, interactive: { type: 'buttons', buttons: [{ label: 'Billing' }] } };
		await expectError(await api(token, 'POST', '/v3/messages', otherButtons, headers), 422);
		const plain = { conversationId, text: body.text };
		await expectError(await api(token, 'POST', '/v3/messages', plain, headers), 422);
		expect(await apiHistory(token, conversationId)).toHaveLength(1);
	});

	it.each([
		['eleven buttons', { type: 'buttons', buttons: Array.from({ length: 11 }, (_, i) => ({ label: `B${i}` })) }],
		['no buttons', { type: 'buttons', buttons: [] }],
		['a blank label', { type: 'buttons', buttons: [{ label: '  ' }] }],
		['an 81-character label', { type: 'buttons', buttons: [{ label: 'x'.repeat(81) }] }],
		['twice the same label', { type: 'buttons', buttons: [{ label: 'Yes' }, { label: 'Yes' }] }],
		['an unknown type', { type: 'carousel', items: [] }],
		['an unknown input kind', { type: 'input', input: 'telepathy' }],
		['an 81-character placeholder', { type: 'input', input: 'text', placeholder: 'x'.repeat(81) }],
		['a rating out of 7', { type: 'rating', max: 7 }],
		['an unknown field', { type: 'rating', max: 5, reason: true }],
	])('refuses %s with 422 and stores nothing', async (_, interactive) => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const res = await api(token, 'POST', '/v3/messages', { conversationId, text: 'Pick one', interactive });
		expect((await expectError(res, 422)).message).toContain('json.interactive');
		expect(await apiHistory(token, conversationId)).toEqual([]);
	});

	it('takes null as a plain message', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const res = await api(token, 'POST', '/v3/messages', { conversationId, text: 'Plain', interactive: null });
		expect(res.status).toBe(201);
		expect(((await res.json()) as Message).interactive).toBeNull();
	});
});

describe('visitors and interactive messages', () => {
	it('cannot send one: the widget endpoints and socket frames are text-only', async () => {
		const { token, visitor, conversationId } = await visitorConversation();
		const rating = { type: 'rating', max: 5 };
		const sent = await widgetApi(
			'POST',
			`/widget/${visitor.workspaceId}/conversations/${conversationId}/messages`,
			{ text: '5', clientMessageId: 'c-2', interactive: rating },
			visitor.session,
			{ 'CF-Connecting-IP': visitor.ip },
		);
		await expectError(sent, 422);
		const socket = await visitorSocket(visitor, conversationId);
		socket.send({ type: 'message', text: '5', clientMessageId: 'c-3', interactive: rating });
		expect(await socket.next('error')).toMatchObject({ statusCode: 422 });
		expect(await apiHistory(token, conversationId)).toHaveLength(1);
	});

	it('answers with an ordinary message', async () => {
		const { token, visitor, conversationId } = await visitorConversation();
		await api(token, 'POST', '/v3/messages', {
			conversationId,
			text: 'Rate us',
			interactive: { type: 'rating', max: 5 },
		});
		const socket = await visitorSocket(visitor, conversationId);
		socket.send({ type: 'message', text: '4', clientMessageId: 'rating-answer' });
		expect((await socket.next('ack')).message).toMatchObject({ seq: 3, text: '4', interactive: null });
	});
});

describe('postMessage (the path bots will take)', () => {
	it('stores a bot message with its interactive, and validates what the API did not', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const base = { workspaceId, conversationId, authorId: null, attachments: [], clientMessageId: null };
		const posted = await postMessage(env, {
			...base,
			authorKind: 'bot',
			text: 'When should we call you?',
			interactive: { type: 'input', input: 'datetime' },
		});
		expect(posted.message).toMatchObject({ authorKind: 'bot', interactive: { type: 'input', input: 'datetime' } });

		const wrong = { type: 'rating', max: 7 } as unknown as Interactive;
		await expect(postMessage(env, { ...base, authorKind: 'bot', text: 'Rate', interactive: wrong })).rejects.toThrow(
			Invalid,
		);
		const fromContact = postMessage(env, {
			...base,
			authorKind: 'contact',
			text: 'Rate',
			interactive: { type: 'rating', max: 5 },
		});
		await expect(fromContact).rejects.toThrow(Invalid);
		expect((await apiHistory(token, conversationId)).map((m) => m.text)).toEqual(['When should we call you?']);
	});
});

/** A conversation whose room stored (and copied to D1) one message sent through the API; its room's stub. */
async function roomWithMessage(text: string) {
	const { workspaceId, token } = await seedWorkspace();
	const conversationId = await seedConversation(workspaceId);
	expect((await api(token, 'POST', '/v3/messages', { conversationId, text })).status).toBe(201);
	return { token, conversationId, stub: env.CONVERSATION_ROOM.getByName(conversationId) };
}

describe('the conversation room and the interactive column', () => {
	it('starts without its DDL once at the current schema version, and migrates a room stored without one', async () => {
		const { stub } = await roomWithMessage('Hello');
		const hasTimers = () =>
			runInDurableObject(
				stub,
				(_instance, state) =>
					state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'timers'").toArray()
						.length > 0,
			);
		expect(await runInDurableObject(stub, (_i, state) => state.storage.kv.get(SCHEMA_VERSION_KEY))).toBe(
			SCHEMA_VERSION,
		);
		// A table gone behind the room's back shows whether a start runs the DDL: at the current version it does not.
		await runInDurableObject(stub, (_instance, state) => {
			state.storage.sql.exec('DROP TABLE timers');
			new ConversationRoom(state, env);
		});
		expect(await hasTimers()).toBe(false);
		// Without a stored version (as an older release left it), the start runs the DDL again.
		await runInDurableObject(stub, (_instance, state) => {
			state.storage.kv.delete(SCHEMA_VERSION_KEY);
			new ConversationRoom(state, env);
		});
		expect(await hasTimers()).toBe(true);
	});

	it('imports interactive messages from D1 on first use', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const buttons: Interactive = { type: 'buttons', buttons: [{ label: 'Yes' }, { label: 'No' }] };
		const now = Date.now();
		await db.insert(messages).values({
			id: newId('msg', now),
			workspaceId,
			conversationId,
			seq: 1,
			authorKind: 'bot',
			authorId: null,
			body: 'Still there?',
			attachments: [],
			interactive: buttons,
			clientMessageId: null,
			createdAt: now,
		});
		const socket = await openSocket(`/v3/conversations/${conversationId}/live?after=0`, {
			Authorization: `Bearer ${token}`,
		});
		expect((await socket.next('message')).message).toMatchObject({ seq: 1, interactive: buttons });
	});

	it('adds the column to a room whose log was created before it, and keeps its messages', async () => {
		const { token, conversationId, stub } = await roomWithMessage('Before the upgrade');
		const columns = () =>
			runInDurableObject(stub, (_instance, state) =>
				state.storage.sql
					.exec<{ name: string }>('PRAGMA table_info(log)')
					.toArray()
					.map((c) => c.name),
			);
		// The log as rooms created by the previous release have it: the same table without `interactive`.
		await runInDurableObject(stub, (_instance, state) => {
			const sql = state.storage.sql;
			sql.exec(`CREATE TABLE log_before (
				seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, author_kind TEXT NOT NULL, author_id TEXT,
				body TEXT NOT NULL, attachments TEXT NOT NULL, client_message_id TEXT UNIQUE,
				created_at INTEGER NOT NULL, in_d1 INTEGER NOT NULL DEFAULT 0)`);
			sql.exec(
				'INSERT INTO log_before SELECT seq, id, author_kind, author_id, body, attachments, client_message_id, created_at, in_d1 FROM log',
			);
			sql.exec('DROP TABLE log');
			sql.exec('ALTER TABLE log_before RENAME TO log');
			sql.exec('CREATE INDEX log_not_in_d1 ON log (seq) WHERE in_d1 = 0');
			// That release kept no schema version.
			state.storage.kv.delete(SCHEMA_VERSION_KEY);
		});
		expect(await columns()).not.toContain('interactive');

		// The object starting again on the new release migrates in its constructor.
		await runInDurableObject(stub, (_instance, state) => {
			new ConversationRoom(state, env);
		});
		expect(await columns()).toContain('interactive');

		const rating = { type: 'rating', max: 5 };
		const res = await api(token, 'POST', '/v3/messages', { conversationId, text: 'After', interactive: rating });
		expect(res.status).toBe(201);
		expect((await apiHistory(token, conversationId)).map((m) => [m.text, m.interactive])).toEqual([
			['Before the upgrade', null],
			['After', rating],
		]);
		const socket = await openSocket(`/v3/conversations/${conversationId}/live?after=0`, {
			Authorization: `Bearer ${token}`,
		});
		await socket.next('synced');
		expect(socket.frames.flatMap((f) => (f.type === 'message' ? [f.message.interactive] : []))).toEqual([null, rating]);
	});
});
