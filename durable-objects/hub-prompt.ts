/**
 * The prompt path: reactions a person waits on, run by the workspace's hub as soon as their event is
 * delivered, instead of after the events Queue's batch wait (up to `max_batch_timeout`, a second deployed).
 * A conversation waiting for an operator is queued for assignment, and the rules a person sees (an answer or
 * a tag, `seenRules`) run. Operators going offline need no such path: presence lives in this hub, which hands
 * their conversations back and assigns them at once (workspace-hub.ts, `presenceMoved`).
 *
 * The Queue stays the record: `deliverEvents` (src/events/deliver.ts) calls the hub only once the Queue has
 * accepted the events, so a failure here, or an instance lost mid-way, leaves each event to the Queue's
 * delivery, which reacts as it always has. Both deliveries doing one thing rests on what each reaction already
 * guards: a conversation is queued once (by event id, and by conversation in the hub's queue), each round
 * re-reads D1 and assigns only a conversation still open and unassigned, in a guarded write that announces the
 * assignment only when it changed the row; a rule's execution of an event is claimed in D1 per (rule, event)
 * before its first action, and its actions are keyed by (rule, event, action). Whichever delivery comes second
 * finds the work done (or, while the first is still at it, the Queue's retries later and finds it done).
 */

import type { Database } from '../src/db/client';
import { workspaceDb } from '../src/db/shards';
import { assignmentSignal } from '../src/domain/assignment/auto-assignment';
import { ExecutionBusy } from '../src/domain/automation/rules/executions';
import { enabledRules, type ListeningRule, runRules, seenRules } from '../src/domain/automation/rules/runner';
import type { DomainEvent } from '../src/model/events';
import type { HubAssignment } from './hub-assignment';

/**
 * An event older than this when it reaches the hub (a room's flush retried after a failure, the outbox sweep)
 * is left to the Queue: nobody is watching for it any more, and the Queue may be delivering it right now.
 */
export const PROMPT_WITHIN_MS = 10_000;

/**
 * How long the hub keeps the rules a person sees without reading them again. A change of the rules tells the
 * hub at once (`SeenRules.changed`, from src/domain/automation/rules/rules.ts); this bounds how long a call
 * lost on the way could leave it running the rules as they were.
 */
export const SEEN_RULES_KEPT_MS = 30_000;

/**
 * The workspace's enabled rules whose executions a person sees, as the hub last read them: a customer's every
 * message reaches the hub, and most workspaces' rules change a few times a month, so reading them from D1 for
 * each message would be a query spent on an answer already known (and, for a workspace with none, on nothing).
 */
export class SeenRules {
	private kept: { rules: ListeningRule[]; at: number } | null = null;
	/** Counts changes, so a read that began before one does not keep what it read. */
	private changes = 0;

	async of(db: Database, workspaceId: string, now = Date.now()): Promise<ListeningRule[]> {
		if (this.kept !== null && now - this.kept.at < SEEN_RULES_KEPT_MS) return this.kept.rules;
		const changes = this.changes;
		const rules = seenRules((await enabledRules(db, [workspaceId])).get(workspaceId) ?? []);
		if (changes === this.changes) this.kept = { rules, at: now };
		return rules;
	}

	/** The workspace's rules changed (created, updated, deleted): the next event reads them again. */
	changed(): void {
		this.changes++;
		this.kept = null;
	}
}

/**
 * Reacts to a workspace's freshly delivered events, one after the other as the Queue's consumer would: first
 * what they mean for assignment, then the rules a person sees. Never throws: each event's failure is logged
 * and left to the Queue.
 */
export async function reactPromptly(
	env: Env,
	assignment: HubAssignment,
	rules: SeenRules,
	workspaceId: string,
	events: readonly DomainEvent[],
	now = Date.now(),
): Promise<void> {
	const fresh = events.filter(
		(event) => event.workspaceId === workspaceId && now - Date.parse(event.occurredAt) < PROMPT_WITHIN_MS,
	);
	if (fresh.length === 0) return;
	const db = await workspaceDb(env, workspaceId);
	// A start's own events (its conversation.created, the tags it applies) come before its first message, which
	// the start posts once they are released: a rule answering them now could speak before the customer. Their
	// rules are the Queue's, as before; their assignment is not held back.
	const starting = fresh.some((event) => event.type === 'conversation.created');
	// The rules a person sees and whether the workspace assigns at all the hub knows, mostly, without a read;
	// when it must read the rules, it does so beside the assignment's work, which they do not hold up.
	const seen = starting ? Promise.resolve([]) : rules.of(db, workspaceId, now);
	seen.catch(() => {}); // its failure is met (and logged) where it is awaited, below
	let assigning = false;
	try {
		assigning = await assignment.assigns(workspaceId);
	} catch (error) {
		console.error('prompt reactions: reading the assignment rules failed; the events Queue reacts', error);
	}
	for (const event of fresh) {
		try {
			if (assigning) {
				const signal = await assignmentSignal(db, event);
				if (signal?.kind === 'waiting') await assignment.enqueue(workspaceId, [signal.conversation], event.id);
				else if (signal?.kind === 'capacity') await assignment.run(workspaceId);
			}
			const listening = await seen;
			if (listening.length > 0) await runRules(env, db, event, listening);
		} catch (error) {
			// Busy: the Queue's delivery holds the execution's claim, and finishes it.
			if (error instanceof ExecutionBusy) continue;
			console.error('prompt reaction failed; the events Queue reacts', event.id, error);
		}
	}
}
