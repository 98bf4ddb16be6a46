/**
 * Apply or remove a tag, by name, on the conversation (a bot's Apply Tag) or on its contact (scenarios tag
 * either). Applying creates the tag when the workspace has none of that name; removing one the target does
 * not carry changes nothing.
 */
import { z } from '@hono/zod-openapi';
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
