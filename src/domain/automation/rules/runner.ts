/**
 * Runs classic automation rules on the events Queue: listener, then condition, then actions, as Chatwoot's
 * automation listener does. For each event, the workspace's enabled rules whose trigger its type can meet are
 * asked (`firing`, src/engines/rules.ts) with the facts they need, loaded once per event.
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
 * `conversation_waiting` rules are met by `conversation.waiting`, which `sweepWaiting` sends every minute for
 * the conversations that have waited each threshold, once per waiting period (its id says which).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { refusedOn } from '../../../actions/context';
import { performRuleAction, type RuleAction } from '../../../actions/rule-actions';
import { type Database, openDatabase } from '../../../db/client';
import { automationRules, conversations, type RuleActionOutcome, ruleExecutions } from '../../../db/schema';
import { type FactRoot, referencedFacts } from '../../../engines/conditions';
import { chainDepth, firing, mayFire, type RuleFacts, type RuleSnapshot } from '../../../engines/rules';
import { renderTemplates } from '../../../engines/step-graph';
import { renderTemplateSync, type TemplateInput } from '../../../engines/templates';
import { deliverEvents } from '../../../events/deliver';
import { groupBy } from '../../../lib/group-by';
import { iso, newId } from '../../../lib/ids';
import type { Actor } from '../../../model/actor';
import { availabilityAt } from '../../../model/business-hours';
import type { DomainEvent } from '../../../model/events';
import { ruleTemplateRecords } from '../../../model/rule-variables';
import { conversationSummary, latestConversation } from '../../conversations/conversations';
import { loadWidgetSettings } from '../../widget/settings';
import { conversationRecord, loadFacts } from '../facts';
import { currentAgent, eventAgent, ruleTemplateInput, type TemplateScene } from './templates';

/** A claim on an execution is taken over after this long without a word from its worker. */
const CLAIM_LEASE_MS = 60_000;
/** Conversations one sweep announces per workspace and threshold; the next minute's sweep goes on. */
const WAITING_PER_SWEEP = 100;
/** Executions are kept this long. */
const EXECUTIONS_KEPT_MS = 30 * 86_400_000;

export interface ListeningRule extends RuleSnapshot {
	name: string;
	actions: RuleAction[];
}

/** A claimed execution that is not ours to run yet: the delivery retries. */
export class ExecutionBusy extends Error {}

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

/** The conversation and the contact an event is about (a contact's conversation is looked up later). */
function subjectsOf(event: DomainEvent): { conversationId: string | null; contactId: string | null } {
	const p = event.payload as Record<string, unknown>;
	const conversation = p.conversation as { id: string; contactId: string } | undefined;
	if (conversation) return { conversationId: conversation.id, contactId: conversation.contactId };
	const message = p.message as { conversationId: string } | undefined;
	if (message) return { conversationId: message.conversationId, contactId: null };
	const target = p.target as { kind: string; id: string } | undefined;
	if (target)
		return target.kind === 'contact'
			? { conversationId: null, contactId: target.id }
			: { conversationId: target.id, contactId: null };
	const contact = p.contact as { id: string } | undefined;
	if (contact) return { conversationId: null, contactId: contact.id };
	const deal = p.deal as { contactId: string | null } | undefined;
	if (deal) return { conversationId: null, contactId: deal.contactId };
	return { conversationId: null, contactId: null };
}

interface Scene extends TemplateScene {
	conversationId: string | null;
	contactId: string | null;
	facts: RuleFacts;
	locale: 'pt' | 'en';
}

/** What the candidate rules need to know about the event's world, read once for them all. */
async function sceneOf(
	env: Env,
	db: Database,
	event: DomainEvent,
	rules: ListeningRule[],
	now: number,
): Promise<Scene> {
	let { conversationId, contactId } = subjectsOf(event);
	// The conversation read once: its facts, its contact, when it began and since when its customer waits.
	const conversation =
		conversationId === null ? undefined : await conversationRecord(db, event.workspaceId, conversationId);
	if (conversationId !== null && !conversation) conversationId = null;
	contactId ??= conversation?.contactId ?? null;
	let acting = conversation;
	// A contact's or a deal's event: its actions act in the contact's latest open conversation, if it has one.
	if (conversationId === null && contactId !== null) {
		conversationId = await latestConversation(db, event.workspaceId, contactId, { channels: null, open: true });
		acting = conversationId === null ? undefined : await conversationRecord(db, event.workspaceId, conversationId);
	}
	const roots = new Set<FactRoot>(['contact', 'conversation']);
	for (const rule of rules) if (rule.condition) for (const root of referencedFacts(rule.condition)) roots.add(root);
	// What the rules' templates read (src/model/rule-variables.ts): a deal rule's deal is loaded with the facts.
	for (const rule of rules) if (ruleTemplateRecords(rule.trigger.kind).has('deal')) roots.add('deal');
	const kinds = new Set(rules.map((r) => r.trigger.kind));
	const settings = loadWidgetSettings(db, event.workspaceId);
	// A deal's event is about that deal: its conditions and templates read it, not the contact's latest one.
	const dealId = (event.payload as { deal?: { id: string } }).deal?.id;
	const scope = {
		workspaceId: event.workspaceId,
		conversationId,
		contactId,
		variables: dealId === undefined ? {} : { deal_id: dealId },
		now,
		known: acting ? { conversation: acting.facts } : {},
		settings,
	};
	const [facts, { settings: widget }, previous, agentNow] = await Promise.all([
		loadFacts(env, db, scope, roots),
		settings,
		kinds.has('new_contact') && conversationId !== null && contactId !== null && conversation
			? db
					.select({ at: sql<number | null>`max(${conversations.createdAt})` })
					.from(conversations)
					.where(
						and(
							eq(conversations.workspaceId, event.workspaceId),
							eq(conversations.contactId, contactId),
							sql`${conversations.id} != ${conversationId}`,
							sql`${conversations.createdAt} <= ${conversation.createdAt}`,
						),
					)
					.get()
			: undefined,
		eventAgent(db, event, acting?.assignee ?? null),
	]);
	const ruleFacts: RuleFacts = { ...facts, previousConversationAt: previous?.at ?? null };
	if (event.type === 'message.created') {
		ruleFacts.withinBusinessHours = availabilityAt(
			widget.businessHours,
			new Date(event.payload.message.createdAt),
		).online;
	}
	if (conversation)
		ruleFacts.stillWaitingSince = conversation.waitingSince === null ? null : iso(conversation.waitingSince);
	return {
		conversationId,
		contactId,
		facts: ruleFacts,
		contact: facts.contact,
		conversation: facts.conversation,
		agent: agentNow,
		deal: facts.deal,
		timeZone: widget.businessHours.timeZone,
		locale: widget.locale,
	};
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

function executionRow(event: DomainEvent, rule: RuleSnapshot, scene: Scene, now: number) {
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

async function recordSkip(
	db: Database,
	event: DomainEvent,
	rule: RuleSnapshot,
	scene: Scene,
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
async function claim(db: Database, event: DomainEvent, rule: RuleSnapshot, scene: Scene, now: number) {
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

async function execute(
	env: Env,
	db: Database,
	event: DomainEvent,
	rule: ListeningRule,
	scene: Scene,
	change: { from: unknown; to: unknown } | null,
	now: number,
): Promise<void> {
	const claimed = await claim(db, event, rule, scene, now);
	if (claimed === null) return;
	const actor: Actor = { kind: 'rule', id: rule.id, depth: chainDepth(event) + 1 };
	let input = ruleTemplateInput(rule.trigger.kind, event, scene, change, now);
	const outcomes = [...claimed.outcomes];
	const done = () => (outcomes.every((o) => o.ok) ? 'succeeded' : 'failed');
	// Each outcome is written as soon as it is known; the last write also ends the execution.
	for (let i = outcomes.length; i < rule.actions.length; i++) {
		const action = rule.actions[i] as RuleAction;
		const outcome = await performOne(env, db, event, rule, scene, actor, action, input, i, now);
		outcomes.push(outcome);
		// The agent of the actions after the rule's own assignment is the operator it assigned.
		if (action.type === 'assign' && outcome.ok && input.agent !== undefined && scene.conversationId !== null) {
			input = { ...input, agent: await currentAgent(db, event.workspaceId, scene.conversationId) };
		}
		const last = i === rule.actions.length - 1;
		await db
			.update(ruleExecutions)
			.set({ outcomes, updatedAt: Math.max(Date.now(), now + 1), ...(last ? { status: done() } : {}) })
			.where(eq(ruleExecutions.id, claimed.id));
	}
	// Taken over with every outcome written but not the end: only the end is left to write.
	if (claimed.outcomes.length >= rule.actions.length) {
		await db
			.update(ruleExecutions)
			.set({ status: done(), updatedAt: Math.max(Date.now(), now + 1) })
			.where(eq(ruleExecutions.id, claimed.id));
	}
}

/** One action, its templates rendered: done or refused (with why). A fault of ours is thrown. */
async function performOne(
	env: Env,
	db: Database,
	event: DomainEvent,
	rule: ListeningRule,
	scene: Scene,
	actor: Actor,
	action: RuleAction,
	input: TemplateInput,
	index: number,
	now: number,
): Promise<RuleActionOutcome> {
	let rendered: RuleAction;
	try {
		rendered = renderTemplates(action, (source, maxLength) => renderTemplateSync(source, input, maxLength));
	} catch (error) {
		return { type: action.type, ok: false, error: `a template failed: ${(error as Error).message}` };
	}
	// A refusal by the workspace's data (no conversation, an unpublished bot) is the action's outcome.
	const result = await refusedOn(() =>
		performRuleAction(
			{
				env,
				db,
				workspaceId: event.workspaceId,
				actor,
				conversationId: scene.conversationId,
				contactId: scene.contactId,
				variables: {},
				locale: scene.locale,
				now,
				idempotencyKey: `rule:${rule.id}:${event.id}:${index}`,
				rule: { id: rule.id, name: rule.name },
			},
			rendered,
		),
	);
	if (!result.ok) return { type: action.type, ok: false, error: result.error };
	return 'data' in result && result.data !== undefined
		? { type: action.type, ok: true, data: result.data }
		: { type: action.type, ok: true };
}

/**
 * The waiting sweep (every minute, from the Cron Trigger): for each threshold of the enabled
 * `conversation_waiting` rules, the open conversations whose customer has waited that long without an
 * operator's reply get a `conversation.waiting` event, once per waiting period: its id is made of the
 * conversation, the time the wait began and the threshold, so the events log tells a sent one.
 */
export async function sweepWaiting(env: Env, now = Date.now()): Promise<number> {
	const db = openDatabase(env.DB);
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
export async function purgeExecutions(env: Env, now = Date.now()): Promise<void> {
	await env.DB.prepare(
		'DELETE FROM rule_executions WHERE id IN (SELECT id FROM rule_executions WHERE created_at < ? LIMIT 500)',
	)
		.bind(now - EXECUTIONS_KEPT_MS)
		.run();
}
