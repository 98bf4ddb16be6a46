/**
 * Each operator's choice of the team mail it receives: a conversation assigned to it while it is offline, a
 * new conversation nobody took or answered within N minutes, a mention in a private note, a rule's notify.
 * Beside it, under `alerts`, what alerts it in the console, on the desktop and by Web Push, kind by kind
 * (src/model/alerts.ts), and whether an open console chimes: one store for every way the team is told.
 * An operator reads and sets its own (`/v3/me/notifications`); one that never saved has the defaults, which
 * follow Chatwoot's: the mail about what is addressed to the operator alone (an assignment, a mention, a
 * rule naming it) is on; the mail about the whole queue (nobody took it) is off until chosen.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { memberNotificationSettings } from '../../../db/schema';
import type { AlertKind } from '../../../model/alerts';
import type { NotificationKind } from '../../../model/notifications';

export const DEFAULT_UNANSWERED_MINUTES = 10;
export const MAX_UNANSWERED_MINUTES = 24 * 60;

/** Each choice, written once for the settings and their update. */
const fields = {
	assignedWhileOffline: z.boolean().openapi({
		description: 'Mail me when a conversation is assigned to me while I am offline. Default: true.',
	}),
	unanswered: z.boolean().openapi({
		description:
			'Mail me when a new conversation I could take (in its group, if it has one) is still unassigned and unanswered `unansweredAfterMinutes` after it started. Default: false.',
	}),
	unansweredAfterMinutes: z.number().int().min(1).max(MAX_UNANSWERED_MINUTES).openapi({
		description: 'How long a new conversation waits before the `unanswered` mail: 1 to 1,440 minutes. Default: 10.',
	}),
	mentions: z.boolean().openapi({
		description:
			'Mail me when a teammate mentions me in a private note: `@word` (my e-mail’s local part, or my name without spaces) or `@"My Name"`, case-insensitive. Default: true.',
	}),
	ruleNotifications: z.boolean().openapi({
		description: 'Mail me when an automation rule’s notify action names me (or the whole team). Default: true.',
	}),
};

/** Each alert kind a member turns on or off, and the sound, written once for the settings and their update. */
const alertFields = {
	newConversation: z.boolean().openapi({
		description: 'Alert me when a conversation starts that I could take (in its group, if it has one). Default: true.',
	}),
	assigned: z.boolean().openapi({ description: 'Alert me when a conversation is assigned to me. Default: true.' }),
	message: z.boolean().openapi({
		description: 'Alert me when the customer writes in a conversation assigned to me. Default: true.',
	}),
	mention: z.boolean().openapi({
		description: 'Alert me when a teammate mentions me in a private note. Default: true.',
	}),
	rule: z.boolean().openapi({
		description: 'Alert me when an automation rule’s notify action names me (or the whole team). Default: true.',
	}),
	sound: z.boolean().openapi({
		description: 'Play a short chime with each alert while a console is open. Default: false.',
	}),
};

const alertsSchema = z.object(alertFields).openapi('AlertSettings', {
	description:
		'What alerts me, kind by kind: in an open console (its counts, and a desktop notification while its tab is hidden), or by Web Push on the devices I subscribed (`/v3/me/push-subscriptions`) when no console is open. Never about what I did myself.',
});

export const notificationSettingsSchema = z.object({ ...fields, alerts: alertsSchema }).openapi('NotificationSettings');
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;

/** A partial update: fields left out keep their value, within `alerts` too. */
export const notificationSettingsUpdateSchema = z
	.strictObject({ ...fields, alerts: z.strictObject(alertFields).partial() })
	.partial()
	.openapi('NotificationSettingsUpdate');
export type NotificationSettingsUpdate = z.infer<typeof notificationSettingsUpdateSchema>;

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
	assignedWhileOffline: true,
	unanswered: false,
	unansweredAfterMinutes: DEFAULT_UNANSWERED_MINUTES,
	mentions: true,
	ruleNotifications: true,
	alerts: { newConversation: true, assigned: true, message: true, mention: true, rule: true, sound: false },
};

type Row = typeof memberNotificationSettings.$inferSelect;

function view(row: Row | undefined): NotificationSettings {
	if (!row) return DEFAULT_NOTIFICATION_SETTINGS;
	return {
		assignedWhileOffline: row.assignedWhileOffline,
		unanswered: row.unanswered,
		unansweredAfterMinutes: row.unansweredAfterMinutes,
		mentions: row.mentions,
		ruleNotifications: row.ruleNotifications,
		alerts: {
			newConversation: row.alertNewConversation,
			assigned: row.alertAssigned,
			message: row.alertMessage,
			mention: row.alertMention,
			rule: row.alertRule,
			sound: row.alertSound,
		},
	};
}

/** The settings as the table's columns. */
function columns(settings: NotificationSettings) {
	const { alerts, ...mail } = settings;
	return {
		...mail,
		alertNewConversation: alerts.newConversation,
		alertAssigned: alerts.assigned,
		alertMessage: alerts.message,
		alertMention: alerts.mention,
		alertRule: alerts.rule,
		alertSound: alerts.sound,
	};
}

/** The operator's settings (the defaults when it never saved any); always within its own workspace. */
export async function loadNotificationSettings(
	db: Database,
	workspaceId: string,
	operatorId: string,
): Promise<NotificationSettings> {
	const row = await db
		.select()
		.from(memberNotificationSettings)
		.where(
			and(
				eq(memberNotificationSettings.workspaceId, workspaceId),
				eq(memberNotificationSettings.operatorId, operatorId),
			),
		)
		.get();
	return view(row);
}

/** Saves a partial update of the operator's own settings; fields left out keep their value. */
export async function saveNotificationSettings(
	db: Database,
	workspaceId: string,
	operatorId: string,
	update: NotificationSettingsUpdate,
	now = Date.now(),
): Promise<NotificationSettings> {
	const current = await loadNotificationSettings(db, workspaceId, operatorId);
	const { alerts, ...mail } = update;
	const values = { ...columns({ ...current, ...mail, alerts: { ...current.alerts, ...alerts } }), updatedAt: now };
	const [row] = await db
		.insert(memberNotificationSettings)
		.values({ operatorId, workspaceId, ...values })
		.onConflictDoUpdate({ target: memberNotificationSettings.operatorId, set: values })
		.returning();
	return view(row);
}

const FIELD: Record<Exclude<NotificationKind, 'unanswered'>, keyof NotificationSettings> = {
	assigned: 'assignedWhileOffline',
	mention: 'mentions',
	rule: 'ruleNotifications',
};

const ALERT_FIELD: Record<AlertKind, keyof NotificationSettings['alerts']> = {
	new_conversation: 'newConversation',
	assigned: 'assigned',
	message: 'message',
	mention: 'mention',
	rule: 'rule',
};

/**
 * Which of `operatorIds` (of the workspace) want the mail of `kind`: their saved choice, or the default for
 * those who never saved one.
 */
export function operatorsWanting(
	db: Database,
	workspaceId: string,
	kind: Exclude<NotificationKind, 'unanswered'>,
	operatorIds: readonly string[],
): Promise<Set<string>> {
	return operatorsChoosing(db, workspaceId, operatorIds, (settings) => settings[FIELD[kind]] === true);
}

/** Which of `operatorIds` want alerts of `kind`, and which of those want the chime with them. */
export async function operatorsAlerted(
	db: Database,
	workspaceId: string,
	kind: AlertKind,
	operatorIds: readonly string[],
): Promise<{ alerted: Set<string>; chiming: Set<string> }> {
	const chiming = new Set<string>();
	const alerted = await operatorsChoosing(db, workspaceId, operatorIds, (settings, id) => {
		if (settings.alerts.sound) chiming.add(id);
		return settings.alerts[ALERT_FIELD[kind]];
	});
	for (const id of chiming) if (!alerted.has(id)) chiming.delete(id);
	return { alerted, chiming };
}

/** Which of `operatorIds` (of the workspace) make the choice `chooses` says: saved, or the defaults. */
async function operatorsChoosing(
	db: Database,
	workspaceId: string,
	operatorIds: readonly string[],
	chooses: (settings: NotificationSettings, operatorId: string) => boolean,
): Promise<Set<string>> {
	const wanting = new Set<string>();
	// D1 binds at most 100 parameters to a statement.
	for (let i = 0; i < operatorIds.length; i += 90) {
		const slice = operatorIds.slice(i, i + 90);
		const rows = await db
			.select()
			.from(memberNotificationSettings)
			.where(
				and(
					eq(memberNotificationSettings.workspaceId, workspaceId),
					inArray(memberNotificationSettings.operatorId, slice),
				),
			);
		const saved = new Map(rows.map((row) => [row.operatorId, view(row)]));
		for (const id of slice) {
			if (chooses(saved.get(id) ?? DEFAULT_NOTIFICATION_SETTINGS, id)) wanting.add(id);
		}
	}
	return wanting;
}
