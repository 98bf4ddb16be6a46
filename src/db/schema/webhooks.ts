/** Outbound webhooks: the endpoints a workspace registered, each delivery of an event to one, and its tries. */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** One signing secret of an endpoint: derived from its version, never stored; active until `expiresAt`. */
export interface EndpointSecret {
	version: number;
	createdAt: number;
	/** When a rotation retires it (ms); null while it is the newest. */
	expiresAt: number | null;
}

export const webhookEndpoints = sqliteTable(
	'webhook_endpoints',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		url: text('url').notNull(),
		description: text('description').notNull(),
		/** The event types it receives; ['*'] for all. */
		eventTypes: text('event_types', { mode: 'json' }).$type<string[]>().notNull(),
		enabled: integer('enabled', { mode: 'boolean' }).notNull(),
		/** Why it was disabled by Parley (days of failures); null when enabled or disabled by a person. */
		disabledReason: text('disabled_reason'),
		secrets: text('secrets', { mode: 'json' }).$type<EndpointSecret[]>().notNull(),
		/** Since when every try has failed (ms); null after a success. Five days of it disables the endpoint. */
		failingSince: integer('failing_since'),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [index('webhook_endpoints_workspace').on(t.workspaceId, t.createdAt)],
);

export const webhookDeliveries = sqliteTable(
	'webhook_deliveries',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		endpointId: text('endpoint_id').notNull(),
		/** The event delivered: its id is the `webhook-id` header, the same on every try, for receivers to dedupe. */
		eventId: text('event_id').notNull(),
		eventType: text('event_type').notNull(),
		/** The body, exactly as signed and sent. */
		body: text('body').notNull(),
		status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
		/** Tries made so far (the next try is claimed by moving it from n to n + 1). */
		attempts: integer('attempts').notNull(),
		/** When the next try is due (ms); null once it succeeded or failed for good. */
		nextAttemptAt: integer('next_attempt_at'),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [
		uniqueIndex('webhook_deliveries_event').on(t.endpointId, t.eventId),
		index('webhook_deliveries_endpoint').on(t.workspaceId, t.endpointId, t.createdAt),
	],
);

export const webhookAttempts = sqliteTable(
	'webhook_attempts',
	{
		deliveryId: text('delivery_id').notNull(),
		/** 1 for the first try. */
		attempt: integer('attempt').notNull(),
		workspaceId: text('workspace_id').notNull(),
		at: integer('at').notNull(),
		/** The receiver's HTTP status; null when none came (a timeout, a refused address). */
		statusCode: integer('status_code'),
		/** Why it failed; null for a 2xx. */
		error: text('error'),
		/** The start of the answer, for the sender to see what the receiver said. */
		response: text('response'),
		durationMs: integer('duration_ms').notNull(),
	},
	(t) => [primaryKey({ columns: [t.deliveryId, t.attempt] })],
);
