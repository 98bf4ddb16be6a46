import type { DomainEvent } from './catalogue';
import { LIVE_FEED_TYPES } from './catalogue';

/** A Queue `sendBatch` takes at most 100 messages. */
const QUEUE_BATCH = 100;

/**
 * Puts events on the events Queue, then pushes the inbox-feed ones to their workspaces' live feeds.
 * Throws when the Queue refuses: callers keep the events in their outbox and try again. The live push is
 * best effort (a console that missed a frame re-reads the API), so it never makes a delivery fail.
 */
export async function deliverEvents(env: Env, events: DomainEvent[]): Promise<void> {
	for (let i = 0; i < events.length; i += QUEUE_BATCH) {
		const chunk = events.slice(i, i + QUEUE_BATCH);
		await env.EVENTS.sendBatch(chunk.map((event) => ({ body: event, contentType: 'json' as const })));
	}
	await publishLive(env, events);
}

async function publishLive(env: Env, events: DomainEvent[]): Promise<void> {
	const byWorkspace = new Map<string, DomainEvent[]>();
	for (const event of events) {
		if (!LIVE_FEED_TYPES.includes(event.type)) continue;
		byWorkspace.set(event.workspaceId, [...(byWorkspace.get(event.workspaceId) ?? []), event]);
	}
	await Promise.all(
		[...byWorkspace].map(async ([workspaceId, list]) => {
			try {
				await env.WORKSPACE_HUB.getByName(workspaceId).publish(list);
			} catch (error) {
				console.error('live feed publish failed', workspaceId, error);
			}
		}),
	);
}
