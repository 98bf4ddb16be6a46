/**
 * Update contact: sets the conversation contact's name, e-mail, phone or custom fields from templates, each
 * checked as the API checks it; a field rendered empty is left as it is.
 */
import { z } from '@hono/zod-openapi';
import { keyedRecord } from '../../lib/schema-rules';
import { template } from './fields';

export const updateContactAction = z.strictObject({
	type: z.literal('update_contact').openapi({ description: 'Update the conversation’s contact.' }),
	name: template(400).optional().openapi({ description: 'Its name.' }),
	email: template(400).optional().openapi({ description: 'Its e-mail (unique in the workspace).' }),
	phone: template(100).optional().openapi({ description: 'Its phone, with the country code.' }),
	custom_fields: keyedRecord(z.string().max(40), template(2000))
		.optional()
		.openapi({ description: 'Contact custom values by key, each a template.' }),
});

export type UpdateContactAction = z.infer<typeof updateContactAction>;
