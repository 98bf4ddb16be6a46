/**
 * Classic automation rules as the workspace keeps them: a name, a trigger, an optional condition, an ordered
 * list of actions, enabled or not, a priority. What fires them and how they run is src/domain/automation/rules/runner.ts;
 * which event meets which trigger is the pure src/engines/rules.ts. Every change is announced (`rule.created`,
 * `rule.updated`, `rule.deleted`), and each execution is kept 30 days for `GET …/executions`.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import {
	automationRules,
	bots,
	funnels,
	groups,
	operators,
	RULE_EXECUTION_STATUSES,
	ruleExecutions,
} from '../../../db/schema';
import { type Reference, unknownReferences } from '../../../db/scoped';
import { assignProblem } from '../../../engines/actions/assign';
import { type RuleAction, ruleActionSchema } from '../../../engines/actions/rule-actions';
import { type Condition, conditionProblemsWithin, conditionSchema } from '../../../engines/conditions';
import { ruleTriggerSchema } from '../../../engines/rules';
import { templateProblems, under } from '../../../engines/step-graph';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../../lib/cursor';
import { Conflict, type FieldProblem, Invalid } from '../../../lib/errors';
import type { ExpectedVersion } from '../../../lib/expected-version';
import { iso, isoOrNull, newId } from '../../../lib/ids';
import type { Actor } from '../../../model/actor';
import { workspaceHub } from '../../objects';
import { createOwner, deleteOwner, type OwnerKind, ownerRow, updateOwner } from '../versions';

/** Rules a workspace may keep: each event is matched against all of them. */
const MAX_RULES = 100;

/** What a rule's condition may read: the records its event is about, the clock, the team, `vars.event`/`vars.change`. */
const RULE_FACT_ROOTS = ['vars', 'contact', 'conversation', 'businessHours', 'agents', 'deal'] as const;

const ruleSettings = {
	name: z.string().trim().min(1).max(100).openapi({ description: 'Its name.', example: 'After-hours reply' }),
	enabled: z.boolean().openapi({ description: 'A disabled rule fires on nothing.' }),
	priority: z
		.int()
		.min(-1000)
		.max(1000)
		.openapi({ description: 'Rules met by one event run highest first (then oldest first).' }),
	trigger: ruleTriggerSchema,
	condition: conditionSchema.nullable().openapi({
		description:
			'Fires only when it holds. Reads `contact`, `conversation`, `deal`, `businessHours`, `agents`, `vars.event` (the event) and `vars.change` (`from`/`to` of the changed attribute).',
	}),
	actions: z.array(ruleActionSchema).min(1).max(20).openapi({
		description:
			'What it does, in order (20 at most). Text fields are Liquid templates reading what the trigger’s description lists.',
	}),
};

export const newRuleSchema = z
	.strictObject({
		...ruleSettings,
		enabled: ruleSettings.enabled.default(true),
		priority: ruleSettings.priority.default(0),
		condition: ruleSettings.condition.default(null),
	})
	.openapi('NewAutomationRule');

export const ruleChangesSchema = z
	.strictObject(ruleSettings)
	.partial()
	.refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
	.openapi('AutomationRuleChanges', { minProperties: 1 });

export const ruleSchema = z
	.object({
		id: z.string().openapi({ description: 'The rule id.', example: 'rule_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'Its name.' }),
		enabled: z.boolean().openapi({ description: 'Whether it fires.' }),
		priority: z.number().int().openapi({ description: 'Highest runs first.' }),
		trigger: ruleTriggerSchema,
		condition: z
			.record(z.string(), z.unknown())
			.nullable()
			.openapi({ description: 'Its condition (a `Condition`), or null.' }),
		actions: z.array(ruleActionSchema).openapi({ description: 'What it does, in order.' }),
		createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When it last changed (ISO 8601).' }),
	})
	.openapi('AutomationRule');

export const ruleExecutionSchema = z
	.object({
		id: z.string().openapi({ description: 'The execution id.', example: 'rex_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		ruleId: z.string().openapi({ description: 'The rule.' }),
		eventId: z.string().openapi({ description: 'The event that met its trigger.' }),
		eventType: z.string().openapi({ description: 'Its type.' }),
		conversationId: z.string().nullable().openapi({ description: 'The conversation it is about, if any.' }),
		contactId: z.string().nullable().openapi({ description: 'The contact it is about, if any.' }),
		status: z.enum(RULE_EXECUTION_STATUSES).openapi({
			description:
				'`succeeded` (every action done), `failed` (an action failed; the others still ran), `skipped` (see `reason`), `running`.',
		}),
		reason: z.string().nullable().openapi({ description: 'Why it was skipped; null when it fired.' }),
		actions: z
			.array(
				z.object({
					type: z.string().openapi({ description: 'The action.' }),
					ok: z.boolean().openapi({ description: 'Whether it was done.' }),
					error: z.string().optional().openapi({ description: 'Why not.' }),
					data: z.unknown().optional().openapi({ description: 'What it made (a message, a task, a note).' }),
				}),
			)
			.openapi({ description: 'Each action’s outcome, in order.' }),
		depth: z.number().int().openapi({ description: 'Its place in a chain of rules (1: fired by a person’s change).' }),
		createdAt: z.string().openapi({ description: 'When the event was handled (ISO 8601).' }),
		finishedAt: z.string().nullable().openapi({ description: 'When its last action ended; null while running.' }),
	})
	.openapi('AutomationRuleExecution');

export const executionFiltersSchema = z.strictObject({
	ruleId: z.string().max(64).optional().openapi({ description: 'Only this rule’s.' }),
	conversationId: z.string().max(64).optional().openapi({ description: 'Only about this conversation.' }),
	status: z.enum(RULE_EXECUTION_STATUSES).optional().openapi({ description: 'Only with this status.' }),
});

type RuleRow = typeof automationRules.$inferSelect;
type ExecutionRow = typeof ruleExecutions.$inferSelect;

function ruleView(row: RuleRow): z.infer<typeof ruleSchema> {
	return {
		id: row.id,
		name: row.name,
		enabled: row.enabled,
		priority: row.priority,
		trigger: row.trigger,
		condition: row.condition as Record<string, unknown> | null,
		actions: row.actions,
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
	};
}

function executionView(row: ExecutionRow): z.infer<typeof ruleExecutionSchema> {
	return {
		id: row.id,
		ruleId: row.ruleId,
		eventId: row.eventId,
		eventType: row.eventType,
		conversationId: row.conversationId,
		contactId: row.contactId,
		status: row.status,
		reason: row.reason,
		actions: row.outcomes,
		depth: row.depth,
		createdAt: iso(row.createdAt),
		finishedAt: row.status === 'running' ? null : isoOrNull(row.updatedAt),
	};
}

/** The actions' ids that name no record of the workspace (a bot, an operator, a group, a funnel). */
function referenceProblems(db: Database, workspaceId: string, actions: readonly RuleAction[]) {
	const checks: Reference[] = [];
	for (const [i, action] of actions.entries()) {
		const at = (...field: (string | number)[]) => ['actions', i, ...field];
		if (action.type === 'start_bot') checks.push({ path: at('botId'), table: bots, id: action.botId, what: 'bot' });
		if (action.type === 'assign' && action.operatorId !== undefined)
			checks.push({ path: at('operatorId'), table: operators, id: action.operatorId, what: 'operator' });
		if (action.type === 'assign' && action.groupId !== undefined)
			checks.push({ path: at('groupId'), table: groups, id: action.groupId, what: 'group' });
		if (action.type === 'create_task' && action.assigneeId !== undefined)
			checks.push({ path: at('assigneeId'), table: operators, id: action.assigneeId, what: 'operator' });
		if (action.type === 'save_to_crm' && action.newDeal !== undefined)
			checks.push({ path: at('newDeal', 'funnelId'), table: funnels, id: action.newDeal.funnelId, what: 'funnel' });
		if (action.type === 'notify') {
			for (const [j, id] of action.operatorIds.entries())
				checks.push({ path: at('operatorIds', j), table: operators, id, what: 'operator' });
		}
	}
	return unknownReferences(db, workspaceId, checks);
}

/**
 * Checks what the schema cannot: the condition's facts, the actions' templates and shapes, and that each id
 * names a record of the workspace. Every problem, each with its field, in one 422.
 */
async function assertRule(
	db: Database,
	workspaceId: string,
	rule: { condition?: Condition | null; actions?: RuleAction[] },
): Promise<void> {
	const problems: FieldProblem[] = [];
	if (rule.condition) {
		const message = 'a rule reads contact, conversation, deal, businessHours, agents and vars (event, change)';
		problems.push(...under(['condition'], conditionProblemsWithin(rule.condition, RULE_FACT_ROOTS, message)));
	}
	for (const [i, action] of (rule.actions ?? []).entries()) {
		problems.push(...under(['actions', i], templateProblems(action)));
		if (action.type === 'assign') {
			const problem = assignProblem(action);
			if (problem) problems.push({ path: ['actions', i], message: problem });
		}
	}
	if (problems.length === 0 && rule.actions) problems.push(...(await referenceProblems(db, workspaceId, rule.actions)));
	if (problems.length > 0) throw Invalid.fromProblems(problems);
}

const RULE: OwnerKind<typeof automationRules> = {
	table: automationRules,
	label: 'Automation rule',
	events: 'rule',
	key: 'rule',
};

function ruleRow(db: Database, workspaceId: string, id: string): Promise<RuleRow> {
	return ownerRow(db, automationRules, RULE.label, workspaceId, id);
}

export async function getRule(db: Database, workspaceId: string, id: string) {
	return ruleView(await ruleRow(db, workspaceId, id));
}

/** The workspace's rules in the order they run: highest priority first, then oldest first. */
export async function listRules(db: Database, workspaceId: string) {
	const rows = await db
		.select()
		.from(automationRules)
		.where(eq(automationRules.workspaceId, workspaceId))
		.orderBy(desc(automationRules.priority), asc(automationRules.createdAt), asc(automationRules.id));
	return rows.map(ruleView);
}

export async function createRule(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newRuleSchema>,
	actor: Actor,
	now = Date.now(),
) {
	await assertRule(db, workspaceId, input);
	const [{ n } = { n: 0 }] = await db
		.select({ n: count() })
		.from(automationRules)
		.where(eq(automationRules.workspaceId, workspaceId));
	if (n >= MAX_RULES) throw new Conflict(`A workspace keeps ${MAX_RULES} rules at most: delete one first.`);
	const row: RuleRow = {
		id: newId('rule', now),
		workspaceId,
		name: input.name,
		enabled: input.enabled,
		priority: input.priority,
		triggerKind: input.trigger.kind,
		trigger: input.trigger,
		condition: input.condition,
		actions: input.actions,
		createdAt: now,
		updatedAt: now,
	};
	await createOwner(env, db, RULE, row, actor, now);
	await rulesChanged(env, workspaceId);
	return ruleView(row);
}

/** Changes a rule, with a `rule.updated` naming each field from and to; nothing when nothing moves. */
export async function updateRule(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof ruleChangesSchema>,
	actor: Actor,
	/** The version the change was computed from (If-Match): applied only while it is current. */
	expected?: ExpectedVersion,
	now = Date.now(),
) {
	const current = await ruleRow(db, workspaceId, id);
	await assertRule(db, workspaceId, changes);
	const set: Partial<RuleRow> = {};
	if (changes.name !== undefined) set.name = changes.name;
	if (changes.enabled !== undefined) set.enabled = changes.enabled;
	if (changes.priority !== undefined) set.priority = changes.priority;
	if (changes.trigger !== undefined) {
		set.trigger = changes.trigger;
		set.triggerKind = changes.trigger.kind;
	}
	if (changes.condition !== undefined) set.condition = changes.condition;
	if (changes.actions !== undefined) set.actions = changes.actions;
	// The trigger kind is the trigger's, kept apart for the listeners' query: not announced on its own.
	const updated = ruleView(await updateOwner(env, db, RULE, current, set, actor, now, ['triggerKind'], expected));
	await rulesChanged(env, workspaceId);
	return updated;
}

/** Deletes a rule and its executions' records, with `rule.deleted`; executions under way finish. */
export async function deleteRule(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	actor: Actor,
	expected?: ExpectedVersion,
	now = Date.now(),
) {
	const current = await ruleRow(db, workspaceId, id);
	const executions = db
		.delete(ruleExecutions)
		.where(and(eq(ruleExecutions.workspaceId, workspaceId), eq(ruleExecutions.ruleId, id)));
	await deleteOwner(env, db, RULE, current, [executions], actor, now, expected);
	await rulesChanged(env, workspaceId);
}

/**
 * Tells the workspace's hub that its rules changed, so its prompt path (durable-objects/hub-prompt.ts) stops
 * running them as they were. The change is written already: a hub out of reach is logged, and its copy lapses
 * on its own within `SEEN_RULES_KEPT_MS`.
 */
async function rulesChanged(env: Env, workspaceId: string): Promise<void> {
	try {
		await workspaceHub(env, workspaceId).automationRulesChanged();
	} catch (error) {
		console.error('telling the workspace hub its rules changed failed', workspaceId, error);
	}
}

/** One page of executions, newest first, filtered by rule, conversation or status. */
export async function listExecutions(
	db: Database,
	workspaceId: string,
	filters: z.infer<typeof executionFiltersSchema>,
	after: NewestFirstCursor | null,
	limit: number,
) {
	if (filters.ruleId !== undefined) await ruleRow(db, workspaceId, filters.ruleId);
	const rows = await db
		.select()
		.from(ruleExecutions)
		.where(
			and(
				eq(ruleExecutions.workspaceId, workspaceId),
				filters.ruleId === undefined ? undefined : eq(ruleExecutions.ruleId, filters.ruleId),
				filters.conversationId === undefined ? undefined : eq(ruleExecutions.conversationId, filters.conversationId),
				filters.status === undefined ? undefined : eq(ruleExecutions.status, filters.status),
				afterNewestFirst(ruleExecutions.createdAt, ruleExecutions.id, after),
			),
		)
		.orderBy(desc(ruleExecutions.createdAt), desc(ruleExecutions.id))
		.limit(limit + 1);
	return pageOf(rows, limit, executionView, (row) => ({ at: row.createdAt, id: row.id }));
}
