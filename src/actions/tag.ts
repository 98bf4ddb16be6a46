/**
 * Apply or remove a tag, by name, on the conversation (a bot's Apply Tag) or on its contact (scenarios tag
 * either). Applying creates the tag when the workspace has none of that name; removing one the target does
 * not carry changes nothing.
 */
import { z } from '@hono/zod-openapi';
import { tagNameSchema } from '../domain/conversations/conversations';
import { applyTag, removeTag } from '../domain/conversations/tags';
import { type ActionContext, type ActionResult, needs, refused, refusedOn } from './context';
import { template } from './fields';

export const tagAction = z.strictObject({
	type: z.literal('apply_tag').openapi({ description: 'Apply (or remove) a tag.' }),
	tag: template(100).openapi({ description: 'The tag’s name.' }),
	remove: z.boolean().default(false).openapi({ description: 'Take the tag off instead.' }),
	target: z
		.enum(['conversation', 'contact'])
		.default('conversation')
		.openapi({ description: 'What is tagged: the conversation (default) or its contact.' }),
});

export type TagAction = z.infer<typeof tagAction>;

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
