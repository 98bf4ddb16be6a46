/** The CRM: funnels, their stages and the deals in them. */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { CustomValue } from '../../model/custom-fields';
import { contacts } from './contacts';

export const funnels = sqliteTable('funnels', {
	id: text('id').primaryKey(),
	workspaceId: text('workspace_id').notNull(),
	name: text('name').notNull(),
	createdAt: integer('created_at').notNull(),
});

export const stages = sqliteTable('stages', {
	id: text('id').primaryKey(),
	workspaceId: text('workspace_id').notNull(),
	funnelId: text('funnel_id')
		.notNull()
		.references(() => funnels.id),
	name: text('name').notNull(),
	position: integer('position').notNull(),
});

export const deals = sqliteTable(
	'deals',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		funnelId: text('funnel_id')
			.notNull()
			.references(() => funnels.id),
		stageId: text('stage_id')
			.notNull()
			.references(() => stages.id),
		contactId: text('contact_id').references(() => contacts.id),
		ownerId: text('owner_id'),
		name: text('name').notNull(),
		/** Minor units (cents) to keep money exact. */
		valueCents: integer('value_cents'),
		currency: text('currency'),
		status: text('status', { enum: ['open', 'won', 'lost'] }).notNull(),
		customFields: text('custom_fields', { mode: 'json' }).$type<Record<string, CustomValue>>().notNull(),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [
		index('deals_workspace_stage').on(t.workspaceId, t.stageId),
		// A contact's open deals (its record counts them), and the deals a deleted contact leaves.
		index('deals_workspace_contact').on(t.workspaceId, t.contactId, t.status),
	],
);
