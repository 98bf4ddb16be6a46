/** Workspaces, their operators and the operators' API tokens. */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const workspaces = sqliteTable('workspaces', {
	id: text('id').primaryKey(),
	slug: text('slug').notNull().unique(),
	name: text('name').notNull(),
	/**
	 * The version of the workspace's identity-verification secret: null (never on) or negative (turned off)
	 * when verification is off. The secret is derived from the deployment secret and this version
	 * (src/auth/secrets.ts), never stored.
	 */
	identitySecretVersion: integer('identity_secret_version'),
	/**
	 * 1 while someone may be subscribed to the workspace's inbox feed (the WorkspaceHub sets it before it
	 * accepts a feed socket and clears it when the last one closes): conversation rooms read it in the batch
	 * that writes their messages, and push to the feed only when it is set.
	 */
	liveFeed: integer('live_feed').notNull().default(0),
	createdAt: integer('created_at').notNull(),
});

export const operators = sqliteTable(
	'operators',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id')
			.notNull()
			.references(() => workspaces.id),
		email: text('email').notNull(),
		name: text('name').notNull(),
		permissions: text('permissions', { mode: 'json' }).$type<string[]>().notNull(),
		/** The most open conversations assignment gives it; null for no limit. */
		capacity: integer('capacity'),
		/** When an admin disabled it: its token stops working and it is never available; null while enabled. */
		disabledAt: integer('disabled_at'),
		createdAt: integer('created_at').notNull(),
	},
	// By e-mail alone too: a console sign-in does not say which workspace.
	(t) => [uniqueIndex('operators_workspace_email').on(t.workspaceId, t.email), index('operators_email').on(t.email)],
);

/** Groups of operators (teams) that conversations are routed to. */
export const groups = sqliteTable(
	'groups',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		name: text('name').notNull(),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [uniqueIndex('groups_workspace_name').on(t.workspaceId, t.name)],
);

/** Which groups an operator belongs to. */
export const operatorGroups = sqliteTable(
	'operator_groups',
	{
		workspaceId: text('workspace_id').notNull(),
		operatorId: text('operator_id')
			.notNull()
			.references(() => operators.id),
		groupId: text('group_id')
			.notNull()
			.references(() => groups.id),
	},
	(t) => [primaryKey({ columns: [t.operatorId, t.groupId] }), index('operator_groups_group').on(t.groupId)],
);

export const apiTokens = sqliteTable(
	'api_tokens',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		operatorId: text('operator_id')
			.notNull()
			.references(() => operators.id),
		tokenHash: text('token_hash').notNull().unique(),
		hint: text('hint').notNull(),
		createdAt: integer('created_at').notNull(),
		revokedAt: integer('revoked_at'),
		/** The token that replaced this one on regenerate: makes a regenerate race-free (see routes/team/tokens.ts). */
		replacedBy: text('replaced_by'),
	},
	// One active token per operator: regenerating revokes the previous one.
	(t) => [uniqueIndex('api_tokens_one_active').on(t.operatorId).where(sql`revoked_at IS NULL`)],
);
