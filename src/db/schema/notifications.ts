/**
 * Each operator's choice of the team mail it receives (src/model/notifications.ts) and of what alerts it in
 * the console, on the desktop and by Web Push (src/model/alerts.ts). One row per operator that saved any; an
 * operator without one has the defaults (src/domain/channels/email/notification-settings.ts).
 * Its Web Push subscriptions: one row per browser it turned push on in.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

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
		/** A rule's notify action or a bot's notify step (the column keeps its first name). */
		ruleNotifications: integer('rule_notifications', { mode: 'boolean' }).notNull(),
		// Alerts (in the console, desktop, push), one choice per kind; defaults for rows saved before they existed.
		alertNewConversation: integer('alert_new_conversation', { mode: 'boolean' }).notNull().default(true),
		alertAssigned: integer('alert_assigned', { mode: 'boolean' }).notNull().default(true),
		alertMessage: integer('alert_message', { mode: 'boolean' }).notNull().default(true),
		alertMention: integer('alert_mention', { mode: 'boolean' }).notNull().default(true),
		alertRule: integer('alert_rule', { mode: 'boolean' }).notNull().default(true),
		/** A short chime with each alert in an open console. */
		alertSound: integer('alert_sound', { mode: 'boolean' }).notNull().default(false),
		updatedAt: integer('updated_at').notNull(),
	},
	// The cron's sweep reads the operators who want the unanswered mail, across workspaces.
	(t) => [index('member_notification_settings_unanswered').on(t.unanswered, t.workspaceId)],
);

/**
 * A browser's Web Push subscription (the Push API's `PushSubscription`), for one operator of one workspace.
 * The endpoint is the push service's address for that browser: unique within the workspace, so a browser that
 * subscribes again (another member signed in there) moves to its new owner instead of alerting both.
 */
export const pushSubscriptions = sqliteTable(
	'push_subscriptions',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		// No foreign key: removing a member deletes its subscriptions with the rest of it (member-removal.ts).
		operatorId: text('operator_id').notNull(),
		endpoint: text('endpoint').notNull(),
		/** The browser's P-256 public key and auth secret, base64url, as the subscription gives them (RFC 8291). */
		p256dh: text('p256dh').notNull(),
		auth: text('auth').notNull(),
		/** The console's origin it was made from: the VAPID subject (RFC 8292) when the deployment sets none. */
		origin: text('origin').notNull(),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [
		uniqueIndex('push_subscriptions_endpoint').on(t.workspaceId, t.endpoint),
		index('push_subscriptions_operator').on(t.workspaceId, t.operatorId),
	],
);
