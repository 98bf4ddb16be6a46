/**
 * Assign conversation: to an operator (who must be an enabled member) or to a group (the conversation then
 * waits in the group's queue; picking its operator is auto-assignment's, to come). A disabled operator or a
 * deleted group takes the step's error path.
 */
import { z } from '@hono/zod-openapi';
import { updateConversation } from '../domain/conversations/changes';
import { type ActionContext, type ActionResult, needs, refusedOn } from './context';

export const assignAction = z.strictObject({
	type: z.literal('assign').openapi({ description: 'Assign the conversation.' }),
	operatorId: z.string().max(64).optional().openapi({ description: 'The operator to assign it to.' }),
	groupId: z.string().max(64).optional().openapi({ description: 'Or the group (team) to route it to.' }),
});

export type AssignAction = z.infer<typeof assignAction>;

/** Why an assignment is malformed (exactly one of the two), or null. */
export function assignProblem(action: AssignAction): string | null {
	return (action.operatorId === undefined) === (action.groupId === undefined)
		? 'give an operatorId or a groupId (one of them)'
		: null;
}

export function performAssign(ctx: ActionContext, action: AssignAction): Promise<ActionResult> {
	return refusedOn(async () => {
		const conversationId = needs(ctx, 'conversationId');
		const changes =
			action.operatorId !== undefined ? { assigneeId: action.operatorId } : { groupId: action.groupId ?? null };
		await updateConversation(ctx.env, ctx.db, ctx.workspaceId, conversationId, changes, ctx.actor, ctx.now);
		return { ok: true, data: changes };
	});
}
