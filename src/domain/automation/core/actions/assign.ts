/**
 * Assign conversation: to an operator (who must be an enabled member) or to a group (the conversation then
 * waits in the group's queue, for auto-assignment). A disabled operator or a deleted group takes the step's
 * error path. A bot's Transfer (`handoff`) leaves it unassigned and open, for a person to take.
 */
import type { AssignAction, HandoffAction } from '../../../../engines/actions/assign';
import { updateConversation } from '../../../conversations/changes';
import { type ActionContext, type ActionResult, needs, refusedOn } from '../context';

export function performAssign(ctx: ActionContext, action: AssignAction | HandoffAction): Promise<ActionResult> {
	return refusedOn(async () => {
		const conversationId = needs(ctx, 'conversationId');
		const changes =
			'handoff' in action
				? ({ assigneeId: null, status: 'open' } as const)
				: action.operatorId !== undefined
					? { assigneeId: action.operatorId }
					: { groupId: action.groupId ?? null };
		await updateConversation(ctx.env, ctx.db, ctx.workspaceId, conversationId, changes, ctx.actor, ctx.now);
		return { ok: true, data: changes };
	});
}
