/** Field shapes the action schemas share. */
import { z } from '@hono/zod-openapi';

/** A templated text field: Liquid, rendered with the run's variables before the action runs. */
export const template = (max: number) =>
	z.string().max(max).openapi({ description: 'A Liquid template: `{{contact.name}}`.' });

/** A run variable's name. */
export const variableName = z
	.string()
	.regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower-case letters, digits and _, starting with a letter (40 at most)');
