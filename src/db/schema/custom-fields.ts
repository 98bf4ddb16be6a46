/** Custom field definitions: the keys a workspace's contacts and deals may hold values under. */
import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const CUSTOM_FIELD_ENTITIES = ['contact', 'deal'] as const;
export const CUSTOM_FIELD_TYPES = ['text', 'number', 'date', 'boolean', 'select'] as const;

export const customFields = sqliteTable(
	'custom_fields',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		/** What holds the values: contacts or deals (their `custom_fields` JSON column). */
		entity: text('entity', { enum: CUSTOM_FIELD_ENTITIES }).notNull(),
		/** The name values are stored under; fixed once created (values and templates refer to it). */
		key: text('key').notNull(),
		label: text('label').notNull(),
		/** Fixed once created: the stored values were checked against it. */
		type: text('type', { enum: CUSTOM_FIELD_TYPES }).notNull(),
		/** The choices of a `select` field; null for the other types. */
		options: text('options', { mode: 'json' }).$type<string[]>(),
		required: integer('required', { mode: 'boolean' }).notNull().default(sql`0`),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [uniqueIndex('custom_fields_workspace_entity_key').on(t.workspaceId, t.entity, t.key)],
);
