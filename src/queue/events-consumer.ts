import { openDatabase } from '../db/client';
import { events } from '../db/schema';
import { type DomainEvent, domainEventSchema } from '../events/catalogue';

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
			payload: event.payload,
			recordedAt: now,
		})
		.onConflictDoNothing({ target: events.id });
}

/** The events Queue consumer: parse, process, ack or retry each message on its own. */
export async function consumeEvents(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	for (const message of batch.messages) {
		const parsed = domainEventSchema.safeParse(message.body);
		if (!parsed.success) {
			console.error('dropping malformed event', message.id);
			message.ack();
			continue;
		}
		try {
			await processEvent(env, parsed.data);
			message.ack();
		} catch (error) {
			console.error('event processing failed, will retry', parsed.data.id, error);
			message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
		}
	}
}
