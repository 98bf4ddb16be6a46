/** The widget's settings and the visitors it handed over to an external messaging app. */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const HANDOFF_CHANNELS = ['whatsapp'] as const;

/**
 * A visitor who left the widget for an external messaging app, by the reference the widget put in the
 * pre-filled text: when a message with "ref XXXXXXXX" arrives in the app, this says which campaign it came
 * from. The widget makes up the reference, so it is unique per workspace only.
 */
export const messagingHandoffs = sqliteTable(
	'messaging_handoffs',
	{
		workspaceId: text('workspace_id').notNull(),
		ref: text('ref').notNull(),
		channel: text('channel', { enum: HANDOFF_CHANNELS }).notNull(),
		/** The campaign origin at the click (`{}` when none was captured). */
		origin: text('origin', { mode: 'json' }).$type<Record<string, string>>().notNull(),
		/** The widget visitor who clicked, when the widget had a session. */
		sessionId: text('session_id'),
		createdAt: integer('created_at').notNull(),
		/** The conversation the visitor arrived as in the app (its first message carried the reference); null until then. */
		conversationId: text('conversation_id'),
	},
	(t) => [
		primaryKey({ columns: [t.workspaceId, t.ref] }),
		// The reports count handoffs over a date range.
		index('messaging_handoffs_created').on(t.workspaceId, t.createdAt),
	],
);

export const widgetSettings = sqliteTable('widget_settings', {
	workspaceId: text('workspace_id').primaryKey(),
	/** The whole settings object, validated by `widgetSettingsSchema` before every write. */
	settings: text('settings', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
	updatedAt: integer('updated_at').notNull(),
});
