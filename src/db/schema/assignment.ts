/** Auto-assignment rules: which conversations each policy (strategy and options) routes. */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { AssignmentPolicy } from '../../engines/assignment';
import type { Condition } from '../../engines/conditions';

export const assignmentRules = sqliteTable(
	'assignment_rules',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		name: text('name').notNull(),
		enabled: integer('enabled', { mode: 'boolean' }).notNull(),
		/** The first enabled rule whose condition holds routes the conversation: highest priority first. */
		priority: integer('priority').notNull(),
		/** On the conversation (`conversation.channel`, `conversation.groupId`); null for every conversation. */
		condition: text('condition', { mode: 'json' }).$type<Condition>(),
		policy: text('policy', { mode: 'json' }).$type<AssignmentPolicy>().notNull(),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [index('assignment_rules_workspace').on(t.workspaceId, t.priority, t.createdAt)],
);
