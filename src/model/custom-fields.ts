/**
 * The key a custom value is stored under on a contact (a workspace custom field's name, a visitor's custom
 * data): one pattern for the widget settings, the pre-chat form and identify, so a field the settings accept
 * can always be answered.
 */
import { z } from '@hono/zod-openapi';

export const customFieldKey = z
	.string()
	.regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/, 'must start with a letter: letters, digits, _ (40 max)');

/** A stored custom value: text, a select's option and a date are strings; numbers and booleans are JSON's own. */
export type CustomValue = string | number | boolean;
