/** Bots: their settings and draft (the versions publishing froze are in automation_versions). */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { BotDefinition } from '../../engines/bot-definition';

export const BOT_TRIGGERS = ['new_conversation', 'keyword', 'manual', 'deal_stage'] as const;
export type BotTrigger = (typeof BOT_TRIGGERS)[number];

export const bots = sqliteTable(
	'bots',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		name: text('name').notNull(),
		/** A disabled bot is never started (a run under way goes on). */
		enabled: integer('enabled', { mode: 'boolean' }).notNull(),
		trigger: text('trigger', { enum: BOT_TRIGGERS }).notNull(),
		/** The words a `keyword` bot starts on; [] for the other triggers. */
		keywords: text('keywords', { mode: 'json' }).$type<string[]>().notNull(),
		/** The stage a `deal_stage` bot starts on; null for the other triggers. */
		stageId: text('stage_id'),
		/** The channels it runs on (`widget`, `api`); null for all. */
		channels: text('channels', { mode: 'json' }).$type<string[]>(),
		/** Among bots that could start on the same event, the highest priority runs (then the oldest). */
		priority: integer('priority').notNull(),
		/** What builders edit; publishing freezes it as the next version. */
		draft: text('draft', { mode: 'json' }).$type<BotDefinition>().notNull(),
		/** The version new runs start with; null until first published. */
		publishedVersion: integer('published_version'),
		/** The latest version number given (a rollback publishes an older one: the next is still this + 1). */
		lastVersion: integer('last_version').notNull(),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [
		// The bots a trigger may start, per workspace.
		index('bots_workspace_trigger').on(t.workspaceId, t.trigger),
		index('bots_workspace_name').on(t.workspaceId, t.name, t.id),
	],
);
