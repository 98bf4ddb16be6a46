/**
 * The directory (src/db/shards.ts): which shard database holds each workspace, and which workspace a credential
 * that arrives without one belongs to. Read and written in the `DB` database only; every shard has the tables
 * (one schema for all), empty elsewhere.
 */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** A workspace's shard: the D1 binding name of the database holding its data. */
export const workspaceShards = sqliteTable(
	'workspace_shards',
	{
		workspaceId: text('workspace_id').primaryKey(),
		shard: text('shard').notNull(),
		placedAt: integer('placed_at').notNull(),
	},
	(t) => [index('workspace_shards_shard').on(t.shard)],
);

/**
 * What routes to a workspace placed outside `DB`: `token` (an API token's hash), `session` (a console session's),
 * `whatsapp_number` (a connected number's id, which its webhook's path names), `scenario_webhook` (a scenario's
 * inbound webhook id, likewise).
 */
export const ROUTE_KINDS = ['token', 'session', 'whatsapp_number', 'scenario_webhook'] as const;

/**
 * The workspace a credential belongs to, by its kind and key (a hash: never the credential itself). Written
 * before the credential's own row in its shard, only for workspaces placed outside `DB`.
 */
export const directoryRoutes = sqliteTable(
	'directory_routes',
	{
		kind: text('kind', { enum: ROUTE_KINDS }).notNull(),
		key: text('key').notNull(),
		workspaceId: text('workspace_id').notNull(),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [primaryKey({ columns: [t.kind, t.key] }), index('directory_routes_workspace').on(t.workspaceId)],
);
