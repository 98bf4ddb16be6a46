/** Scenarios' inbound webhooks and the runs they start. */
import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** A scenario's inbound webhook: `POST /v3/workflows/webhook/{id}` starts a run of its scenario. */
export const inboundWebhooks = sqliteTable('inbound_webhooks', {
	id: text('id').primaryKey(),
	workspaceId: text('workspace_id').notNull(),
	name: text('name').notNull(),
	scenarioId: text('scenario_id'),
	enabled: integer('enabled', { mode: 'boolean' }).notNull(),
	createdAt: integer('created_at').notNull(),
});

export const workflowRuns = sqliteTable(
	'workflow_runs',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		webhookId: text('webhook_id').notNull(),
		scenarioId: text('scenario_id'),
		status: text('status', { enum: ['queued', 'running', 'succeeded', 'failed'] }).notNull(),
		input: text('input', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
		idempotencyKey: text('idempotency_key'),
		createdAt: integer('created_at').notNull(),
		/** When the queue consumer first received the run. */
		dequeuedAt: integer('dequeued_at'),
	},
	(t) => [uniqueIndex('workflow_runs_webhook_key').on(t.webhookId, t.idempotencyKey)],
);
