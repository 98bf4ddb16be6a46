/**
 * The transactional outbox for changes written by the Worker itself (not by a conversation's Durable Object,
 * which keeps its own outbox): the event row is inserted in the same D1 batch as the change, so a change
 * cannot commit without its event. After the commit the event is sent and its row deleted (`release` in
 * commit.ts); whatever a failure leaves behind is sent again by the scheduled sweep.
 */
import { inArray, lt, type SQL, sql } from 'drizzle-orm';
import type { Database, Statement } from '../db/client';
import { eventOutbox } from '../db/schema';
import { type DomainEvent, domainEventSchema } from '../model/events';
import { deliverEvents } from './deliver';

/** How long a row may wait before the sweep assumes its request died between commit and delivery. */
export const SWEEP_AFTER_MS = 30_000;
const SWEEP_BATCH = 500;

/** Statements to add to the change's own batch. */
export function outboxStatements(db: Database, events: DomainEvent[]): Statement[] {
	if (events.length === 0) return [];
	return [
		db.insert(eventOutbox).values(
			events.map((event) => ({
				id: event.id,
				workspaceId: event.workspaceId,
				event,
				createdAt: Date.parse(event.occurredAt),
			})),
		),
	];
}

/** An outbox row written only when `condition` holds inside the batch (when a conditional change happened). */
export function conditionalOutboxStatement(event: DomainEvent, condition: SQL): SQL {
	return sql`INSERT INTO event_outbox (id, workspace_id, event, created_at)
		SELECT ${event.id}, ${event.workspaceId}, ${JSON.stringify(event)}, ${Date.parse(event.occurredAt)} WHERE ${condition}`;
}

/**
 * Re-sends outbox rows older than SWEEP_AFTER_MS. It reads across workspaces on purpose: it is the
 * platform's own housekeeping, and each row carries its workspace id into the event it sends.
 */
export async function sweepOutbox(env: Env, db: Database, now = Date.now()): Promise<number> {
	const rows = await db
		.select()
		.from(eventOutbox)
		.where(lt(eventOutbox.createdAt, now - SWEEP_AFTER_MS))
		.orderBy(eventOutbox.createdAt)
		.limit(SWEEP_BATCH);
	const events = rows.flatMap((row) => {
		const parsed = domainEventSchema.safeParse(row.event);
		if (!parsed.success) console.error('dropping malformed outbox row', row.id);
		return parsed.success ? [parsed.data] : [];
	});
	if (events.length > 0) await deliverEvents(env, events);
	if (rows.length > 0) {
		await db.delete(eventOutbox).where(
			inArray(
				eventOutbox.id,
				rows.map((r) => r.id),
			),
		);
	}
	return events.length;
}
