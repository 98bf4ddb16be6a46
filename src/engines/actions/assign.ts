/**
 * Assign conversation: to an operator (who must be an enabled member) or to a group (the conversation then
 * waits in the group's queue). A bot's Transfer to Agent is the same action with `handoff`: no assignee, the
 * conversation open, for whoever of the team takes it.
 */
import { z } from '@hono/zod-openapi';
import { present, schemaRules, when } from '../../lib/schema-rules';

/**
 * An operator or a group, exactly one, as `assignProblem` checks it with the whole document or rule: stated on
 * every schema that extends `assignAction` (an extension does not keep it).
 */
export const oneAssignee = schemaRules(when(present('operatorId'), { not: present('groupId') }, present('groupId')));

export const assignAction = z
	.strictObject({
		type: z.literal('assign').openapi({ description: 'Assign the conversation.' }),
		operatorId: z.string().max(64).optional().openapi({ description: 'The operator to assign it to.' }),
		groupId: z
			.string()
			.max(64)
			.optional()
			.openapi({ description: 'Or the group (team) to route it to: one of the two, never both.' }),
	})
	.openapi(oneAssignee);

export type AssignAction = z.infer<typeof assignAction>;

/** A bot's Transfer to Agent: the conversation waits, unassigned and open, for a person (no builder writes it). */
export interface HandoffAction {
	type: 'assign';
	handoff: true;
}

/** Why an assignment is malformed (exactly one of the two), or null. */
export function assignProblem(action: AssignAction): string | null {
	return (action.operatorId === undefined) === (action.groupId === undefined)
		? 'give an operatorId or a groupId (one of them)'
		: null;
}
