/**
 * A rule's executions of events: one row per (rule, event), claimed before the first action so a redelivered
 * event finds it, and its step log (the core's port, ../core/steps.ts): each action's outcome written into
 * its `outcomes` as soon as it is known, the last write ending the execution.
 */
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { type RuleActionOutcome, ruleExecutions } from '../../../db/schema';
import { chainDepth, type RuleSnapshot } from '../../../engines/rules';
import { newId } from '../../../lib/ids';
import type { DomainEvent } from '../../../model/events';
import type { ActionResult } from '../core/context';
import type { StepLog } from '../core/steps';
import type { RuleScene } from './scene';

/** A claim on an execution is taken over after this long without a word from its worker. */
const CLAIM_LEASE_MS = 60_000;

/** A claimed execution that is not ours to run yet: the delivery retries. */
export class ExecutionBusy extends Error {}

function executionRow(event: DomainEvent, rule: RuleSnapshot, scene: RuleScene, now: number) {
	return {
		id: newId('rex', now),
		workspaceId: event.workspaceId,
		ruleId: rule.id,
		eventId: event.id,
		eventType: event.type,
		conversationId: scene.conversationId,
		contactId: scene.contactId,
		outcomes: [] as RuleActionOutcome[],
		depth: chainDepth(event) + 1,
		createdAt: now,
		updatedAt: now,
	};
}

export async function recordSkip(
	db: Database,
	event: DomainEvent,
	rule: RuleSnapshot,
	scene: RuleScene,
	why: string,
	now: number,
) {
	await db
		.insert(ruleExecutions)
		.values({ ...executionRow(event, rule, scene, now), status: 'skipped', reason: why })
		.onConflictDoNothing();
}

/**
 * Claims the rule's execution of the event: a new one, or one whose worker died (taken over). Returns the
 * execution with its outcomes so far, or null when it is done already. Throws ExecutionBusy while another
 * delivery's claim is fresh.
 */
export async function claim(db: Database, event: DomainEvent, rule: RuleSnapshot, scene: RuleScene, now: number) {
	const fresh = executionRow(event, rule, scene, now);
	const inserted = await db
		.insert(ruleExecutions)
		.values({ ...fresh, status: 'running', reason: null })
		.onConflictDoNothing()
		.returning({ id: ruleExecutions.id });
	if (inserted.length > 0) return { id: fresh.id, outcomes: [] as RuleActionOutcome[] };
	const found = await db
		.select()
		.from(ruleExecutions)
		.where(and(eq(ruleExecutions.ruleId, rule.id), eq(ruleExecutions.eventId, event.id)))
		.get();
	if (found?.status !== 'running') return null;
	if (now - found.updatedAt < CLAIM_LEASE_MS) throw new ExecutionBusy(`execution ${found.id} is running`);
	const taken = await db
		.update(ruleExecutions)
		.set({ updatedAt: now })
		.where(and(eq(ruleExecutions.id, found.id), eq(ruleExecutions.updatedAt, found.updatedAt)))
		.returning({ id: ruleExecutions.id });
	if (taken.length === 0) throw new ExecutionBusy(`execution ${found.id} was taken over by another delivery`);
	return { id: found.id, outcomes: found.outcomes };
}

/**
 * An execution's step log (the core's port): each action's outcome is written as soon as it is known, into
 * the execution's `outcomes`; the last write also ends the execution (failed when any action failed).
 */
export function executionLog(db: Database, id: string, written: RuleActionOutcome[], total: number, now: number) {
	const outcomes = [...written];
	const status = () => (outcomes.every((o) => o.ok) ? 'succeeded' : 'failed');
	// Later than the claim, always: a takeover compares it.
	const touched = () => Math.max(Date.now(), now + 1);
	const save = (ended: boolean) =>
		db
			.update(ruleExecutions)
			.set({ outcomes, updatedAt: touched(), ...(ended ? { status: status() } : {}) })
			.where(eq(ruleExecutions.id, id));
	return {
		// The runner resumes after the last outcome written, so no action it takes has one yet.
		recorded: async () => null,
		async record(key: string, action: { type: string }, result: ActionResult) {
			outcomes[Number(key)] = !result.ok
				? { type: action.type, ok: false, error: result.error }
				: 'data' in result && result.data !== undefined
					? { type: action.type, ok: true, data: result.data }
					: { type: action.type, ok: true };
			await save(outcomes.length >= total);
		},
		async end() {
			await save(true);
		},
	} satisfies StepLog & { end(): Promise<void> };
}
