import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { messageTarget } from '../src/domain/conversations/live';
import type { MessageCommand } from '../src/domain/conversations/message-command';
import type { DomainEvent } from '../src/model/events';
import {
	api,
	closeConversation,
	conversationStatus,
	liveConversation,
	settleRoom,
	storedTexts,
	type Visitor,
	visitorSend,
	withTableOffline,
} from './factories';
import { openSocket, type TestSocket } from './sockets';

/**
 * The races around "a visitor's message on a closed conversation reopens it": the decision is made once per
 * message, in D1, against the message's time, so it is ordered with the team's status changes.
 */

/** `liveConversation`, with the workspace's inbox feed open to see the events. */
async function withFeed() {
	const live = await liveConversation();
	return { ...live, feed: await openSocket('/v3/live', { Authorization: `Bearer ${live.token}` }) };
}

/** A visitor's message written while D1 lacks its messages table: the room keeps it (and its reopen) pending. */
async function sendWhileD1IsDown(visitor: Visitor, conversationId: string, text: string, during: () => Promise<void>) {
	return withTableOffline('messages', async () => {
		const res = await visitorSend(visitor, conversationId, text, `down-${crypto.randomUUID()}`);
		expect(res.status).toBe(201);
		const messageAt = Date.parse(((await res.json()) as { createdAt: string }).createdAt);
		await pastTime(messageAt);
		await during();
		return messageAt;
	});
}

/**
 * Every row ever inserted into D1's event outbox, kept by a trigger: the room deletes a row once it has sent
 * its event, so the table alone cannot show whether one was written.
 */
async function recordOutboxRows() {
	await env.DB.prepare(
		'CREATE TABLE IF NOT EXISTS outbox_record (id TEXT, workspace_id TEXT, event TEXT, created_at INTEGER)',
	).run();
	await env.DB.prepare(
		`CREATE TRIGGER IF NOT EXISTS outbox_record AFTER INSERT ON event_outbox BEGIN
			INSERT INTO outbox_record VALUES (NEW.id, NEW.workspace_id, NEW.event, NEW.created_at); END`,
	).run();
}

/** The recorded outbox rows of contact-actor `conversation.updated` events (a reopen) in a workspace. */
async function recordedReopens(workspaceId: string) {
	const { results } = await env.DB.prepare(
		`SELECT event, created_at FROM outbox_record WHERE workspace_id = ?
			AND json_extract(event, '$.type') = 'conversation.updated' AND json_extract(event, '$.actor.kind') = 'contact'`,
	)
		.bind(workspaceId)
		.all<{ event: string; created_at: number }>();
	return results.map((r) => ({ event: JSON.parse(r.event) as DomainEvent, createdAt: r.created_at }));
}

/** A visitor's message straight to the room, with what D1 said of the conversation at some earlier read. */
function roomPost(
	workspaceId: string,
	conversationId: string,
	text: string,
	target: Awaited<ReturnType<typeof messageTarget>>,
) {
	const input: MessageCommand = {
		workspaceId,
		conversationId,
		authorKind: 'contact',
		authorId: null,
		text,
		attachments: [],
		clientMessageId: `v:test:${crypto.randomUUID()}`,
	};
	return env.CONVERSATION_ROOM.getByName(conversationId).post(input, target);
}

/** The clock moves on past `at` (the runtime's clock advances with I/O), so two changes are ordered. */
async function pastTime(at: number) {
	await expect
		.poll(async () => {
			await env.DB.prepare('SELECT 1').first();
			return Date.now();
		})
		.toBeGreaterThan(at);
}

/** `conversation.updated` events the feed received that a visitor's message caused (actor the contact). */
function reopenEvents(feed: TestSocket, conversationId: string): DomainEvent[] {
	return feed.frames.flatMap((f) =>
		f.type === 'event' &&
		f.event.type === 'conversation.updated' &&
		f.event.payload.conversation.id === conversationId &&
		f.event.actor.kind === 'contact'
			? [f.event]
			: [],
	);
}

/**
 * Waits until every event of the conversation is out: the feed has the `message.created` of each text, and
 * neither the room's outbox nor D1's holds anything more. Only then is a count of events final.
 */
async function eventsSettled(feed: TestSocket, workspaceId: string, conversationId: string, texts: string[]) {
	await expect
		.poll(() =>
			texts.every((text) =>
				feed.frames.some(
					(f) => f.type === 'event' && f.event.type === 'message.created' && f.event.payload.message.text === text,
				),
			),
		)
		.toBe(true);
	await expect
		.poll(async () => {
			const row = await env.DB.prepare('SELECT COUNT(*) AS n FROM event_outbox WHERE workspace_id = ?')
				.bind(workspaceId)
				.first<{ n: number }>();
			return row?.n;
		})
		.toBe(0);
	await settleRoom(conversationId);
	expect(await runDurableObjectAlarm(env.CONVERSATION_ROOM.getByName(conversationId))).toBe(false);
}

describe('a visitor message reopening a closed conversation', () => {
	it('gives one reopen event and an open conversation for two concurrent visitor sends', async () => {
		const { workspaceId, token, visitor, conversationId, feed } = await withFeed();
		await closeConversation(token, conversationId);
		const sent = await Promise.all([
			visitorSend(visitor, conversationId, 'first at once', 'race-1'),
			visitorSend(visitor, conversationId, 'second at once', 'race-2'),
		]);
		expect(sent.map((r) => r.status)).toEqual([201, 201]);
		expect(await conversationStatus(token, conversationId)).toBe('open');
		await expect.poll(() => reopenEvents(feed, conversationId).length).toBeGreaterThan(0);
		await eventsSettled(feed, workspaceId, conversationId, ['first at once', 'second at once']);
		expect(reopenEvents(feed, conversationId)).toHaveLength(1);
	});

	it('leaves an operator close landing after the message closed, whatever a retried flush does', async () => {
		await recordOutboxRows();
		const { workspaceId, token, visitor, conversationId, feed } = await withFeed();
		await closeConversation(token, conversationId);
		await sendWhileD1IsDown(visitor, conversationId, 'written while D1 was down', async () => {
			// The reopen is still pending in the room: D1 never got the batch.
			expect(await conversationStatus(token, conversationId)).toBe('closed');
			// The team closes (again) after the visitor wrote.
			await closeConversation(token, conversationId);
		});
		// The retry (the alarm fires by itself after 5 s; run it now) writes the message, not the reopen.
		await runDurableObjectAlarm(env.CONVERSATION_ROOM.getByName(conversationId));
		expect(await storedTexts(token, conversationId)).toEqual(['Hi, I need help', 'written while D1 was down']);
		expect(await conversationStatus(token, conversationId)).toBe('closed');
		// No reopen was announced either: none was ever written to D1's outbox, and the feed got none.
		expect(await recordedReopens(workspaceId)).toEqual([]);
		await eventsSettled(feed, workspaceId, conversationId, ['written while D1 was down']);
		expect(reopenEvents(feed, conversationId)).toEqual([]);
	});

	it('reopens on a retried flush although the team tagged and assigned the closed conversation after the message', async () => {
		const { workspaceId, token, operatorId, visitor, conversationId, feed } = await withFeed();
		await closeConversation(token, conversationId);
		await sendWhileD1IsDown(visitor, conversationId, 'written before the tag', async () => {
			expect(await conversationStatus(token, conversationId)).toBe('closed');
			const edit = { tags: ['vip'], assigneeId: operatorId };
			expect((await api(token, 'PATCH', `/v3/conversations/${conversationId}`, edit)).status).toBe(200);
		});
		await runDurableObjectAlarm(env.CONVERSATION_ROOM.getByName(conversationId));
		expect(await conversationStatus(token, conversationId)).toBe('open');
		await eventsSettled(feed, workspaceId, conversationId, ['written before the tag']);
		expect(reopenEvents(feed, conversationId)).toHaveLength(1);
	});

	it('stores the reopen event of a delayed flush as of its commit, so the sweep does not take it from the room', async () => {
		await recordOutboxRows();
		const { workspaceId, token, visitor, conversationId } = await withFeed();
		await closeConversation(token, conversationId);
		let flushFrom = 0;
		const messageAt = await sendWhileD1IsDown(visitor, conversationId, 'flushed late', async () => {
			flushFrom = Date.now();
		});
		expect(flushFrom).toBeGreaterThan(messageAt);
		await runDurableObjectAlarm(env.CONVERSATION_ROOM.getByName(conversationId));
		expect(await conversationStatus(token, conversationId)).toBe('open');
		const [reopen, ...others] = await recordedReopens(workspaceId);
		expect(others).toEqual([]);
		// The event says when the visitor wrote; the row's age (what the sweep goes by) starts at the commit.
		expect(reopen?.event.occurredAt).toBe(new Date(messageAt).toISOString());
		expect(reopen?.createdAt).toBeGreaterThanOrEqual(flushFrom);
	});

	it('reopens again on a visitor message after an operator close, even one whose status was read before it', async () => {
		const { workspaceId, token, visitor, conversationId, feed } = await withFeed();
		await closeConversation(token, conversationId);
		expect((await visitorSend(visitor, conversationId, 'back again', 'again-1')).status).toBe(201);
		expect(await conversationStatus(token, conversationId)).toBe('open');
		// The next message's read of D1 happens while the conversation is open; the team closes after it.
		const stale = await messageTarget(env, { authorKind: 'contact', workspaceId });
		expect(await conversationStatus(token, conversationId)).toBe('open');
		await closeConversation(token, conversationId);
		const closedAt = Date.now();
		await pastTime(closedAt);
		expect((await roomPost(workspaceId, conversationId, 'and once more', stale)).status).toBe('created');
		expect(await conversationStatus(token, conversationId)).toBe('open');
		await eventsSettled(feed, workspaceId, conversationId, ['back again', 'and once more']);
		expect(reopenEvents(feed, conversationId)).toHaveLength(2);
	});

	it('refuses a message on a conversation closed after its status was read, when visitors start a new one', async () => {
		const { workspaceId, token, conversationId } = await withFeed();
		expect((await api(token, 'PUT', '/v3/widget/settings', { closedConversationReply: 'new' })).status).toBe(200);
		const stale = await messageTarget(env, { authorKind: 'contact', workspaceId });
		expect(stale).toEqual({ closedReply: 'new' });
		expect(await conversationStatus(token, conversationId)).toBe('open');
		await closeConversation(token, conversationId);
		expect(await roomPost(workspaceId, conversationId, 'too late', stale)).toEqual({ status: 'closed' });
		expect(await storedTexts(token, conversationId)).toEqual(['Hi, I need help']);
		expect(await conversationStatus(token, conversationId)).toBe('closed');
	});
});
