import { groupBy } from '../lib/group-by';
import type { DomainEvent } from '../model/events';
import { LIVE_FEED_TYPES } from '../model/events';

/** A Queue `sendBatch` takes at most 100 messages and 256 KB; stay under both with room for overhead. */
const QUEUE_BATCH_MESSAGES = 100;
const QUEUE_BATCH_BYTES = 200 * 1024;

/**
 * Splits events into Queue batches by count and serialized size, so a backlog of long messages (left by
 * an outage) goes out in several batches instead of being refused as one forever.
 */
export function queueBatches(events: DomainEvent[]): DomainEvent[][] {
	const batches: DomainEvent[][] = [];
	let current: DomainEvent[] = [];
	let bytes = 0;
	for (const event of events) {
		const size = new TextEncoder().encode(JSON.stringify(event)).length;
		if (current.length > 0 && (current.length === QUEUE_BATCH_MESSAGES || bytes + size > QUEUE_BATCH_BYTES)) {
			batches.push(current);
			current = [];
			bytes = 0;
		}
		current.push(event);
		bytes += size;
	}
	if (current.length > 0) batches.push(current);
	return batches;
}

/**
 * Puts events on the events Queue, then pushes the inbox-feed ones to their workspaces' live feeds (unless
 * `live` is false: a conversation room that read its workspace's feed flag clear, see room-outbox.ts).
 * Throws when the Queue refuses: callers keep the events in their outbox and try again. The live push is
 * best effort (a console that missed a frame re-reads the API), so it never makes a delivery fail.
 */
export async function deliverEvents(env: Env, events: DomainEvent[], live = true): Promise<void> {
	for (const batch of queueBatches(events)) {
		await env.EVENTS.sendBatch(batch.map((event) => ({ body: event, contentType: 'json' as const })));
	}
	if (live) await publishLive(env, events);
}

async function publishLive(env: Env, events: DomainEvent[]): Promise<void> {
	const live = events.filter((event) => LIVE_FEED_TYPES.includes(event.type));
	const byWorkspace = groupBy(live, (event) => event.workspaceId);
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
