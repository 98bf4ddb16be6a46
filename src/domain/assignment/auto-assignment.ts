/**
 * Auto-assignment's reads and writes in D1, for the workspace's hub, which decides (durable-objects/
 * hub-assignment.ts): the team as the strategies see it (enabled operators, their groups, capacities and open
 * conversations), the contact's last operator, the guarded assignment itself, and an operator's unanswered
 * conversations to hand back when it goes offline. D1 stays the record of who is assigned.
 *
 * And what the events consumer tells the hub: which events put a conversation in the queue (a new one no bot
 * greets, a reopened one, one a bot transferred or an operator left unassigned) and which may let a waiting one
 * be taken (a conversation closed or handed over, a member's capacity or groups changed).
 */
import { and, desc, eq, inArray, isNotNull, isNull, ne, type SQL, sql } from 'drizzle-orm';
import { batchGuard, brokeGuard, type Database, sameIds } from '../../db/client';
import { assignmentRules, conversations, operators } from '../../db/schema';
import type { OperatorSnapshot } from '../../engines/assignment';
import { commit, commitEach, IF_CHANGED, release } from '../../events/commit';
import { SYSTEM } from '../../model/actor';
import { nextOpening } from '../../model/business-hours';
import { CAMPAIGN_START } from '../../model/campaigns';
import type { DomainEvent } from '../../model/events';
import type { PresenceStatus } from '../../model/presence';
import { runnableBots } from '../automation/bots/bots';
import { conversationsMoved } from '../conversations/conversations';
import { assignmentGuard } from '../team/assignees';
import { operatorLoad } from '../team/presence';
import { loadWidgetSettings } from '../widget/settings';

/** A conversation waiting for an operator, as the hub's queue keeps it. */
export interface WaitingConversation {
	conversationId: string;
	contactId: string;
	channel: string;
	groupId: string | null;
	/** When it started waiting (ms): the queue is served longest waiting first. */
	since: number;
}

/** The team as the strategies see it, presence aside: read once per round of decisions. */
export async function teamSnapshot(
	db: Database,
	workspaceId: string,
	presence: ReadonlyMap<string, PresenceStatus>,
	now: number,
): Promise<{ operators: OperatorSnapshot[]; withinBusinessHours: boolean; opensAt: number | null }> {
	// Written out, as `operatorLoad` is (see there).
	const groupIds = sql<string>`(SELECT json_group_array(og.group_id) FROM operator_groups og WHERE og.workspace_id = operators.workspace_id AND og.operator_id = operators.id)`;
	const [rows, { settings }] = await Promise.all([
		db
			.select({
				id: operators.id,
				disabledAt: operators.disabledAt,
				capacity: operators.capacity,
				load: operatorLoad,
				groupIds,
			})
			.from(operators)
			.where(eq(operators.workspaceId, workspaceId)),
		loadWidgetSettings(db, workspaceId),
	]);
	// Open now, or when it next opens (null: not within weeks): what waits for the hours is looked at then.
	const opening = nextOpening(settings.businessHours, new Date(now));
	const withinBusinessHours = opening !== null && opening.getTime() === now;
	return {
		operators: rows.map((row) => ({
			id: row.id,
			enabled: row.disabledAt === null,
			status: presence.get(row.id) ?? 'offline',
			groupIds: JSON.parse(row.groupIds) as string[],
			capacity: row.capacity,
			load: row.load,
		})),
		withinBusinessHours,
		opensAt: withinBusinessHours ? null : (opening?.getTime() ?? null),
	};
}

/**
 * The operator who last served each contact: the assignee of its most recently active conversation. One
 * query for a round's contacts (90 at a time: D1's bind limit).
 */
export async function lastAgentsOf(
	db: Database,
	workspaceId: string,
	contactIds: readonly string[],
): Promise<Map<string, string>> {
	const last = new Map<string, string>();
	const unique = [...new Set(contactIds)];
	for (let i = 0; i < unique.length; i += 90) {
		const rows = await db
			.select({ contactId: conversations.contactId, assigneeId: conversations.assigneeId })
			.from(conversations)
			.where(
				and(
					eq(conversations.workspaceId, workspaceId),
					inArray(conversations.contactId, unique.slice(i, i + 90)),
					isNotNull(conversations.assigneeId),
				),
			)
			.orderBy(desc(conversations.lastActivityAt), desc(conversations.id));
		// Newest first: the first row of each contact is its last agent.
		for (const row of rows) if (!last.has(row.contactId)) last.set(row.contactId, row.assigneeId as string);
	}
	return last;
}

/** The conversations' assignee and status now, by id (90 ids a query: D1's bind limit). */
export async function assignmentStates(
	db: Database,
	workspaceId: string,
	conversationIds: readonly string[],
): Promise<Map<string, { assigneeId: string | null; status: string }>> {
	const states = new Map<string, { assigneeId: string | null; status: string }>();
	for (let i = 0; i < conversationIds.length; i += 90) {
		const rows = await db
			.select({ id: conversations.id, assigneeId: conversations.assigneeId, status: conversations.status })
			.from(conversations)
			.where(
				and(eq(conversations.workspaceId, workspaceId), inArray(conversations.id, conversationIds.slice(i, i + 90))),
			);
		for (const row of rows) states.set(row.id, { assigneeId: row.assigneeId, status: row.status });
	}
	return states;
}

/** A conversation given to an operator: one of the hub's decisions. */
export interface AssignmentChoice {
	conversationId: string;
	operatorId: string;
}

/**
 * Several of the hub's decisions written together: each conversation assigned if it is still open and
 * unassigned and its operator still enabled, with its `conversation.updated`, all in one D1 batch and one
 * release (where one at a time cost four round trips each: a burst of 1,000 took 24 s). A batch whose guard
 * fails (an operator disabled at that moment) is all refused, and its decisions are written one by one, so only
 * that operator's are lost. Resolves with the conversations that were assigned.
 */
export async function assignWaitingMany(
	env: Env,
	db: Database,
	workspaceId: string,
	choices: readonly AssignmentChoice[],
	now = Date.now(),
): Promise<Set<string>> {
	const assigned = new Set<string>();
	if (choices.length === 0) return assigned;
	const rows = await db
		.select()
		.from(conversations)
		.where(
			and(
				eq(conversations.workspaceId, workspaceId),
				inArray(
					conversations.id,
					choices.map((c) => c.conversationId),
				),
			),
		);
	const byId = new Map(rows.map((row) => [row.id, row]));
	const open = choices.filter((choice) => {
		const current = byId.get(choice.conversationId);
		return current !== undefined && current.assigneeId === null && current.status !== 'closed';
	});
	const changes = open.map((choice) => {
		const current = byId.get(choice.conversationId) as (typeof rows)[number];
		return assignmentChange(db, workspaceId, current, choice.operatorId, now);
	});
	try {
		const committed = await commitEach(db, changes);
		const events = committed.flatMap((c) => c.events);
		committed.forEach((c, i) => {
			const choice = open[i];
			if (choice && c.events.length > 0) assigned.add(choice.conversationId);
		});
		await release(env, events);
		return assigned;
	} catch (error) {
		if (!brokeGuard(error)) throw error;
	}
	for (const choice of open) {
		if (await assignWaiting(env, db, workspaceId, choice.conversationId, choice.operatorId, now)) {
			assigned.add(choice.conversationId);
		}
	}
	return assigned;
}

/** The guarded write of one assignment and its conditional event. */
function assignmentChange(
	db: Database,
	workspaceId: string,
	current: typeof conversations.$inferSelect,
	operatorId: string,
	now: number,
) {
	const [event] = conversationsMoved(workspaceId, SYSTEM, [current], 'assigneeId', operatorId, now) as [DomainEvent];
	const guard = assignmentGuard(workspaceId, { assigneeId: operatorId });
	const update = db
		.update(conversations)
		.set({ assigneeId: operatorId, updatedAt: now, lastActivityAt: sql`MAX(${conversations.lastActivityAt}, ${now})` })
		.where(
			and(
				eq(conversations.workspaceId, workspaceId),
				eq(conversations.id, current.id),
				isNull(conversations.assigneeId),
				ne(conversations.status, 'closed'),
			),
		);
	return { statements: [...(guard ? [guard] : []), update], events: [{ event, onlyIf: IF_CHANGED }] };
}

/**
 * Assigns the conversation to the operator if it is still open and unassigned (a person may have taken it
 * meanwhile) and the operator still enabled, with its `conversation.updated`. Returns whether it did.
 */
export async function assignWaiting(
	env: Env,
	db: Database,
	workspaceId: string,
	conversationId: string,
	operatorId: string,
	now = Date.now(),
): Promise<boolean> {
	const current = await db
		.select()
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, conversationId)))
		.get();
	if (!current || current.assigneeId !== null || current.status === 'closed') return false;
	try {
		const committed = await commit(db, assignmentChange(db, workspaceId, current, operatorId, now));
		await release(env, committed.events);
		return committed.events.length > 0;
	} catch (error) {
		// The operator was disabled or deleted at that moment: the conversation waits for another.
		if (brokeGuard(error)) return false;
		throw error;
	}
}

/**
 * The operator's open conversations whose customer waits for an answer (the last word is the customer's):
 * unassigned in one batch, each with its `conversation.updated`, when the operator went offline past its grace
 * period. Returns them for the queue. A batch that finds the set changed since its read (a reply, a close)
 * is refused and read again.
 */
export async function releaseUnanswered(
	env: Env,
	db: Database,
	workspaceId: string,
	operatorId: string,
	now = Date.now(),
): Promise<WaitingConversation[]> {
	const unanswered = and(
		eq(conversations.workspaceId, workspaceId),
		eq(conversations.assigneeId, operatorId),
		ne(conversations.status, 'closed'),
		isNotNull(conversations.waitingSince),
	) as SQL;
	for (let attempt = 1; ; attempt++) {
		const rows = await db.select().from(conversations).where(unanswered).limit(500);
		if (rows.length === 0) return [];
		const ids = rows.map((row) => row.id);
		const these = and(unanswered, inArray(conversations.id, ids)) as SQL;
		const statements = [
			batchGuard(sameIds(sql`SELECT id FROM ${conversations} WHERE ${these}`, ids)),
			db.update(conversations).set({ assigneeId: null, updatedAt: now }).where(these),
		];
		try {
			const events = conversationsMoved(workspaceId, SYSTEM, rows, 'assigneeId', null, now);
			await release(env, (await commit(db, { statements, events })).events);
		} catch (error) {
			if (brokeGuard(error) && attempt < 3) continue;
			throw error;
		}
		return rows.map((row) => ({
			conversationId: row.id,
			contactId: row.contactId,
			channel: row.channel,
			groupId: row.groupId,
			since: row.waitingSince ?? now,
		}));
	}
}

/** Which of these workspaces have auto-assignment on: an enabled assignment rule. */
export async function assigningWorkspaces(db: Database, workspaceIds: string[]): Promise<string[]> {
	if (workspaceIds.length === 0) return [];
	const rows = await db
		.selectDistinct({ workspaceId: assignmentRules.workspaceId })
		.from(assignmentRules)
		.where(and(inArray(assignmentRules.workspaceId, workspaceIds), eq(assignmentRules.enabled, true)));
	return rows.map((r) => r.workspaceId);
}

/** What an event means for assignment: a conversation to queue, a chance for waiting ones, or nothing. */
type AssignmentSignal = { kind: 'waiting'; conversation: WaitingConversation } | { kind: 'capacity' } | null;

/** Whether a greeter bot (a `new_conversation` one for the channel) would take the customer's first message. */
async function greeted(db: Database, workspaceId: string, channel: string): Promise<boolean> {
	const greeters = await runnableBots(db, workspaceId, ['new_conversation']);
	return greeters.some((bot) => bot.channels === null || bot.channels.includes(channel));
}

/**
 * Reads an event for assignment. A new conversation waits, unless a greeter bot may take it: then its first
 * message decides, as the room decides whether the bot greets: an operator's means the team opened it, and it
 * waits; otherwise the greeter takes the customer's first message. A conversation a bot transfers to a person
 * (or a bot fails in), reopened, routed to a group, or unassigned by a person (not by the hub's own hand-back)
 * waits too. A close, a reassignment or a member's change may free room.
 */
export async function assignmentSignal(db: Database, event: DomainEvent): Promise<AssignmentSignal> {
	const waiting = (c: { id: string; contactId: string; channel: string; groupId: string | null }) => ({
		kind: 'waiting' as const,
		conversation: {
			conversationId: c.id,
			contactId: c.contactId,
			channel: c.channel,
			groupId: c.groupId,
			since: Date.parse(event.occurredAt),
		},
	});
	/** The conversation as D1 has it now, when it is still open and unassigned. */
	const unassigned = async (conversationId: string) => {
		const row = await db
			.select()
			.from(conversations)
			.where(and(eq(conversations.workspaceId, event.workspaceId), eq(conversations.id, conversationId)))
			.get();
		return row && row.assigneeId === null && row.status !== 'closed' ? row : null;
	};
	switch (event.type) {
		case 'conversation.created': {
			const { conversation } = event.payload;
			if (conversation.assigneeId !== null || conversation.status === 'closed') return null;
			// A campaign's conversation waits for the contact's answer (below): thousands of unanswered campaign
			// messages must not fill the team's capacity.
			if (event.actor.kind === 'campaign') return null;
			if (await greeted(db, event.workspaceId, conversation.channel)) return null;
			return waiting(conversation);
		}
		case 'message.created': {
			// Only an operator's first message: the room greets a customer's first message unless an operator wrote
			// before it (a bot's or a rule's opening message does not stop the greeter).
			const { message } = event.payload;
			// A private note says nothing to the customer: it neither opens the conversation to the team nor answers.
			if (message.private) return null;
			if (message.seq > 1 && message.authorKind === 'contact') {
				// The contact answering in a conversation a campaign opened: now it waits. Not only at seq 2: a second
				// campaign may have written there first. A conversation already queued is queued once (the hub
				// ignores a repeat), and one someone took is left alone.
				const row = await unassigned(message.conversationId);
				return row?.startKey?.startsWith(CAMPAIGN_START) ? waiting(row) : null;
			}
			if (message.seq !== 1 || message.authorKind !== 'operator') return null;
			const row = await unassigned(message.conversationId);
			return row && (await greeted(db, event.workspaceId, row.channel)) ? waiting(row) : null;
		}
		case 'conversation.updated': {
			const { conversation, changes } = event.payload;
			const open = conversation.status !== 'closed' && conversation.assigneeId === null;
			const unassignedByPerson = changes.assigneeId !== undefined && event.actor.kind !== 'system';
			// Routed to a group (by a person, a bot or a rule): a group rule picks its operator.
			const routed = changes.groupId !== undefined && conversation.groupId !== null;
			if (open && (changes.status?.to === 'open' || unassignedByPerson || routed)) return waiting(conversation);
			// A close, or a conversation taken from someone, frees room; an assignment from nobody frees none.
			const handedOver = changes.assigneeId !== undefined && changes.assigneeId.from !== null;
			if (changes.status?.to === 'closed' || handedOver) return { kind: 'capacity' };
			return null;
		}
		case 'bot.run_ended': {
			// Transferred to a person, or failed: either way the customer needs one now.
			if (event.payload.status !== 'transferred' && event.payload.status !== 'failed') return null;
			const row = await unassigned(event.payload.conversationId);
			return row ? waiting(row) : null;
		}
		case 'member.updated':
		case 'member.deleted':
		case 'group.updated':
			return { kind: 'capacity' };
		default:
			return null;
	}
}
