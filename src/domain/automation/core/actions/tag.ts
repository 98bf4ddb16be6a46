/**
 * Apply or remove a tag, by name, on the conversation (a bot's Apply Tag) or on its contact (scenarios tag
 * either). Applying creates the tag when the workspace has none of that name; removing one the target does
 * not carry changes nothing.
 */
import type { TagAction } from '../../../../engines/actions/tag';
import { tagNameSchema } from '../../../conversations/conversations';
import { applyTag, removeTag } from '../../../conversations/tags';
import { type ActionContext, type ActionResult, needs, refused, refusedOn } from '../context';

export function performTag(ctx: ActionContext, action: TagAction): Promise<ActionResult> {
	return refusedOn(async () => {
		const parsed = tagNameSchema.safeParse(action.tag);
		if (!parsed.success) return refused(`tag: "${action.tag}" is no tag name (1 to 64 characters)`);
		const name = parsed.data;
		const target =
			action.target === 'contact'
				? ({ kind: 'contact', id: needs(ctx, 'contactId') } as const)
				: ({ kind: 'conversation', id: needs(ctx, 'conversationId') } as const);
		if (action.remove) await removeTag(ctx.env, ctx.db, ctx.workspaceId, target, name, ctx.actor, ctx.now);
		else await applyTag(ctx.env, ctx.db, ctx.workspaceId, target, name, ctx.actor, ctx.now);
		return { ok: true, data: { tag: name, [action.remove ? 'removed' : 'applied']: action.target } };
	});
}
