/** Field shapes the action schemas share. */
import { z } from '@hono/zod-openapi';

/** A templated text field: Liquid, rendered with the run's variables before the action runs. */
export const template = (max: number) =>
	z.string().max(max).openapi({ description: 'A Liquid template: `{{contact.name}}`.' });

/** A run variable's name. */
export const variableName = z
	.string()
	.regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower-case letters, digits and _, starting with a letter (40 at most)');

/**
 * A contact made up to try a flow with (a bot's simulation, a template's preview): what templates read as
 * `contact.name`, `contact.custom_fields.plan`…
 */
export const sampleContact = z.strictObject({
	name: z.string().max(200).nullable().default(null),
	email: z.string().max(320).nullable().default(null),
	phone: z.string().max(32).nullable().default(null),
	customFields: z.record(z.string(), z.unknown()).default({}),
});
