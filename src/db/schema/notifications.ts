/**
 * Each operator's choice of the team mail it receives (src/model/notifications.ts). One row per operator
 * that saved any; an operator without one has the defaults (src/domain/channels/email/notification-settings.ts).
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const memberNotificationSettings = sqliteTable(
	'member_notification_settings',
	{
		// No foreign key: removing a member deletes its row with the rest of it (member-removal.ts).
		operatorId: text('operator_id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		/** A conversation assigned to it while it is offline. */
		assignedWhileOffline: integer('assigned_while_offline', { mode: 'boolean' }).notNull(),
		/** A new conversation nobody took or answered within `unansweredAfterMinutes`. */
		unanswered: integer('unanswered', { mode: 'boolean' }).notNull(),
		unansweredAfterMinutes: integer('unanswered_after_minutes').notNull(),
		/** A mention in a private note. */
		mentions: integer('mentions', { mode: 'boolean' }).notNull(),
		/** An automation rule's notify action. */
		ruleNotifications: integer('rule_notifications', { mode: 'boolean' }).notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	// The cron's sweep reads the operators who want the unanswered mail, across workspaces.
	(t) => [index('member_notification_settings_unanswered').on(t.unanswered, t.workspaceId)],
);
