/**
 * Runs classic automation rules on the events Queue: listener, then condition, then actions, as Chatwoot's
 * automation listener does. For each event, the workspace's enabled rules whose trigger its type can meet are
 * asked (`firing`, src/engines/rules.ts) with the facts they need, loaded once per event (./scene.ts); each
 * action is a step of the automation core (../core/steps.ts), its outcome kept in the execution's row.
 *
 * - Idempotent per (rule, event): an execution row is claimed before the first action, and a redelivered
 *   event finds it. A claim older than CLAIM_LEASE_MS (its worker died) is taken over and resumes at the first
 *   action without an outcome; a fresh one makes the delivery retry later, so the event is never acked unrun.
 * - Each action on its own: a refused action (an unknown bot, a template that fails) is logged in the
 *   execution and the next one runs. A fault of ours (D1 unreachable) stops the execution; the Queue retries it.
 *   Messages and bot starts are keyed by (rule, event, action): a resumed execution never sends twice.
 * - Changes a rule makes are announced with the rule as actor, one step deeper in the chain (`actor.depth`),
 *   so a rule never fires on its own change and chains stop (engines/rules.ts).
 *
 * `conversation_waiting` rules are met by `conversation.waiting`, which `sweepWaiting` (./waiting.ts) sends.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { automationRules } from '../../../db/schema';
import type { RuleAction } from '../../../engines/actions/rule-actions';
import { chainDepth, firing, mayFire, type RuleSnapshot } from '../../../engines/rules';
import { renderTemplates } from '../../../engines/step-graph';
import { renderTemplateSync } from '../../../engines/templates';
import { groupBy } from '../../../lib/group-by';
import type { DomainEvent } from '../../../model/events';
import { refused } from '../core/context';
import { actionContext } from '../core/scene';
import { runStep } from '../core/steps';
import { claim, ExecutionBusy, executionLog, recordSkip } from './executions';
import { type RuleScene, sceneOf } from './scene';
import { currentAgent, ruleTemplateInput } from './templates';

export interface ListeningRule extends RuleSnapshot {
	name: string;
	actions: RuleAction[];
}

/** The enabled rules of these workspaces, each workspace's in run order (priority, then age). */
export async function enabledRules(db: Database, workspaceIds: string[]): Promise<Map<string, ListeningRule[]>> {
	if (workspaceIds.length === 0) return new Map();
	const rows = await db
		.select({
			workspaceId: automationRules.workspaceId,
			id: automationRules.id,
			name: automationRules.name,
			trigger: automationRules.trigger,
			condition: automationRules.condition,
			actions: automationRules.actions,
		})
		.from(automationRules)
		.where(and(inArray(automationRules.workspaceId, workspaceIds), eq(automationRules.enabled, true)))
		.orderBy(sql`${automationRules.priority} DESC, ${automationRules.createdAt}, ${automationRules.id}`);
	return groupBy<ListeningRule & { workspaceId: string }>(rows, (row) => row.workspaceId);
}

/** Actions a person sees at once: an answer in the conversation, a tag on it. */
const SEEN_ACTIONS: ReadonlySet<string> = new Set(['send_message', 'apply_tag']);

/**
 * The rules whose executions a person sees (one of their actions answers or tags): those the workspace's hub
 * runs as soon as their event is delivered, besides the events Queue (durable-objects/hub-prompt.ts).
 */
export function seenRules(rules: readonly ListeningRule[]): ListeningRule[] {
	return rules.filter((rule) => rule.actions.some((action) => SEEN_ACTIONS.has(action.type)));
}

/** Runs the rules this event meets. Throws when a fault of ours stops one (the delivery is retried). */
export async function runRules(env: Env, db: Database, event: DomainEvent, rules: ListeningRule[], now = Date.now()) {
	// Asked of the event alone first: an event no rule may fire on costs no query.
	const candidates = rules.filter((rule) => mayFire(rule, event));
	if (candidates.length === 0) return;
	const scene = await sceneOf(env, db, event, candidates, now);
	let busy = false;
	for (const rule of candidates) {
		const fired = firing(rule, event, scene.facts);
		if (!fired.fires) {
			if (fired.noted) await recordSkip(db, event, rule, scene, fired.why, now);
			continue;
		}
		try {
			await execute(env, db, event, rule, scene, fired.change, now);
		} catch (error) {
			if (!(error instanceof ExecutionBusy)) throw error;
			busy = true;
		}
	}
	if (busy) throw new ExecutionBusy(`event ${event.id}: an execution is claimed by another delivery`);
}

async function execute(
	env: Env,
	db: Database,
	event: DomainEvent,
	rule: ListeningRule,
	scene: RuleScene,
	change: { from: unknown; to: unknown } | null,
	now: number,
): Promise<void> {
	const claimed = await claim(db, event, rule, scene, now);
	if (claimed === null) return;
	const log = executionLog(db, claimed.id, claimed.outcomes, rule.actions.length, now);
	const ctx = actionContext(env, db, event.workspaceId, scene, {
		// The execution is the rule's of the event: its actions' keys are `rule:<rule>:<event>:<index>`.
		run: { kind: 'rule', id: `${rule.id}:${event.id}` },
		actor: { kind: 'rule', id: rule.id, depth: chainDepth(event) + 1 },
		rule: { id: rule.id, name: rule.name },
		variables: {},
		now,
	});
	let input = ruleTemplateInput(rule.trigger.kind, event, scene, change, now);
	for (let i = claimed.outcomes.length; i < rule.actions.length; i++) {
		const action = rule.actions[i] as RuleAction;
		let rendered: RuleAction;
		try {
			rendered = renderTemplates(action, (source, maxLength) => renderTemplateSync(source, input, maxLength));
		} catch (error) {
			await log.record(String(i), action, refused(`a template failed: ${(error as Error).message}`));
			continue;
		}
		const result = await runStep(ctx, log, String(i), rendered);
		// The agent of the actions after the rule's own assignment is the operator it assigned.
		if (action.type === 'assign' && result.ok && input.agent !== undefined && scene.conversationId !== null) {
			input = { ...input, agent: await currentAgent(db, event.workspaceId, scene.conversationId) };
		}
	}
	// Taken over with every outcome written but not the end: only the end is left to write.
	if (claimed.outcomes.length >= rule.actions.length) await log.end();
}
