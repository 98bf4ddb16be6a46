/**
 * What the events consumer reads of a workspace's team to alert it and mail it (src/domain/alerts/deliver.ts,
 * src/domain/channels/email/notifications.ts): its enabled members with their groups, their saved
 * notification settings, and their presence. Read once per workspace per batch of events and shared by the
 * batch's events: a burst of a thousand assignments otherwise read the same rows some eight thousand times. A
 * batch takes about a second, so a member disabled or a setting changed during it applies from the next one.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { memberNotificationSettings, operatorGroups, operators } from '../../db/schema';
import type { PresenceStatus } from '../../model/presence';
import { workspaceHub } from '../objects';

/** An enabled member, as an alert or a notification mail reaches it. */
export interface TeamMember {
	id: string;
	name: string;
	email: string;
	groupIds: string[];
}

/** An operator's presence, as the hub answers it. */
export interface Presence {
	operatorId: string;
	status: PresenceStatus;
}

export type SavedSettings = ReadonlyMap<string, typeof memberNotificationSettings.$inferSelect>;

export class TeamReads {
	private readonly members = new Map<string, Promise<TeamMember[]>>();
	private readonly settings = new Map<string, Promise<SavedSettings>>();
	private readonly presences = new Map<string, Promise<Presence[]>>();

	constructor(
		private readonly env: Env,
		private readonly db: Database,
	) {}

	/** The workspace's enabled members, each with its groups. */
	enabledMembers(workspaceId: string): Promise<TeamMember[]> {
		return once(this.members, workspaceId, async () => {
			const [members, groups] = await Promise.all([
				this.db
					.select({ id: operators.id, name: operators.name, email: operators.email })
					.from(operators)
					.where(and(eq(operators.workspaceId, workspaceId), isNull(operators.disabledAt))),
				this.db
					.select({ operatorId: operatorGroups.operatorId, groupId: operatorGroups.groupId })
					.from(operatorGroups)
					.where(eq(operatorGroups.workspaceId, workspaceId)),
			]);
			return members.map((m) => ({
				...m,
				groupIds: groups.filter((g) => g.operatorId === m.id).map((g) => g.groupId),
			}));
		});
	}

	/** The notification settings the workspace's members saved, by operator (the defaults apply to the rest). */
	savedSettings(workspaceId: string): Promise<SavedSettings> {
		return once(this.settings, workspaceId, async () => {
			const rows = await this.db
				.select()
				.from(memberNotificationSettings)
				.where(eq(memberNotificationSettings.workspaceId, workspaceId));
			return new Map(rows.map((row) => [row.operatorId, row]));
		});
	}

	/** Everyone's presence, as the workspace's hub has it. */
	presence(workspaceId: string): Promise<Presence[]> {
		return once(this.presences, workspaceId, () => workspaceHub(this.env, workspaceId).presenceOf());
	}
}

/** The read of `key`, made on first ask; a failed one is forgotten, so the next event reads again. */
function once<T>(memo: Map<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
	const known = memo.get(key);
	if (known) return known;
	const reading = read();
	memo.set(key, reading);
	reading.catch(() => memo.delete(key));
	return reading;
}
