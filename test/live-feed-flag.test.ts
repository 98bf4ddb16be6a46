import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { ConversationRoom } from '../durable-objects/conversation-room';
import type { WorkspaceHub } from '../durable-objects/workspace-hub';
import { liveConversation, reply, seedWorkspace, settleRoom } from './factories';
import { openSocket } from './sockets';

/** The workspace's `live_feed` flag in D1. */
async function flag(workspaceId: string) {
	const row = await env.DB.prepare('SELECT live_feed FROM workspaces WHERE id = ?')
		.bind(workspaceId)
		.first<{ live_feed: number }>();
	return row?.live_feed;
}

/** Waits for the hub's flag writes under way (a close's write is queued when its close is answered). */
function flagWritten(workspaceId: string) {
	return runInDurableObject(
		env.WORKSPACE_HUB.getByName(workspaceId),
		(instance: WorkspaceHub) => (instance as unknown as { flagWrites: Promise<void> }).flagWrites,
	);
}

describe("the workspace's inbox feed flag", () => {
	it('is set before a feed socket is accepted, and cleared only when the last one closes', async () => {
		const { workspaceId, token } = await seedWorkspace();
		expect(await flag(workspaceId)).toBe(0);
		const first = await openSocket('/v3/live', { Authorization: `Bearer ${token}` });
		expect(await flag(workspaceId)).toBe(1);
		const second = await openSocket('/v3/live', { Authorization: `Bearer ${token}` });
		first.close();
		await first.closed;
		await flagWritten(workspaceId);
		expect(await flag(workspaceId)).toBe(1);
		second.close();
		await second.closed;
		await flagWritten(workspaceId);
		expect(await flag(workspaceId)).toBe(0);
	});

	it('spares the hub a call while no feed is open, and a feed opened later gets every message after it', async () => {
		const { workspaceId, token, conversationId } = await liveConversation();
		const room = env.CONVERSATION_ROOM.getByName(conversationId);
		const hubCalls: string[] = [];
		await runInDurableObject(room, (instance: ConversationRoom) => {
			const recording = {
				...env,
				WORKSPACE_HUB: {
					getByName: (name: string) => {
						hubCalls.push(name);
						return env.WORKSPACE_HUB.getByName(name);
					},
				},
			};
			(instance as unknown as { outbox: { env: Env } }).outbox.env = recording as unknown as Env;
		});
		const eventsLeft = () =>
			runInDurableObject(
				room,
				(_instance, state) => state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM outbox').one().n,
			);
		await reply(token, conversationId, 'nobody is watching');
		await settleRoom(conversationId);
		expect(await eventsLeft()).toBe(0);
		expect(hubCalls).toEqual([]);

		const feed = await openSocket('/v3/live', { Authorization: `Bearer ${token}` });
		await reply(token, conversationId, 'someone is watching');
		const texts = () =>
			feed.frames.flatMap((f) =>
				f.type === 'event' && f.event.type === 'message.created' ? [f.event.payload.message.text] : [],
			);
		await expect.poll(texts).toEqual(['someone is watching']);
		expect(hubCalls).toEqual([workspaceId]);
	});
});
