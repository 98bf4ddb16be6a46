/**
 * What alerts each member, kind by kind (src/model/alerts.ts), and whether an open console chimes: kept in the
 * member's notification settings row (member_notification_settings, beside the mail it chose), read and set
 * apart from the mail (`/v3/me/notifications/alerts`). A member who never saved has the defaults: every kind
 * on (an alert is about what concerns the member, and the console is where the work is), the sound off (a
 * console in an open-plan office chimes only for whoever chose it).
 */
import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { memberNotificationSettings } from '../../db/schema';
import type { AlertKind } from '../../model/alerts';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../channels/email/notification-settings';

/** Each choice, written once for the settings and their update. */
const fields = {
	newConversation: z.boolean().openapi({
		description: 'Alert me when a conversation starts that I could take (in its group, if it has one). Default: true.',
	}),
	assigned: z.boolean().openapi({ description: 'Alert me when a conversation is assigned to me. Default: true.' }),
	message: z.boolean().openapi({
		description: 'Alert me when the customer writes in a conversation assigned to me. Default: true.',
	}),
	mention: z.boolean().openapi({
		description:
			'Alert me when a teammate mentions me in a private note (`@word` or `@"Full Name"`, as for the mail). Default: true.',
	}),
	rule: z.boolean().openapi({
		description:
			'Alert me when a rule’s notify action or a bot’s notify step names me (or the whole team). Default: true.',
	}),
	sound: z
		.boolean()
		.openapi({ description: 'Play a short chime with each alert while a console is open. Default: false.' }),
};

export const alertSettingsSchema = z.object(fields).openapi('AlertSettings');
export type AlertSettings = z.infer<typeof alertSettingsSchema>;

/** A partial update: fields left out keep their value. */
export const alertSettingsUpdateSchema = z.strictObject(fields).partial().openapi('AlertSettingsUpdate');
export type AlertSettingsUpdate = z.infer<typeof alertSettingsUpdateSchema>;

export const DEFAULT_ALERT_SETTINGS: AlertSettings = {
	newConversation: true,
	assigned: true,
	message: true,
	mention: true,
	rule: true,
	sound: false,
};

type Row = typeof memberNotificationSettings.$inferSelect;

function view(row: Row | undefined): AlertSettings {
	if (!row) return DEFAULT_ALERT_SETTINGS;
	return {
		newConversation: row.alertNewConversation,
		assigned: row.alertAssigned,
		message: row.alertMessage,
		mention: row.alertMention,
		rule: row.alertRule,
		sound: row.alertSound,
	};
}

const s = memberNotificationSettings;

/** The member's alert settings (the defaults when it never saved any); always within its own workspace. */
export async function loadAlertSettings(db: Database, workspaceId: string, operatorId: string): Promise<AlertSettings> {
	const row = await db
		.select()
		.from(s)
		.where(and(eq(s.workspaceId, workspaceId), eq(s.operatorId, operatorId)))
		.get();
	return view(row);
}

/** Saves a partial update of the member's own alert settings; its mail settings stay as they are. */
export async function saveAlertSettings(
	db: Database,
	workspaceId: string,
	operatorId: string,
	update: AlertSettingsUpdate,
	now = Date.now(),
): Promise<AlertSettings> {
	const next = { ...(await loadAlertSettings(db, workspaceId, operatorId)), ...update };
	const columns = {
		alertNewConversation: next.newConversation,
		alertAssigned: next.assigned,
		alertMessage: next.message,
		alertMention: next.mention,
		alertRule: next.rule,
		alertSound: next.sound,
		updatedAt: now,
	};
	const [row] = await db
		.insert(s)
		.values({ operatorId, workspaceId, ...DEFAULT_NOTIFICATION_SETTINGS, ...columns })
		.onConflictDoUpdate({ target: s.operatorId, set: columns })
		.returning();
	return view(row);
}

const FIELD: Record<AlertKind, keyof AlertSettings> = {
	new_conversation: 'newConversation',
	assigned: 'assigned',
	message: 'message',
	mention: 'mention',
	rule: 'rule',
};

/**
 * Which of `operatorIds` want alerts of `kind` (saved, as the workspace's `saved` rows say, or the defaults), and
 * which of those chose the chime.
 */
export function operatorsAlerted(
	saved: ReadonlyMap<string, Row>,
	kind: AlertKind,
	operatorIds: readonly string[],
): { alerted: Set<string>; chiming: Set<string> } {
	const alerted = new Set<string>();
	const chiming = new Set<string>();
	for (const id of operatorIds) {
		const settings = view(saved.get(id));
		if (!settings[FIELD[kind]]) continue;
		alerted.add(id);
		if (settings.sound) chiming.add(id);
	}
	return { alerted, chiming };
}
