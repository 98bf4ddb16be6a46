/**
 * What the operator console adds: operators' passwords, their signed-in sessions, the one-time links that set
 * a password (an invitation, or a reset an admin hands out), and the API log of every /v3 request.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const PASSWORD_LINK_PURPOSES = ['invite', 'reset'] as const;
export const CREDENTIAL_KINDS = ['token', 'session'] as const;

/**
 * An operator's password, apart from the operator row so that no query reading operators can carry it out.
 * `hash` is `pbkdf2-sha256$<iterations>$<salt>$<key>` (base64url): the count travels with the hash, so it can
 * be raised for new passwords without breaking old ones.
 */
export const operatorPasswords = sqliteTable('operator_passwords', {
	operatorId: text('operator_id').primaryKey(),
	workspaceId: text('workspace_id').notNull(),
	hash: text('hash').notNull(),
	updatedAt: integer('updated_at').notNull(),
});

/** A console sign-in: the cookie holds the plaintext, this row its SHA-256. */
export const consoleSessions = sqliteTable(
	'console_sessions',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		operatorId: text('operator_id').notNull(),
		tokenHash: text('token_hash').notNull().unique(),
		/** The browser it was opened from, as its User-Agent said (cut to 200 characters): for the admin's list. */
		userAgent: text('user_agent').notNull(),
		createdAt: integer('created_at').notNull(),
		/** Refreshed at most every few minutes by the session's gate (durable-objects/token-gate.ts). */
		lastSeenAt: integer('last_seen_at').notNull(),
		expiresAt: integer('expires_at').notNull(),
		/** When it was signed out or revoked by an admin; null while it may be used. */
		revokedAt: integer('revoked_at'),
	},
	(t) => [index('console_sessions_operator').on(t.workspaceId, t.operatorId, t.createdAt)],
);

/** A one-time link that sets an operator's password: only its hash is kept; using it marks it used. */
export const passwordLinks = sqliteTable(
	'password_links',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		operatorId: text('operator_id').notNull(),
		tokenHash: text('token_hash').notNull().unique(),
		purpose: text('purpose', { enum: PASSWORD_LINK_PURPOSES }).notNull(),
		createdBy: text('created_by').notNull(),
		createdAt: integer('created_at').notNull(),
		expiresAt: integer('expires_at').notNull(),
		/** When it was used, or voided by a newer link for the same operator; null while it may be used. */
		usedAt: integer('used_at'),
	},
	(t) => [index('password_links_operator').on(t.operatorId)],
);

/**
 * One row per /v3 request whose caller was known (a token or a session): never a body, a query string or a
 * secret. Written off the request's path through a Queue, kept 30 days (the minute's sweep deletes older rows).
 */
export const apiLogs = sqliteTable(
	'api_logs',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		at: integer('at').notNull(),
		operatorId: text('operator_id').notNull(),
		credential: text('credential', { enum: CREDENTIAL_KINDS }).notNull(),
		/** The token's hint (`prly_…abcd`) or `console` for a session. */
		hint: text('hint').notNull(),
		method: text('method').notNull(),
		/** The path without its query string (a query may carry search terms or e-mails). */
		path: text('path').notNull(),
		status: integer('status').notNull(),
		durationMs: integer('duration_ms').notNull(),
		/** What was left of the caller's budget after this request; null when not counted. */
		rateRemaining: integer('rate_remaining'),
		/** 1 when the request was refused for its rate limit (a 429). */
		rateLimited: integer('rate_limited', { mode: 'boolean' }).notNull(),
	},
	(t) => [index('api_logs_workspace').on(t.workspaceId, t.at), index('api_logs_at').on(t.at)],
);
