/**
 * Each operator's choice of the team mail it receives: a conversation assigned to it while it is offline, a
 * new conversation nobody took or answered within N minutes, a mention in a private note, a rule's or a bot's
 * notify.
 * An operator reads and sets its own (`/v3/me/notifications`); one that never saved has the defaults, which
 * follow Chatwoot's: the mail about what is addressed to the operator alone (an assignment, a mention, a
 * rule naming it) is on; the mail about the whole queue (nobody took it) is off until chosen.
 */
import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { memberNotificationSettings } from '../../../db/schema';
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
		description:
			'Mail me when a rule’s notify action or a bot’s notify step names me (or the whole team). Default: true.',
	}),
};

export const notificationSettingsSchema = z.object(fields).openapi('NotificationSettings');
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;

/** A partial update: fields left out keep their value. */
export const notificationSettingsUpdateSchema = z.strictObject(fields).partial().openapi('NotificationSettingsUpdate');
export type NotificationSettingsUpdate = z.infer<typeof notificationSettingsUpdateSchema>;

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
	assignedWhileOffline: true,
	unanswered: false,
	unansweredAfterMinutes: DEFAULT_UNANSWERED_MINUTES,
	mentions: true,
	ruleNotifications: true,
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
	const values = { ...(await loadNotificationSettings(db, workspaceId, operatorId)), ...update, updatedAt: now };
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

/**
 * Which of `operatorIds` want the mail of `kind`: their saved choice (the workspace's `saved` rows), or the
 * default for those who never saved one.
 */
export function operatorsWanting(
	saved: ReadonlyMap<string, Row>,
	kind: Exclude<NotificationKind, 'unanswered'>,
	operatorIds: readonly string[],
): Set<string> {
	return new Set(operatorIds.filter((id) => view(saved.get(id))[FIELD[kind]]));
}
