/**
 * The clock's side of the rules (every minute, from the Cron Trigger): `conversation_waiting` rules are met
 * by `conversation.waiting`, which the waiting sweep sends for the conversations that have waited each
 * threshold, once per waiting period (its id says which); executions older than 30 days are dropped.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { automationRules, conversations } from '../../../db/schema';
import { deliverEvents } from '../../../events/deliver';
import { iso } from '../../../lib/ids';
import type { DomainEvent } from '../../../model/events';
import { conversationSummary } from '../../conversations/conversations';

/** Conversations one sweep announces per workspace and threshold; the next minute's sweep goes on. */
const WAITING_PER_SWEEP = 100;
/** Executions are kept this long. */
const EXECUTIONS_KEPT_MS = 30 * 86_400_000;

/**
 * The waiting sweep (every minute, from the Cron Trigger): for each threshold of the enabled
 * `conversation_waiting` rules, the open conversations whose customer has waited that long without an
 * operator's reply get a `conversation.waiting` event, once per waiting period: its id is made of the
 * conversation, the time the wait began and the threshold, so the events log tells a sent one.
 */
export async function sweepWaiting(env: Env, db: Database, now = Date.now()): Promise<number> {
	const thresholds = await db
		.selectDistinct({
			workspaceId: automationRules.workspaceId,
			minutes: sql<number>`json_extract(${automationRules.trigger}, '$.minutes')`,
		})
		.from(automationRules)
		.where(and(eq(automationRules.triggerKind, 'conversation_waiting'), eq(automationRules.enabled, true)));
	let sent = 0;
	for (const { workspaceId, minutes } of thresholds) {
		// Built once, in SQL, for the check and the event. D1 binds a JS number as a REAL: cast, or 15 reads "15.0".
		const eventId = sql<string>`'evt_wait_' || ${conversations.id} || '_' || ${conversations.waitingSince} || '_' || CAST(${minutes} AS INTEGER)`;
		const rows = await db
			.select({
				eventId,
				id: conversations.id,
				contactId: conversations.contactId,
				channel: conversations.channel,
				status: conversations.status,
				assigneeId: conversations.assigneeId,
				groupId: conversations.groupId,
				waitingSince: conversations.waitingSince,
			})
			.from(conversations)
			.where(
				and(
					eq(conversations.workspaceId, workspaceId),
					sql`${conversations.waitingSince} <= ${now - minutes * 60_000}`,
					sql`${conversations.status} != 'closed'`,
					sql`NOT EXISTS (SELECT 1 FROM events e WHERE e.id = ${eventId})`,
				),
			)
			.limit(WAITING_PER_SWEEP);
		const list: DomainEvent[] = rows.map((row) => ({
			id: row.eventId,
			type: 'conversation.waiting',
			workspaceId,
			occurredAt: iso(now),
			actor: { kind: 'system', id: null },
			payload: { conversation: conversationSummary(row), waitingSince: iso(row.waitingSince as number), minutes },
		}));
		if (list.length > 0) await deliverEvents(env, list, false);
		sent += list.length;
	}
	return sent;
}

/** Drops executions older than 30 days, a slice per minute. */
export async function purgeExecutions(db: Database, now = Date.now()): Promise<void> {
	await db.run(
		sql`DELETE FROM rule_executions WHERE id IN (SELECT id FROM rule_executions WHERE created_at < ${now - EXECUTIONS_KEPT_MS} LIMIT 500)`,
	);
}
