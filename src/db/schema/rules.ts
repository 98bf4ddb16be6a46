/** Classic automation rules and their executions (why each one fired or did not, and what its actions did). */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { RuleAction } from '../../engines/actions/rule-actions';
import type { Condition } from '../../engines/conditions';
import type { RuleTrigger } from '../../engines/rules';

export const RULE_EXECUTION_STATUSES = ['running', 'succeeded', 'failed', 'skipped'] as const;
export type RuleExecutionStatus = (typeof RULE_EXECUTION_STATUSES)[number];

export const automationRules = sqliteTable(
	'automation_rules',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		name: text('name').notNull(),
		/** A disabled rule fires on nothing. */
		enabled: integer('enabled', { mode: 'boolean' }).notNull(),
		/** Rules meeting one event run in this order, highest first (then oldest first). */
		priority: integer('priority').notNull(),
		/** The trigger's kind, in a column of its own: the waiting sweep finds its rules by it. */
		triggerKind: text('trigger_kind').notNull(),
		trigger: text('trigger', { mode: 'json' }).$type<RuleTrigger>().notNull(),
		condition: text('condition', { mode: 'json' }).$type<Condition>(),
		actions: text('actions', { mode: 'json' }).$type<RuleAction[]>().notNull(),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [
		index('automation_rules_workspace').on(t.workspaceId, t.priority, t.createdAt),
		index('automation_rules_trigger').on(t.triggerKind, t.enabled),
	],
);

/** One action's outcome in an execution. */
export interface RuleActionOutcome {
	type: string;
	ok: boolean;
	error?: string;
	data?: unknown;
}

/**
 * What one event did to one rule: fired (its actions' outcomes, in order) or skipped (and why). One row per
 * (rule, event): a redelivered event finds it and does nothing again. A row `running` is claimed: another
 * delivery leaves it alone until its claim is old enough that its worker must have died.
 */
export const ruleExecutions = sqliteTable(
	'rule_executions',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		ruleId: text('rule_id').notNull(),
		eventId: text('event_id').notNull(),
		eventType: text('event_type').notNull(),
		conversationId: text('conversation_id'),
		contactId: text('contact_id'),
		status: text('status', { enum: RULE_EXECUTION_STATUSES }).notNull(),
		/** Why it was skipped; null when it fired. */
		reason: text('reason'),
		/** The outcome of each action done so far, in order. */
		outcomes: text('outcomes', { mode: 'json' }).$type<RuleActionOutcome[]>().notNull(),
		/** Its place in a chain of rules (1: fired by a person's or the system's change). */
		depth: integer('depth').notNull(),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [
		uniqueIndex('rule_executions_event').on(t.ruleId, t.eventId),
		index('rule_executions_workspace').on(t.workspaceId, t.createdAt),
		index('rule_executions_rule').on(t.workspaceId, t.ruleId, t.createdAt),
		index('rule_executions_conversation').on(t.workspaceId, t.conversationId, t.createdAt),
		index('rule_executions_created').on(t.createdAt),
	],
);
