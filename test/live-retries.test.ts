import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { SOCKET_FLUSH_DELAY_MS } from '../durable-objects/conversation-room';
import type { SocketIdentity } from '../durable-objects/room-sockets';
import { liveConversation, settleRoom, storedTexts, withTableOffline } from './factories';
import { type TestSocket, visitorSocket } from './sockets';

/**
 * A retried send on a conversation socket (the same clientMessageId) is answered from the room's storage:
 * it costs no flush (the alarm armed with any pending work sends it), and a stale credential is re-checked.
 */

/** The frames answering sends (acks and errors), in order. */
function answers(socket: TestSocket) {
	return socket.frames.filter((f) => f.type === 'ack' || f.type === 'error');
}

/** Makes every visitor socket of the room look as if its credential was last checked `ago` ms back. */
function credentialCheckedAgo(conversationId: string, ago: number) {
	return runInDurableObject(env.CONVERSATION_ROOM.getByName(conversationId), (_instance, state) => {
		for (const socket of state.getWebSockets('contact')) {
			const who = socket.deserializeAttachment() as SocketIdentity;
			socket.serializeAttachment({ ...who, checkedAt: Date.now() - ago });
		}
	});
}

function roomAlarm(conversationId: string) {
	return runInDurableObject(env.CONVERSATION_ROOM.getByName(conversationId), (_instance, state) =>
		state.storage.getAlarm(),
	);
}

/** Failed flushes in a row, as the room counts them for its backoff. */
function outboxAttempts(conversationId: string) {
	return runInDurableObject(
		env.CONVERSATION_ROOM.getByName(conversationId),
		(_instance, state) => state.storage.sql.exec<{ n: number }>('SELECT outbox_attempts AS n FROM room').one().n,
	);
}

describe('a retried message frame', () => {
	it('is answered without a flush: the message D1 lacks waits for the alarm', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const socket = await visitorSocket(visitor, conversationId);
		const frame = { type: 'message', text: 'Sent while D1 was down', clientMessageId: 'pending-1' } as const;
		// The start's flush has finished and its timer is gone: no alarm is left to pick up the message.
		await settleRoom(conversationId);
		expect(await roomAlarm(conversationId)).toBeNull();
		await withTableOffline('messages', async () => {
			socket.send(frame);
			await socket.next('ack');
			// The flush that follows the ack fails and leaves the retry to the alarm.
			await expect.poll(() => outboxAttempts(conversationId)).toBe(1);
		});
		// D1 is back: a retry that flushed would have written the message, within a socket flush's delay.
		socket.send(frame);
		await expect.poll(() => answers(socket).length).toBe(2);
		expect(answers(socket).every((f) => f.type === 'ack')).toBe(true);
		await new Promise((resolve) => setTimeout(resolve, 4 * SOCKET_FLUSH_DELAY_MS));
		expect(await storedTexts(token, conversationId)).toEqual(['Hi, I need help']);
		// The alarm armed with the message does the work.
		expect(await runDurableObjectAlarm(env.CONVERSATION_ROOM.getByName(conversationId))).toBe(true);
		expect(await storedTexts(token, conversationId)).toEqual(['Hi, I need help', 'Sent while D1 was down']);
	});

	it('re-checks a stale credential: a retry on a socket whose session ended is refused once the check is due', async () => {
		const { visitor, conversationId } = await liveConversation();
		const socket = await visitorSocket(visitor, conversationId);
		const frame = { type: 'message', text: 'Are you there?', clientMessageId: 'retry-1' } as const;
		socket.send(frame);
		await socket.next('ack');
		// The session ends behind the socket's back (no reset call closing it).
		await env.DB.prepare('UPDATE visitor_sessions SET ended_at = ? WHERE id = ?')
			.bind(Date.now(), visitor.visitorId)
			.run();
		// Checked moments ago (by the send): the retry is answered from the room's storage, with no D1 read.
		socket.send(frame);
		await expect.poll(() => answers(socket).length).toBe(2);
		expect(answers(socket)[1]?.type).toBe('ack');
		// Past the recheck interval, the next retry checks the session and is refused, the socket closed.
		await credentialCheckedAgo(conversationId, 61_000);
		socket.send(frame);
		await expect.poll(() => answers(socket).length).toBe(3);
		expect(answers(socket)[2]).toMatchObject({ type: 'error', statusCode: 401, clientMessageId: 'retry-1' });
		expect(await socket.closed).toBe(4001);
	});
});
