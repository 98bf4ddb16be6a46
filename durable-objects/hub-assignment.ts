/**
 * Auto-assignment, held by the workspace's hub: the queue of conversations waiting for an operator (longest
 * waiting first), the round-robin cursor of each rule, and one loop that makes the decisions one at a time, so
 * two conversations arriving together never land out of turn and no capacity is overrun. Each round reads the
 * team from D1 once (operators, groups, capacities, open conversations: D1 is the record of who is assigned),
 * takes presence from the hub, and then keeps loads up itself as it assigns.
 *
 * The loop runs when a conversation is queued, when an operator's presence moves, when capacity may have been
 * freed (a close, a hand-over, a member's change) and when the rules or the business hours change; a
 * conversation nobody can take stays queued until one of those. Two timers go round again by themselves: one
 * after a failure, and one at the opening of business hours when a rule keeps conversations waiting for them.
 */
import { workspaceDb } from '../src/db/shards';
import {
	type AssignmentChoice,
	assigningWorkspaces,
	assignmentStates,
	assignWaitingMany,
	lastAgentsOf,
	releaseUnanswered,
	teamSnapshot,
	type WaitingConversation,
} from '../src/domain/assignment/auto-assignment';
import { enabledAssignmentRules } from '../src/domain/assignment/rules';
import { choose, matchingRule, type OperatorSnapshot } from '../src/engines/assignment';
import type { PresenceStatus } from '../src/model/presence';
import type { RoomTimers } from './room-timers';

export const ASSIGNMENT_SCHEMA = [
	`CREATE TABLE IF NOT EXISTS assignment_queue (conversation_id TEXT PRIMARY KEY, contact_id TEXT NOT NULL,
		channel TEXT NOT NULL, group_id TEXT, since INTEGER NOT NULL)`,
	'CREATE INDEX IF NOT EXISTS assignment_queue_since ON assignment_queue (since, conversation_id)',
	'CREATE TABLE IF NOT EXISTS assignment_cursors (rule_id TEXT PRIMARY KEY, operator_id TEXT NOT NULL)',
];

export const ASSIGNMENT_RETRY_TIMER = 'assignment-retry';
/** A round when business hours open, for conversations that wait for them (a retry timer by kind). */
const OPENING_TIMER = 'assignment-opening';
const DAY_MS = 86_400_000;

/** Decisions per round before the team is read again (loads moved by others meanwhile are seen then). */
const ROUND = 200;
/** Event ids `enqueue` remembers: far more than arrive in the seconds between an event's two deliveries. */
const HEARD = 2_000;
/** Decisions written together: one D1 batch of three statements each (the guard, the update, its event). */
const WRITE_BATCH = 30;

type QueueRow = {
	conversation_id: string;
	contact_id: string;
	channel: string;
	group_id: string | null;
	since: number;
};

export interface QueuedView {
	conversationId: string;
	since: number;
}

export class HubAssignment {
	/** The loop under way, if any: a call that finds one asks it to go round once more. */
	private running: Promise<void> | null = null;
	private again = false;
	/** The ids of the latest events that queued conversations (see `enqueue`). */
	private readonly heard = new Set<string>();
	/**
	 * Whether the workspace has an enabled assignment rule, as last read (null: not known), so that the prompt
	 * path asks D1 only when it does not know. Every round reads the rules and keeps it up; a change of the
	 * rules reaches the hub (`rulesChanged`), which forgets it. `rulesSeen` counts those changes, so a read
	 * begun before one never stores what it read.
	 */
	private assigning: boolean | null = null;
	private rulesSeen = 0;

	constructor(
		private readonly storage: DurableObjectStorage,
		private readonly env: Env,
		private readonly timers: RoomTimers,
		/** Each operator's effective presence now. */
		private readonly presence: () => ReadonlyMap<string, PresenceStatus>,
	) {}

	/** The conversations waiting, longest first. */
	queue(): QueuedView[] {
		return this.storage.sql
			.exec<QueueRow>('SELECT * FROM assignment_queue ORDER BY since, conversation_id')
			.toArray()
			.map((row) => ({ conversationId: row.conversation_id, since: row.since }));
	}

	/**
	 * Queues conversations (a repeat keeps its first time) and runs the loop. `eventId` names the event that
	 * queued them: heard a second time (the prompt path and the events Queue both deliver it, hub-prompt.ts),
	 * it changes nothing and costs no round. Remembered in memory only: a repeat after a restart is queued
	 * again, and the round finds the conversation assigned in D1 and drops it.
	 */
	async enqueue(workspaceId: string, waiting: readonly WaitingConversation[], eventId?: string): Promise<void> {
		if (eventId !== undefined) {
			if (this.heard.has(eventId)) return;
			this.heard.add(eventId);
			// A Set iterates in insertion order: the oldest goes first.
			if (this.heard.size > HEARD) this.heard.delete(this.heard.values().next().value as string);
		}
		for (const w of waiting) {
			this.storage.sql.exec(
				'INSERT OR IGNORE INTO assignment_queue (conversation_id, contact_id, channel, group_id, since) VALUES (?, ?, ?, ?, ?)',
				w.conversationId,
				w.contactId,
				w.channel,
				w.groupId,
				w.since,
			);
		}
		await this.run(workspaceId);
	}

	/** Whether the workspace assigns automatically (an enabled rule): known, or read once. */
	async assigns(workspaceId: string): Promise<boolean> {
		if (this.assigning !== null) return this.assigning;
		const seen = this.rulesSeen;
		const assigning = (await assigningWorkspaces(await workspaceDb(this.env, workspaceId), [workspaceId])).length > 0;
		if (seen === this.rulesSeen) this.assigning = assigning;
		return assigning;
	}

	/** The rules (or what they depend on, the business hours) changed: read them again, and run the loop. */
	rulesChanged(workspaceId: string): Promise<void> {
		this.rulesSeen++;
		this.assigning = null;
		return this.run(workspaceId);
	}

	/** An operator went offline past its grace period: its unanswered conversations go back to the queue. */
	async operatorGone(workspaceId: string, operatorId: string): Promise<void> {
		const db = await workspaceDb(this.env, workspaceId);
		await this.enqueue(workspaceId, await releaseUnanswered(this.env, db, workspaceId, operatorId));
	}

	/**
	 * Runs the loop, or has the one under way go round again: whatever changed (a conversation queued, an
	 * operator online) is seen by a round that starts after it. Resolves when the queue has been gone through.
	 */
	run(workspaceId: string): Promise<void> {
		if (this.running) {
			this.again = true;
			return this.running;
		}
		this.running = (async () => {
			try {
				do {
					this.again = false;
					await this.round(workspaceId);
				} while (this.again);
			} catch (error) {
				// D1 unreachable: the queue is kept, and a timer goes round again later.
				console.error('auto-assignment round failed; retrying later', error);
				this.timers.schedule(
					{
						id: ASSIGNMENT_RETRY_TIMER,
						kind: ASSIGNMENT_RETRY_TIMER,
						dueAt: Date.now() + 30_000,
						payload: { workspaceId },
					},
					'earliest',
				);
				await this.timers.scheduleNextAlarm();
			} finally {
				this.running = null;
			}
		})();
		return this.running;
	}

	/** The handler of both timers: a round. */
	async retry(payload: unknown): Promise<void> {
		await this.run((payload as { workspaceId: string }).workspaceId);
	}

	/** One pass over the queue, longest waiting first: each conversation assigned, or left for later. */
	private async round(workspaceId: string): Promise<void> {
		const waiting = this.storage.sql
			.exec<QueueRow>('SELECT * FROM assignment_queue ORDER BY since, conversation_id LIMIT ?', ROUND)
			.toArray();
		if (waiting.length === 0) return;
		const db = await workspaceDb(this.env, workspaceId);
		const now = Date.now();
		const seen = this.rulesSeen;
		// Taken or closed since it was queued (a person answered it, the customer left): not decided on, so it
		// moves no cursor and no load. Read beside the rules and the team: one round trip, not two in a row.
		const [rules, team, states] = await Promise.all([
			enabledAssignmentRules(db, workspaceId),
			teamSnapshot(db, workspaceId, this.presence(), now),
			assignmentStates(
				db,
				workspaceId,
				waiting.map((row) => row.conversation_id),
			),
		]);
		if (seen === this.rulesSeen) this.assigning = rules.length > 0;
		// The round's contacts' last operators in one read, kept up as the round assigns.
		const lastAgents = rules.some((r) => r.policy.strategy === 'last_agent')
			? await lastAgentsOf(
					db,
					workspaceId,
					waiting.map((row) => row.contact_id),
				)
			: new Map<string, string>();
		const operators = new Map<string, OperatorSnapshot>(team.operators.map((op) => [op.id, { ...op }]));
		const cursors = new Map<string, string | null>();
		const cursorOf = (ruleId: string) => {
			if (!cursors.has(ruleId)) {
				const stored = this.storage.sql
					.exec<{ operator_id: string }>('SELECT operator_id FROM assignment_cursors WHERE rule_id = ?', ruleId)
					.toArray()[0];
				cursors.set(ruleId, stored?.operator_id ?? null);
			}
			return cursors.get(ruleId) ?? null;
		};
		let assigned = 0;
		let waitsForHours = false;
		// Decisions are made one at a time, in order, on loads and cursors kept up here; they are written a
		// batch at a time (one D1 batch, one release), and leave the queue only once written.
		let batch: Array<{ row: QueueRow; choice: AssignmentChoice; lastAgentBefore: string | undefined }> = [];
		const write = async () => {
			if (batch.length === 0) return;
			const done = await assignWaitingMany(
				this.env,
				db,
				workspaceId,
				batch.map((b) => b.choice),
			);
			this.storage.transactionSync(() => {
				for (const b of batch) {
					this.storage.sql.exec('DELETE FROM assignment_queue WHERE conversation_id = ?', b.row.conversation_id);
				}
				for (const [ruleId, cursor] of cursors) {
					if (cursor === null) continue;
					this.storage.sql.exec(
						'INSERT INTO assignment_cursors (rule_id, operator_id) VALUES (?, ?) ON CONFLICT (rule_id) DO UPDATE SET operator_id = excluded.operator_id',
						ruleId,
						cursor,
					);
				}
			});
			for (const b of batch) {
				if (done.has(b.choice.conversationId)) {
					assigned++;
					continue;
				}
				// Lost to a race at the last moment: the load counted for it was never taken.
				const chosen = operators.get(b.choice.operatorId);
				if (chosen) chosen.load--;
				if (b.lastAgentBefore === undefined) lastAgents.delete(b.row.contact_id);
				else lastAgents.set(b.row.contact_id, b.lastAgentBefore);
			}
			batch = [];
		};
		for (const row of waiting) {
			const state = states.get(row.conversation_id);
			const rule =
				state && state.assigneeId === null && state.status !== 'closed'
					? matchingRule(rules, { conversation: { channel: row.channel, groupId: row.group_id } })
					: null;
			if (!rule) {
				// No rule routes it (none left, or none matches), or it no longer waits: it is not auto-assigned.
				this.storage.sql.exec('DELETE FROM assignment_queue WHERE conversation_id = ?', row.conversation_id);
				continue;
			}
			const decision = choose(rule.policy, {
				operators: [...operators.values()],
				cursor: cursorOf(rule.id),
				lastAgentId: lastAgents.get(row.contact_id) ?? null,
				withinBusinessHours: team.withinBusinessHours,
			});
			if (decision.operatorId === null) {
				waitsForHours ||= rule.policy.considerBusinessHours && !team.withinBusinessHours;
				continue;
			}
			if (decision.cursor !== null) cursors.set(rule.id, decision.cursor);
			const lastAgentBefore = lastAgents.get(row.contact_id);
			lastAgents.set(row.contact_id, decision.operatorId);
			const chosen = operators.get(decision.operatorId);
			if (chosen) chosen.load++;
			batch.push({
				row,
				choice: { conversationId: row.conversation_id, operatorId: decision.operatorId },
				lastAgentBefore,
			});
			if (batch.length === WRITE_BATCH) await write();
		}
		await write();
		// A full round that assigned something may have left more behind it.
		if (waiting.length === ROUND && assigned > 0) this.again = true;
		// Nothing else may happen when the hours open (the team already online): the hub wakes itself then, or
		// looks again in a day when the schedule opens beyond nextOpening's horizon.
		if (waitsForHours) {
			const dueAt = team.opensAt ?? now + DAY_MS;
			this.timers.schedule(
				{ id: OPENING_TIMER, kind: ASSIGNMENT_RETRY_TIMER, dueAt, payload: { workspaceId } },
				'replace',
			);
			await this.timers.scheduleNextAlarm();
		}
	}
}
