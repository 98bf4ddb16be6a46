/**
 * The team's notification mail, enqueued: one `notification` delivery per operator who wants it
 * (notification-settings.ts), keyed so it is mailed once (src/engines/mail/notification.ts). Four triggers:
 *
 * - a conversation assigned to an operator who is offline at that moment (its `conversation.created` or
 *   `conversation.updated` event, on the events Queue);
 * - a mention in a private note (`message.created`; the syntax is src/engines/mail/mentions.ts);
 * - a rule's notify action or a bot's notify step (`rule.notification`, `bot.notification`: the operators it
 *   names, or the whole team), one kind (`rule`) and one choice of the member's for both;
 * - a new conversation still unassigned and unanswered the operator's N minutes after it started (the
 *   cron's `sweepUnanswered`), for the operators who could take it.
 *
 * Never a disabled operator, never the operator who caused it. The delivery names no conversation (the key
 * does): a notification is the team's mail, not the customer's, so it never lists among the conversation's
 * mail or threads a reply into it.
 */
import { and, eq, gt, isNotNull, isNull, lte, ne, or, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { conversations, memberNotificationSettings, operators } from '../../../db/schema';
import { mentionedMembers } from '../../../engines/mail/mentions';
import { type NotificationKey, notificationKey } from '../../../engines/mail/notification';
import type { DomainEvent } from '../../../model/events';
import type { NotificationKind } from '../../../model/notifications';
import { TeamReads } from '../../team/team-reads';
import { operatorsWanting } from './notification-settings';
import { enqueueMail } from './outbox';

/** An enabled operator of the workspace, as a notification reaches it. */
interface Member {
	id: string;
	name: string;
	email: string;
}

/** Enqueues the notification for each of `members` who wants `kind`, leaving out whoever caused it. */
async function notify(
	env: Env,
	db: Database,
	reads: TeamReads,
	event: DomainEvent,
	kind: Exclude<NotificationKind, 'unanswered'>,
	members: Member[],
	about: Omit<NotificationKey, 'kind' | 'operatorId'>,
	causedBy: string | null,
): Promise<void> {
	const others = members.filter((m) => m.id !== causedBy);
	if (others.length === 0) return;
	const wanting = operatorsWanting(
		await reads.savedSettings(event.workspaceId),
		kind,
		others.map((m) => m.id),
	);
	for (const member of others) {
		if (!wanting.has(member.id)) continue;
		await enqueueMail(env, db, {
			workspaceId: event.workspaceId,
			kind: 'notification',
			dedupeKey: notificationKey({ kind, operatorId: member.id, ...about }),
			recipient: member.email,
			operatorId: member.id,
		});
	}
}

/** Whom an event assigned a conversation to, or null. */
function assignedTo(event: DomainEvent): { conversationId: string; operatorId: string } | null {
	if (event.type === 'conversation.created') {
		const { conversation } = event.payload;
		return conversation.assigneeId ? { conversationId: conversation.id, operatorId: conversation.assigneeId } : null;
	}
	if (event.type === 'conversation.updated') {
		const to = event.payload.changes.assigneeId?.to;
		return to ? { conversationId: event.payload.conversation.id, operatorId: to } : null;
	}
	return null;
}

/** Whether the operator is offline now (never seen by the hub counts as offline). */
async function isOffline(reads: TeamReads, workspaceId: string, operatorId: string): Promise<boolean> {
	const presence = await reads.presence(workspaceId);
	return (presence.find((p) => p.operatorId === operatorId)?.status ?? 'offline') === 'offline';
}

/**
 * The events consumer's part: enqueues the notifications an event calls for. Idempotent: each key names the
 * event (or the note), so a redelivered event enqueues nothing new. `reads` is the batch's view of the team.
 */
export async function notifyTeam(
	env: Env,
	db: Database,
	event: DomainEvent,
	reads = new TeamReads(env, db),
): Promise<void> {
	const causedBy = event.actor.kind === 'operator' ? event.actor.id : null;
	const assignment = assignedTo(event);
	if (assignment !== null) {
		if (assignment.operatorId === causedBy) return;
		const [team, saved] = await Promise.all([
			reads.enabledMembers(event.workspaceId),
			reads.savedSettings(event.workspaceId),
		]);
		const members = team.filter((m) => m.id === assignment.operatorId);
		// The hub is asked last, and only about an operator who would be mailed.
		if (members.length === 0 || !operatorsWanting(saved, 'assigned', [assignment.operatorId]).size) return;
		if (!(await isOffline(reads, event.workspaceId, assignment.operatorId))) return;
		await notify(
			env,
			db,
			reads,
			event,
			'assigned',
			members,
			{ conversationId: assignment.conversationId, ref: event.id },
			causedBy,
		);
		return;
	}
	if (event.type === 'message.created') {
		const { message } = event.payload;
		if (!message.private || message.authorKind !== 'operator' || !message.text.includes('@')) return;
		const team = await reads.enabledMembers(event.workspaceId);
		const named = new Set(mentionedMembers(message.text, team));
		const author = message.authorId ?? causedBy;
		await notify(
			env,
			db,
			reads,
			event,
			'mention',
			team.filter((m) => named.has(m.id)),
			{ conversationId: message.conversationId, ref: message.id },
			author,
		);
		return;
	}
	if (event.type === 'rule.notification' || event.type === 'bot.notification') {
		const { operatorIds, conversationId } = event.payload;
		const team = await reads.enabledMembers(event.workspaceId);
		const members = operatorIds.length === 0 ? team : team.filter((m) => operatorIds.includes(m.id));
		await notify(env, db, reads, event, 'rule', members, { conversationId, ref: event.id }, causedBy);
	}
}

/**
 * How long after its due time a conversation is still mailed about: the sweep runs every minute, and an
 * operator who turns the mail on is not told of yesterday's conversations.
 */
export const UNANSWERED_WINDOW_MS = 60 * 60_000;
const SWEEP_BATCH = 200;

/**
 * The cron's sweep: every new conversation still unassigned and unanswered (a customer waits, no operator
 * has written) its N minutes after it started, for each enabled operator who wants the mail after N minutes
 * and could take it (in its group, when it has one). Each (conversation, operator) is mailed once: what
 * was already enqueued is left out of the read, so a long list is worked through a batch a minute.
 */
export async function sweepUnanswered(env: Env, db: Database, now = Date.now()): Promise<number> {
	const s = memberNotificationSettings;
	const due = sql`${now} - ${s.unansweredAfterMinutes} * 60000`;
	const rows = await db
		.select({
			workspaceId: conversations.workspaceId,
			conversationId: conversations.id,
			operatorId: operators.id,
			email: operators.email,
		})
		.from(s)
		.innerJoin(
			operators,
			and(eq(operators.id, s.operatorId), eq(operators.workspaceId, s.workspaceId), isNull(operators.disabledAt)),
		)
		.innerJoin(
			conversations,
			and(
				eq(conversations.workspaceId, s.workspaceId),
				lte(conversations.createdAt, due),
				gt(conversations.createdAt, sql`${due} - ${UNANSWERED_WINDOW_MS}`),
				isNull(conversations.assigneeId),
				isNull(conversations.firstResponseAt),
				isNotNull(conversations.waitingSince),
				ne(conversations.status, 'closed'),
				or(
					isNull(conversations.groupId),
					sql`EXISTS (SELECT 1 FROM operator_groups og WHERE og.workspace_id = "conversations"."workspace_id" AND og.operator_id = "operators"."id" AND og.group_id = "conversations"."group_id")`,
				),
			),
		)
		.where(
			and(
				eq(s.unanswered, true),
				// The key notificationKey writes for it, on the deliveries' unique index.
				sql`NOT EXISTS (SELECT 1 FROM mail_deliveries d WHERE d.workspace_id = "conversations"."workspace_id" AND d.dedupe_key = 'notify:unanswered:' || "operators"."id" || ':' || "conversations"."id" || ':' || "conversations"."id")`,
			),
		)
		.limit(SWEEP_BATCH);
	for (const row of rows) {
		await enqueueMail(
			env,
			db,
			{
				workspaceId: row.workspaceId,
				kind: 'notification',
				dedupeKey: notificationKey({
					kind: 'unanswered',
					operatorId: row.operatorId,
					conversationId: row.conversationId,
					ref: row.conversationId,
				}),
				recipient: row.email,
				operatorId: row.operatorId,
			},
			now,
		);
	}
	return rows.length;
}
