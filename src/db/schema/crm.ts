/** The CRM: funnels, their stages and the deals in them; notes on contacts and deals; operators' tasks. */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { CustomValue } from '../../model/custom-fields';
import { contacts } from './contacts';

export const funnels = sqliteTable(
	'funnels',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		name: text('name').notNull(),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [uniqueIndex('funnels_workspace_name').on(t.workspaceId, t.name)],
);

export const stages = sqliteTable(
	'stages',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		funnelId: text('funnel_id')
			.notNull()
			.references(() => funnels.id),
		name: text('name').notNull(),
		/** Order in the funnel, from 0; rewritten whole on a reorder. */
		position: integer('position').notNull(),
	},
	(t) => [uniqueIndex('stages_funnel_name').on(t.funnelId, t.name)],
);

/** A line of a deal: a product, how many, at what unit price (minor units, the deal's currency). */
export interface DealProduct {
	name: string;
	quantity: number;
	unitPrice: number;
}

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
		products: text('products', { mode: 'json' }).$type<DealProduct[]>().notNull().default([]),
		/** When it was marked won or lost; null while open. */
		closedAt: integer('closed_at'),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [
		index('deals_workspace_stage').on(t.workspaceId, t.stageId),
		// A contact's open deals (its record counts them), and the deals a deleted contact leaves.
		index('deals_workspace_contact').on(t.workspaceId, t.contactId, t.status),
		// The deal list, newest first, by keyset.
		index('deals_workspace_created').on(t.workspaceId, t.createdAt, t.id),
	],
);

/** A note an operator (or an automation) wrote on a contact or a deal: a call summary, a saved transcript. */
export const notes = sqliteTable(
	'notes',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		subjectKind: text('subject_kind', { enum: ['contact', 'deal'] }).notNull(),
		subjectId: text('subject_id').notNull(),
		/** Who wrote it (the event actor's kind and id): an operator, a bot, a rule. */
		authorKind: text('author_kind').notNull(),
		authorId: text('author_id'),
		text: text('text').notNull(),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [index('notes_subject').on(t.workspaceId, t.subjectKind, t.subjectId, t.createdAt, t.id)],
);

/** A to-do for an operator, maybe about a contact, a conversation or a deal. */
export const tasks = sqliteTable(
	'tasks',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		title: text('title').notNull(),
		description: text('description'),
		dueAt: integer('due_at'),
		assigneeId: text('assignee_id').notNull(),
		contactId: text('contact_id'),
		conversationId: text('conversation_id'),
		dealId: text('deal_id'),
		/** When it was done; null while to do. */
		doneAt: integer('done_at'),
		createdBy: text('created_by'),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [index('tasks_assignee').on(t.workspaceId, t.assigneeId, t.doneAt, t.dueAt)],
);
