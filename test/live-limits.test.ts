import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { maxFrameLength } from '../durable-objects/room-sockets';
import { apiTokens } from '../src/db/schema';
import { messageBuckets, visitorLimits } from '../src/domain/widget/visitor-limits';
import {
	api,
	awayFromMinuteBoundary,
	db,
	expectError,
	liveConversation,
	seedWorkspace,
	withTableOffline,
} from './factories';
import { openSocket, type TestSocket, tryUpgrade, visitorSocket } from './sockets';

/** How many hits a RateLimiter bucket holds this minute (read by spending one more under a huge limit). */
async function bucketCount(key: string): Promise<number> {
	const decision = await env.RATE_LIMITER.getByName(`widget:${key}`).hit(1_000_000, 60);
	return 1_000_000 - decision.remaining - 1;
}

async function unreadByContact(token: string, conversationId: string): Promise<number> {
	const res = await api(token, 'GET', `/v3/conversations/${conversationId}`);
	return ((await res.json()) as { unreadByContact: number }).unreadByContact;
}

/** The close code, or `error frame` when the server answered with one instead of closing. */
function closeOrError(socket: TestSocket): Promise<number | string> {
	return Promise.race([socket.closed, socket.next('error').then(() => 'error frame')]);
}

describe('conversation socket frame limits', () => {
	it('closes the socket with 1009, unparsed, on a frame longer than any valid one', async () => {
		const { visitor, conversationId } = await liveConversation();
		const socket = await visitorSocket(visitor, conversationId);
		// Not even JSON: a parser would answer an error frame; refused unread, the socket is closed instead.
		socket.socket.send('x'.repeat(100_000));
		expect(await closeOrError(socket)).toBe(1009);
	});

	it('accepts the longest valid frame: 4,000 characters, each written as a JSON escape', async () => {
		const { visitor, conversationId } = await liveConversation();
		const socket = await visitorSocket(visitor, conversationId);
		const text = 'é'.repeat(4000);
		const frame = JSON.stringify({ type: 'message', text, clientMessageId: 'longest' }).replaceAll('é', '\\u00e9');
		expect(frame.length).toBeLessThanOrEqual(maxFrameLength('contact'));
		socket.socket.send(frame);
		expect((await socket.next('ack')).message.text).toBe(text);
	});

	it('names the client id of a message refused for its shape, so the sender can drop it from its outbox', async () => {
		const { visitor, conversationId } = await liveConversation();
		const socket = await visitorSocket(visitor, conversationId);
		socket.send({ type: 'message', text: 'x'.repeat(4001), clientMessageId: 'too-long' });
		const refused = await socket.next('error');
		expect([refused.statusCode, refused.clientMessageId]).toEqual([422, 'too-long']);
		// An id that is itself invalid is not echoed.
		socket.send({ type: 'message', text: 'hi', clientMessageId: 'x'.repeat(65) });
		const second = await socket.next('error', (f) => f !== refused);
		expect([second.statusCode, second.clientMessageId]).toEqual([422, undefined]);
	});

	it('refuses a burst of message frames past the socket budget without calling the rate limiters', async () => {
		await awayFromMinuteBoundary();
		const { workspaceId, visitor, conversationId } = await liveConversation();
		const sender = { workspaceId, visitorId: visitor.visitorId, ip: visitor.ip };
		const ipBucket = messageBuckets(sender, visitorLimits(env))[1]?.key ?? '';
		// The conversation start counted once against the per-IP bucket.
		expect(await bucketCount(ipBucket)).toBe(1);
		const socket = await visitorSocket(visitor, conversationId);
		for (let i = 0; i < 30; i++) socket.send({ type: 'message', text: `flood ${i}`, clientMessageId: `f-${i}` });
		const answers = () => socket.frames.filter((f) => f.type === 'ack' || f.type === 'error');
		await expect.poll(() => answers().length).toBe(30);
		const refused = socket.frames.flatMap((f) => (f.type === 'error' ? [f] : []));
		expect(refused.every((f) => f.statusCode === 429 && f.clientMessageId?.startsWith('f-'))).toBe(true);
		expect(refused.filter((f) => f.message.includes('on one socket'))).toHaveLength(10);
		// The start, the read above, and 20 frames (the visitor's budget a minute): not 30.
		expect(await bucketCount(ipBucket)).toBe(22);
	});

	it('checks the credential of at most one read receipt a second per socket, and loses none of them', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		for (const text of ['one', 'two', 'three', 'four']) {
			expect((await api(token, 'POST', '/v3/messages', { conversationId, text })).status).toBe(201);
		}
		const socket = await visitorSocket(visitor, conversationId);
		socket.send({ type: 'read', seq: 1 });
		await socket.next('read', (f) => f.reader === 'contact' && f.seq === 1);
		// With the sessions table out of reach, a receipt that queried D1 would fail: within the second, none does.
		await withTableOffline('visitor_sessions', async () => {
			for (const seq of [2, 3, 4, 5]) socket.send({ type: 'read', seq });
			await socket.next('read', (f) => f.reader === 'contact' && f.seq === 5);
		});
		const reads = socket.frames.flatMap((f) => (f.type === 'read' && f.reader === 'contact' ? [f.seq] : []));
		expect(reads).toEqual([1, 2, 3, 4, 5]);
		// The receipts after the first reach D1 with the flush that follows (run now rather than waited for).
		await runDurableObjectAlarm(env.CONVERSATION_ROOM.getByName(conversationId));
		await expect.poll(() => unreadByContact(token, conversationId)).toBe(0);
	});

	it('answers 25 retries of one clientMessageId without spending the budget, then takes a new message', async () => {
		await awayFromMinuteBoundary();
		const { visitor, conversationId } = await liveConversation();
		const socket = await visitorSocket(visitor, conversationId);
		const frame = { type: 'message', text: 'Is my order late?', clientMessageId: 'retried' } as const;
		for (let i = 0; i < 25; i++) socket.send(frame);
		await expect.poll(() => socket.frames.filter((f) => f.type === 'ack' || f.type === 'error').length).toBe(25);
		socket.send({ type: 'message', text: 'A new question', clientMessageId: 'new-one' });
		const ack = await socket.next('ack', (f) => f.clientMessageId === 'new-one');
		expect(ack.message.text).toBe('A new question');
		expect(socket.frames.filter((f) => f.type === 'error')).toEqual([]);
		const seqs = socket.frames.flatMap((f) =>
			f.type === 'ack' && f.clientMessageId === 'retried' ? [f.message.seq] : [],
		);
		expect(new Set(seqs).size).toBe(1);
	});

	it('ignores, at no cost, a read receipt that moves nothing', async () => {
		const { visitor, conversationId } = await liveConversation();
		const socket = await visitorSocket(visitor, conversationId);
		// The visitor's own message: nothing of the team's to read, so nothing is refused or recorded. With the
		// session ended behind the socket's back, a receipt that checked the credential would get a 401.
		const session = env.DB.prepare('UPDATE visitor_sessions SET ended_at = ? WHERE id = ?');
		await session.bind(Date.now(), visitor.visitorId).run();
		for (let i = 0; i < 3; i++) socket.send({ type: 'read', seq: 0 });
		// A frame the room refuses without I/O, answered after the reads: they have been handled by then.
		socket.socket.send('{"type":"nope"}');
		await socket.next('error', (f) => f.statusCode === 422);
		await session.bind(null, visitor.visitorId).run();
		socket.send({ type: 'message', text: 'after the reads', clientMessageId: 'after-reads' });
		await socket.next('ack');
		// The one error is the answer to the unparsable frame: the receipts got none, nor a `read` broadcast.
		expect(socket.frames.filter((f) => f.type === 'error')).toEqual([expect.objectContaining({ statusCode: 422 })]);
		expect(socket.frames.filter((f) => f.type === 'read')).toEqual([]);
	});
});

describe('GET /v3/live limits', () => {
	it('refuses the sixth feed socket of one operator with 429', async () => {
		const { token } = await seedWorkspace();
		const open: TestSocket[] = [];
		for (let i = 0; i < 5; i++) open.push(await openSocket('/v3/live', { Authorization: `Bearer ${token}` }));
		await expectError(await tryUpgrade('/v3/live', { Authorization: `Bearer ${token}` }), 429);
		open[0]?.close();
		await expect
			.poll(async () => (await tryUpgrade('/v3/live', { Authorization: `Bearer ${token}` })).status)
			.toBe(101);
	});

	it('re-checks the token when the hub accepts: one revoked after the route checked it gets no feed', async () => {
		const { workspaceId, operatorId } = await seedWorkspace();
		const row = await db
			.select({ id: apiTokens.id })
			.from(apiTokens)
			.where(and(eq(apiTokens.operatorId, operatorId), isNull(apiTokens.revokedAt)))
			.get();
		// The route has checked the token; it is revoked before the hub accepts.
		await db
			.update(apiTokens)
			.set({ revokedAt: Date.now() })
			.where(eq(apiTokens.id, row?.id ?? ''));
		const url = new URL('https://hub.internal/feed');
		url.searchParams.set('workspaceId', workspaceId);
		url.searchParams.set('operatorId', operatorId);
		url.searchParams.set('tokenId', row?.id ?? '');
		url.searchParams.append('permission', 'admin');
		const res = await env.WORKSPACE_HUB.getByName(workspaceId).fetch(url, { headers: { Upgrade: 'websocket' } });
		expect(res.webSocket).toBeNull();
		await expectError(res, 401);
	});
});
