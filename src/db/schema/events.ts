/** Domain events: the transactional outbox and what the events consumer recorded. */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Domain events as the events consumer recorded them (idempotent by event id). */
export const events = sqliteTable(
	'events',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		type: text('type').notNull(),
		occurredAt: integer('occurred_at').notNull(),
		/** Who caused it (`{ kind, id }`); null on rows recorded before events carried their actor. */
		actor: text('actor', { mode: 'json' }).$type<{ kind: string; id: string | null }>(),
		payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
		recordedAt: integer('recorded_at').notNull(),
	},
	(t) => [index('events_workspace_time').on(t.workspaceId, t.occurredAt)],
);

/**
 * Events written in the same D1 transaction as the change they describe, deleted once the events Queue has
 * them: a change can never commit without its event (the scheduled sweep re-sends what is left).
 */
export const eventOutbox = sqliteTable('event_outbox', {
	id: text('id').primaryKey(),
	workspaceId: text('workspace_id').notNull(),
	event: text('event', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
	createdAt: integer('created_at').notNull(),
});
