/** The frozen versions of every versioned automation document (bots, scenarios), one table for all. */
import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const automationVersions = sqliteTable(
	'automation_versions',
	{
		workspaceId: text('workspace_id').notNull(),
		/** The bot or scenario it is a version of (their ids' prefixes tell which). */
		ownerId: text('owner_id').notNull(),
		version: integer('version').notNull(),
		definition: text('definition', { mode: 'json' }).$type<unknown>().notNull(),
		/** The operator who published it. */
		publishedBy: text('published_by'),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [primaryKey({ columns: [t.ownerId, t.version] })],
);
