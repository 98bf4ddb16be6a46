import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { messages } from '../src/db/schema';
import { transcriptOf } from '../src/domain/automation/core/actions/transcript';
import {
	api,
	db,
	expectError,
	liveConversation,
	reply,
	seedConversation,
	seedOperator,
	type Visitor,
	visitorSend,
	widgetApi,
} from './factories';
import { openSocket, visitorSocket } from './sockets';

/**
 * Private notes: the team's messages to itself in a conversation. Numbered and stored like any message, sent to
 * the team's sockets, never to the visitor, and no reply to the customer.
 */

interface Message {
	id: string;
	seq: number;
	text: string;
	authorKind: string;
	private: boolean;
}

async function note(token: string, conversationId: string, text: string, headers: Record<string, string> = {}) {
	const res = await api(token, 'POST', '/v3/messages', { conversationId, text, private: true }, headers);
	expect(res.status, await res.clone().text()).toBe(201);
	return (await res.json()) as Message;
}

function operatorSocket(token: string, conversationId: string, after = 0) {
	return openSocket(`/v3/conversations/${conversationId}/live?after=${after}`, { Authorization: `Bearer ${token}` });
}

async function teamHistory(token: string, conversationId: string): Promise<Message[]> {
	const res = await api(token, 'GET', `/v3/conversations/${conversationId}/messages`);
	expect(res.status).toBe(200);
	return ((await res.json()) as { data: Message[] }).data;
}

async function visitorHistory(visitor: Visitor, conversationId: string, after = 0): Promise<Message[]> {
	const path = `/widget/${visitor.workspaceId}/conversations/${conversationId}/messages?after=${after}`;
	const res = await widgetApi('GET', path, undefined, visitor.session, { 'CF-Connecting-IP': visitor.ip });
	expect(res.status).toBe(200);
	return ((await res.json()) as { data: Message[] }).data;
}

async function visitorConversations(visitor: Visitor) {
	const path = `/widget/${visitor.workspaceId}/conversations`;
	const res = await widgetApi('GET', path, undefined, visitor.session, { 'CF-Connecting-IP': visitor.ip });
	expect(res.status).toBe(200);
	const body = (await res.json()) as { data: Array<{ id: string; lastMessageSeq: number; unread: number }> };
	return body.data;
}

function summaryRow(conversationId: string) {
	return env.DB.prepare(
		'SELECT first_response_at AS firstResponseAt, waiting_since AS waitingSince, unread_by_contact AS unreadByContact, last_message_seq AS lastSeq FROM conversations WHERE id = ?',
	)
		.bind(conversationId)
		.first<{ firstResponseAt: number | null; waitingSince: number | null; unreadByContact: number; lastSeq: number }>();
}

describe('POST /v3/messages with private: true', () => {
	it('reaches the team’s sockets and history, never the visitor’s socket, history or unread count', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const contact = await visitorSocket(visitor, conversationId);
		const team = await operatorSocket(token, conversationId);
		const written = await note(token, conversationId, 'Customer is on the legacy plan, check before refunding');
		expect(written).toMatchObject({ seq: 2, authorKind: 'operator', private: true });
		expect((await team.next('message', (f) => f.message.seq === 2)).message.private).toBe(true);
		const answer = await reply(token, conversationId, 'Let me check that for you.');
		expect(answer.seq).toBe(3);
		// The visitor's socket gets the next message, and nothing of the note before it.
		await contact.next('message', (f) => f.message.seq === 3);
		expect(contact.messageSeqs()).toEqual([1, 3]);
		expect(JSON.stringify(contact.frames)).not.toContain('legacy plan');
		expect((await teamHistory(token, conversationId)).map((m) => [m.seq, m.private])).toEqual([
			[1, false],
			[2, true],
			[3, false],
		]);
		expect((await visitorHistory(visitor, conversationId)).map((m) => m.seq)).toEqual([1, 3]);
		// The note is nobody's to read: the visitor has one unread message, the reply.
		expect((await summaryRow(conversationId))?.unreadByContact).toBe(1);
		expect(await visitorConversations(visitor)).toEqual([
			expect.objectContaining({ id: conversationId, lastMessageSeq: 3, unread: 1 }),
		]);
	});

	it('leaves the visitor’s last message and unread count where they were when a note is the latest', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		await reply(token, conversationId, 'Hello!');
		await note(token, conversationId, 'Looks like a reseller');
		expect((await summaryRow(conversationId))?.lastSeq).toBe(3);
		expect(await visitorConversations(visitor)).toEqual([
			expect.objectContaining({ id: conversationId, lastMessageSeq: 2, unread: 1 }),
		]);
		// The widget reads up to the last message it has (2): nothing is left unread after the note.
		const read = await widgetApi(
			'POST',
			`/widget/${visitor.workspaceId}/conversations/${conversationId}/read`,
			{ seq: 2 },
			visitor.session,
			{ 'CF-Connecting-IP': visitor.ip },
		);
		expect(read.status).toBe(200);
		await expect.poll(async () => (await summaryRow(conversationId))?.unreadByContact).toBe(0);
	});

	it('is no first response and ends no wait; the reply after it is and does', async () => {
		const { token, conversationId } = await liveConversation();
		const before = await summaryRow(conversationId);
		expect(before?.waitingSince).not.toBeNull();
		await note(token, conversationId, 'Escalate if they ask twice');
		const afterNote = await summaryRow(conversationId);
		expect(afterNote).toMatchObject({ firstResponseAt: null, waitingSince: before?.waitingSince, lastSeq: 2 });
		const answer = await reply(token, conversationId, 'Hi! How can I help?');
		const stored = await env.DB.prepare('SELECT created_at AS at FROM messages WHERE id = ?')
			.bind(answer.id)
			.first<{ at: number }>();
		expect(await summaryRow(conversationId)).toMatchObject({ firstResponseAt: stored?.at, waitingSince: null });
	});

	it('announces message.created marked private, and refuses what a note cannot be', async () => {
		const { workspaceId, token, conversationId } = await liveConversation();
		const written = await note(token, conversationId, 'Internal only', { 'Idempotency-Key': 'note-1' });
		await expect
			.poll(async () => {
				const row = await env.DB.prepare("SELECT payload FROM events WHERE type = 'message.created' AND payload LIKE ?")
					.bind(`%${written.id}%`)
					.first<{ payload: string }>();
				return row ? (JSON.parse(row.payload) as { message: { private: boolean } }).message.private : null;
			})
			.toBe(true);
		// The same key for the same text as an ordinary message is another message: refused, not replayed.
		const retried = await api(
			token,
			'POST',
			'/v3/messages',
			{ conversationId, text: 'Internal only' },
			{ 'Idempotency-Key': 'note-1' },
		);
		await expectError(retried, 422);
		const asking = await api(token, 'POST', '/v3/messages', {
			conversationId,
			text: 'Rate us?',
			private: true,
			interactive: { type: 'rating', max: 5 },
		});
		expect((await expectError(asking, 422)).message).toContain('interactive');
		const reader = await seedOperator(workspaceId, ['conversations:read']);
		await expectError(
			await api(reader.token, 'POST', '/v3/messages', { conversationId, text: 'x', private: true }),
			403,
		);
		expect((await teamHistory(token, conversationId)).map((m) => m.seq)).toEqual([1, 2]);
	});
});

describe('a private note over the conversation socket', () => {
	it('is written by an operator’s socket, acked as private, and refused from a visitor’s', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const contact = await visitorSocket(visitor, conversationId);
		const team = await operatorSocket(token, conversationId);
		const other = await operatorSocket(token, conversationId);
		team.send({ type: 'message', text: 'VIP, be nice', clientMessageId: 'n-1', private: true });
		const ack = await team.next('ack');
		expect(ack.message).toMatchObject({ seq: 2, private: true, text: 'VIP, be nice' });
		expect((await other.next('message', (f) => f.message.seq === 2)).message.private).toBe(true);
		contact.send({ type: 'message', text: 'sneaky', clientMessageId: 'v-1', private: true });
		const refused = await contact.next('error', (f) => f.clientMessageId === 'v-1');
		expect(refused).toMatchObject({ statusCode: 422 });
		expect(refused.message).toContain('frame.private');
		team.send({ type: 'message', text: 'Hello there', clientMessageId: 'm-1' });
		await contact.next('message', (f) => f.message.seq === 3);
		expect(contact.messageSeqs()).toEqual([1, 3]);
		await expect
			.poll(async () => (await teamHistory(token, conversationId)).map((m) => m.private))
			.toEqual([false, true, false]);
	});
});

describe('the visitor’s sync around private notes', () => {
	it('resumes after a seq across a note’s gap, and says synced at the last message it may see', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		await reply(token, conversationId, 'First answer');
		await note(token, conversationId, 'note between');
		await reply(token, conversationId, 'Second answer');
		await note(token, conversationId, 'note at the end');
		// As the widget reconnects: from the last seq it showed (2), it gets exactly what it lacks (4).
		const resumed = await visitorSocket(visitor, conversationId, { after: 2, synced: false });
		expect(await resumed.next('synced')).toEqual({ type: 'synced', lastSeq: 4, complete: true });
		expect(resumed.messageSeqs()).toEqual([4]);
		// Up to date already: nothing again, and it stays live for the next message.
		const upToDate = await visitorSocket(visitor, conversationId, { after: 4, synced: false });
		expect(await upToDate.next('synced')).toEqual({ type: 'synced', lastSeq: 4, complete: true });
		await reply(token, conversationId, 'Third answer');
		await upToDate.next('message', (f) => f.message.seq === 6);
		expect(upToDate.messageSeqs()).toEqual([6]);
		expect((await visitorHistory(visitor, conversationId, 2)).map((m) => m.seq)).toEqual([4, 6]);
		// The team's socket gets everything, notes included.
		const team = await operatorSocket(token, conversationId, 0);
		expect(await team.next('synced')).toMatchObject({ lastSeq: 6 });
		expect(team.messageSeqs()).toEqual([1, 2, 3, 4, 5, 6]);
	});
});

describe('a room that imports its conversation from D1', () => {
	it('keeps the imported notes from the visitor and out of its unread count', async () => {
		const { workspaceId, token, visitor, conversationId: first } = await liveConversation();
		const { contactId } = (await (await api(token, 'GET', `/v3/conversations/${first}`)).json()) as {
			contactId: string;
		};
		// Written to D1 directly, as a room that was evicted and lost its storage would find it.
		const at = Date.now();
		const conversationId = await seedConversation(workspaceId, { contactId, lastMessageSeq: 3, unreadByContact: 1 });
		const row = (seq: number, authorKind: 'contact' | 'operator', text: string, isNote = false) => ({
			id: `msg_import_${conversationId}_${seq}`,
			workspaceId,
			conversationId,
			seq,
			authorKind,
			authorId: authorKind === 'operator' ? 'op_x' : null,
			body: text,
			attachments: [],
			private: isNote,
			createdAt: at + seq,
		});
		await db
			.insert(messages)
			.values([row(1, 'contact', 'Hi'), row(2, 'operator', 'Hello'), row(3, 'operator', 'old note', true)]);
		// The note is the latest: counting it would make the visitor's unread 2 before the reply (3 after), and
		// taking its seq as the last the visitor may see would put the visitor's read position past a reply.
		const contact = await visitorSocket(visitor, conversationId, { synced: false });
		expect(await contact.next('synced')).toMatchObject({ lastSeq: 2 });
		expect(contact.messageSeqs()).toEqual([1, 2]);
		await reply(token, conversationId, 'Anything else?');
		expect((await summaryRow(conversationId))?.unreadByContact).toBe(2);
	});
});

describe('bots and private notes', () => {
	it('lets a running bot go on after a note: a note takes over from no bot', async () => {
		const { workspaceId, token, visitor, conversationId } = await liveConversation();
		const definition = {
			start: 'email',
			steps: [
				{ id: 'email', type: 'data_entry', prompt: 'Your e-mail?', input: 'email', variable: 'email', next: 'bye' },
				{ id: 'bye', type: 'end', message: 'Thanks, {{ email }}!' },
			],
		};
		const created = await api(token, 'POST', '/v3/bots', { name: 'Bot', trigger: { kind: 'manual' }, definition });
		const { id: botId } = (await created.json()) as { id: string };
		expect((await api(token, 'POST', `/v3/bots/${botId}/publish`)).status).toBe(200);
		expect((await api(token, 'POST', `/v3/conversations/${conversationId}/bot`, { botId })).status).toBe(201);
		// Polled in D1: polling the API would spend the token's rate limit.
		const texts = async () =>
			(
				await env.DB.prepare('SELECT body FROM messages WHERE workspace_id = ? AND conversation_id = ? ORDER BY seq')
					.bind(workspaceId, conversationId)
					.all<{ body: string }>()
			).results.map((r) => r.body);
		await expect.poll(texts).toContain('Your e-mail?');
		await note(token, conversationId, 'Let the bot collect the e-mail');
		await visitorSend(visitor, conversationId, 'ana@example.com', crypto.randomUUID());
		await expect.poll(texts).toContain('Thanks, ana@example.com!');
		const runs = (await (await api(token, 'GET', `/v3/conversations/${conversationId}/bot-runs`)).json()) as {
			data: Array<{ status: string }>;
		};
		expect(runs.data[0]?.status).not.toBe('stopped');
	});
});

describe('the transcript a rule saves to the CRM', () => {
	it('keeps the notes, marked apart from what was said to the customer', async () => {
		const { workspaceId, token, conversationId } = await liveConversation();
		await note(token, conversationId, 'Wants a discount');
		await reply(token, conversationId, 'We can do 10%.');
		const lines = (await transcriptOf(db, workspaceId, conversationId))?.split('\n') ?? [];
		expect(lines.map((line) => line.replace(/^\S+ \S+ /, ''))).toEqual([
			'Customer: Hi, I need help',
			'Operator (private note): Wants a discount',
			'Operator: We can do 10%.',
		]);
	});
});
