import { openDatabase } from '../db/client';
import { events } from '../db/schema';
import { type DomainEvent, domainEventSchema } from '../events/catalogue';
import { consumeEach } from './consume';

/**
 * Handles one domain event. For now it records the event; rules, scenarios and webhooks will hang off here.
 * Idempotent by event id, because the Queue (and our outboxes) deliver at least once.
 */
export async function processEvent(env: Env, event: DomainEvent, now = Date.now()): Promise<void> {
	await openDatabase(env.DB)
		.insert(events)
		.values({
			id: event.id,
			workspaceId: event.workspaceId,
			type: event.type,
			occurredAt: Date.parse(event.occurredAt),
			actor: event.actor,
			payload: event.payload,
			recordedAt: now,
		})
		.onConflictDoNothing({ target: events.id });
}

/** The events Queue consumer: each event through `processEvent`, acked or retried on its own. */
export async function consumeEvents(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	await consumeEach(batch, domainEventSchema, (event) => processEvent(env, event), 'event');
}
