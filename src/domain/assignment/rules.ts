/**
 * Auto-assignment rules as the workspace keeps them: a policy (a strategy and its options) and an optional
 * condition on the conversation, with a priority. With no enabled rule, nothing is assigned automatically;
 * with some, every conversation waiting for a person goes to the workspace's hub, which routes it by the first
 * rule it matches (durable-objects/hub-assignment.ts).
 */
import { z } from '@hono/zod-openapi';
import { and, asc, desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { assignmentRules, groups } from '../../db/schema';
import { existsInWorkspace } from '../../db/scoped';
import { ASSIGNMENT_STRATEGIES, type AssignmentRule } from '../../engines/assignment';
import { conditionProblemsWithin, conditionSchema } from '../../engines/conditions';
import { under } from '../../engines/step-graph';
import { Invalid } from '../../lib/errors';
import type { ExpectedVersion } from '../../lib/expected-version';
import { iso, newId } from '../../lib/ids';
import { schemaRules, when } from '../../lib/schema-rules';
import type { Actor } from '../../model/actor';
import { createOwner, deleteOwner, type OwnerKind, ownerRow, updateOwner } from '../automation/versions';
import { workspaceHub } from '../objects';

export const assignmentPolicySchema = z
	.strictObject({
		strategy: z.enum(ASSIGNMENT_STRATEGIES).openapi({
			description:
				'`round_robin` (in turn), `load_balanced` (fewest open conversations), `last_agent` (who last served the contact), `group_based` (in turn within `groupId`).',
		}),
		fallback: z
			.enum(['round_robin', 'load_balanced', 'group_based'])
			.optional()
			.openapi({ description: 'What `last_agent` does when that operator cannot take it (round robin by default).' }),
		groupId: z
			.string()
			.max(64)
			.nullable()
			.default(null)
			.openapi({ description: 'Only operators of this group (required by `group_based`).' }),
		onlyOnline: z.boolean().default(true).openapi({ description: 'Only operators whose status is `online`.' }),
		respectStatus: z.boolean().default(true).openapi({
			description: 'Without `onlyOnline`: never `busy` or `offline` operators (`away` ones may take work).',
		}),
		considerBusinessHours: z
			.boolean()
			.default(false)
			.openapi({ description: 'Outside the workspace’s business hours nobody is assigned: conversations wait.' }),
	})
	.refine((p) => p.strategy !== 'group_based' || p.groupId !== null, {
		message: 'group_based needs a groupId',
		path: ['groupId'],
	})
	// The refinement above is invisible to the generator: the document states it for clients that validate.
	.openapi(
		'AssignmentPolicy',
		schemaRules(
			when(
				{ required: ['strategy'], properties: { strategy: { const: 'group_based' } } },
				{ required: ['groupId'], properties: { groupId: { type: 'string' } } },
			),
		),
	);

const settings = {
	name: z.string().trim().min(1).max(100).openapi({ description: 'Its name.', example: 'Sales team in turn' }),
	enabled: z.boolean().openapi({ description: 'A disabled rule routes nothing.' }),
	priority: z.int().min(-1000).max(1000).openapi({ description: 'Rules are tried highest first.' }),
	condition: conditionSchema.nullable().openapi({
		description: 'Routes only conversations it holds for: reads `conversation.channel` and `conversation.groupId`.',
	}),
	policy: assignmentPolicySchema,
};

export const newAssignmentRuleSchema = z
	.strictObject({
		...settings,
		enabled: settings.enabled.default(true),
		priority: settings.priority.default(0),
		condition: settings.condition.default(null),
	})
	.openapi('NewAssignmentRule');

export const assignmentRuleChangesSchema = z
	.strictObject(settings)
	.partial()
	.refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
	.openapi('AssignmentRuleChanges', { minProperties: 1 });

export const assignmentRuleSchema = z
	.object({
		id: z.string().openapi({ description: 'The rule id.', example: 'asr_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'Its name.' }),
		enabled: z.boolean().openapi({ description: 'Whether it routes conversations.' }),
		priority: z.number().int().openapi({ description: 'Highest is tried first.' }),
		condition: z
			.record(z.string(), z.unknown())
			.nullable()
			.openapi({ description: 'Its condition (a `Condition`), or null for every conversation.' }),
		policy: assignmentPolicySchema,
		createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When it last changed (ISO 8601).' }),
	})
	.openapi('AssignmentRule');

type Row = typeof assignmentRules.$inferSelect;

function view(row: Row): z.infer<typeof assignmentRuleSchema> {
	return {
		id: row.id,
		name: row.name,
		enabled: row.enabled,
		priority: row.priority,
		condition: row.condition as Record<string, unknown> | null,
		policy: { ...row.policy, groupId: row.policy.groupId ?? null },
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
	};
}

/** Every problem of the rule at once (its condition, its policy's group), or nothing: one 422 names them all. */
async function assertRule(
	db: Database,
	workspaceId: string,
	rule: Partial<Pick<z.infer<typeof newAssignmentRuleSchema>, 'condition' | 'policy'>>,
) {
	const message = 'an assignment rule reads conversation.channel and conversation.groupId';
	const problems = rule.condition
		? under(['condition'], conditionProblemsWithin(rule.condition, ['conversation'], message))
		: [];
	const groupId = rule.policy?.groupId;
	if (groupId && !(await existsInWorkspace(db, groups, workspaceId, groupId))) {
		problems.push({ path: ['policy', 'groupId'], message: `no group ${groupId} in this workspace` });
	}
	if (problems.length > 0) throw Invalid.fromProblems(problems);
}

const ASSIGNMENT_RULE: OwnerKind<typeof assignmentRules> = {
	table: assignmentRules,
	label: 'Assignment rule',
	events: 'assignment_rule',
	key: 'rule',
};

function row(db: Database, workspaceId: string, id: string): Promise<Row> {
	return ownerRow(db, assignmentRules, ASSIGNMENT_RULE.label, workspaceId, id);
}

/**
 * After a change of the rules or the business hours, waiting conversations are looked at again (a new rule may
 * route them, new hours may have opened).
 */
export async function reconsiderAssignment(env: Env, workspaceId: string) {
	await workspaceHub(env, workspaceId).assignmentChanged(workspaceId);
}

export async function getAssignmentRule(db: Database, workspaceId: string, id: string) {
	return view(await row(db, workspaceId, id));
}

/** The workspace's rules (the enabled ones only, with `enabled`) in the order they are tried. */
function rulesOf(db: Database, workspaceId: string, enabled?: true) {
	return db
		.select()
		.from(assignmentRules)
		.where(and(eq(assignmentRules.workspaceId, workspaceId), enabled ? eq(assignmentRules.enabled, true) : undefined))
		.orderBy(desc(assignmentRules.priority), asc(assignmentRules.createdAt), asc(assignmentRules.id));
}

export async function listAssignmentRules(db: Database, workspaceId: string) {
	return (await rulesOf(db, workspaceId)).map(view);
}

/** The enabled rules as the engine takes them, in the order they are tried. */
export async function enabledAssignmentRules(db: Database, workspaceId: string): Promise<AssignmentRule[]> {
	return (await rulesOf(db, workspaceId, true)).map((r) => ({
		id: r.id,
		priority: r.priority,
		condition: r.condition,
		policy: r.policy,
	}));
}

export async function createAssignmentRule(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newAssignmentRuleSchema>,
	actor: Actor,
	now = Date.now(),
) {
	await assertRule(db, workspaceId, input);
	const created: Row = { id: newId('asr', now), workspaceId, ...input, createdAt: now, updatedAt: now };
	await createOwner(env, db, ASSIGNMENT_RULE, created, actor, now);
	await reconsiderAssignment(env, workspaceId);
	return view(created);
}

/** Changes a rule, with an `assignment_rule.updated` naming each field from and to; nothing when nothing moves. */
export async function updateAssignmentRule(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof assignmentRuleChangesSchema>,
	actor: Actor,
	/** The version the change was computed from (If-Match): applied only while it is current. */
	expected?: ExpectedVersion,
	now = Date.now(),
) {
	const current = await row(db, workspaceId, id);
	await assertRule(db, workspaceId, changes);
	const after = await updateOwner(env, db, ASSIGNMENT_RULE, current, changes, actor, now, [], expected);
	if (after === current) return view(current);
	await reconsiderAssignment(env, workspaceId);
	return view(after);
}

/** Deletes a rule, with `assignment_rule.deleted`; with `expected`, only while it is at that version. */
export async function deleteAssignmentRule(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	actor: Actor,
	expected?: ExpectedVersion,
) {
	const current = await row(db, workspaceId, id);
	await deleteOwner(env, db, ASSIGNMENT_RULE, current, [], actor, Date.now(), expected);
	// A rule of lower priority may route what this one held back.
	await reconsiderAssignment(env, workspaceId);
}
