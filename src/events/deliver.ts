import { groupBy } from '../lib/group-by';
import type { DomainEvent } from '../model/events';
import { isPrompt, LIVE_FEED_TYPES } from '../model/events';

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
 * Puts events on the events Queue, then tells their workspaces' hubs, one call each: the inbox-feed ones go to
 * the live feeds (unless `live` is false: a conversation room that read its workspace's feed flag clear, see
 * room-outbox.ts), and those a person may be waiting on (`isPrompt`) to the hub's prompt reactions
 * (durable-objects/hub-prompt.ts), which assign and run the rules a person sees without the Queue's batch
 * wait. Throws when the Queue refuses: callers keep the events in their outbox and try again. The hubs hear
 * only of events the Queue already holds, and the call is best effort (a console that missed a frame re-reads
 * the API; a reaction missed is the Queue's delivery's), so it never makes a delivery fail.
 */
export async function deliverEvents(env: Env, events: DomainEvent[], live = true): Promise<void> {
	for (const batch of queueBatches(events)) {
		await env.EVENTS.sendBatch(batch.map((event) => ({ body: event, contentType: 'json' as const })));
	}
	await announce(env, events, live);
}

async function announce(env: Env, events: DomainEvent[], live: boolean): Promise<void> {
	const told = events.filter((event) => (live && LIVE_FEED_TYPES.includes(event.type)) || isPrompt(event));
	const byWorkspace = groupBy(told, (event) => event.workspaceId);
	await Promise.all(
		[...byWorkspace].map(async ([workspaceId, list]) => {
			const feed = live ? list.filter((event) => LIVE_FEED_TYPES.includes(event.type)) : [];
			const prompt = list.filter(isPrompt);
			try {
				await env.WORKSPACE_HUB.getByName(workspaceId).announce(workspaceId, feed, prompt);
			} catch (error) {
				console.error('telling the workspace hub of events failed', workspaceId, error);
			}
		}),
	);
}
