/**
 * Create deal and Update deal. Create: the spec's `create_deal` shape (funnel and stage by name, name, value
 * and custom fields, all templated). Update: the stage, fields, owner or value of a deal, and products added
 * to it; the deal is the one a variable names (`dealVariable`), else the contact's most recently changed open
 * deal in the selected funnels. Values are read as amounts in the workspace's locale ("1.500,00", "1,500.00").
 */
import { z } from '@hono/zod-openapi';
import { keyedRecord } from '../../lib/schema-rules';
import type { AmountLocale } from '../values';
import { template, variableName } from './fields';

export const createDealAction = z.strictObject({
	type: z.literal('create_deal').openapi({ description: 'Create a deal (the spec’s create_deal shape).' }),
	funnel: template(200).openapi({ description: 'Funnel name (or id).' }),
	stage: template(200).optional().openapi({ description: 'Stage name (or id); the first stage when left out.' }),
	name: template(400),
	value: template(200).optional().openapi({ description: 'Read as an amount in the workspace’s locale.' }),
	currency: z
		.string()
		.regex(/^[A-Z]{3}$/)
		.optional()
		.openapi({ description: 'ISO 4217; the workspace locale’s (BRL for pt, USD for en) when left out.' }),
	custom_fields: keyedRecord(z.string().max(40), template(2000))
		.optional()
		.openapi({ description: 'Deal custom values by key, each a template.' }),
});

export type CreateDealAction = z.infer<typeof createDealAction>;

export const updateDealAction = z.strictObject({
	type: z.literal('update_deal').openapi({ description: 'Update a deal.' }),
	funnels: z.array(z.string().max(200)).max(10).optional().openapi({
		description: 'The contact’s open deal in one of these funnels (names or ids); any funnel when left out.',
	}),
	dealVariable: variableName.optional().openapi({ description: 'Or the deal whose id this variable holds.' }),
	stage: template(200).optional().openapi({ description: 'The stage to move it to, in its funnel (name or id).' }),
	name: template(400).optional().openapi({ description: 'Its new name.' }),
	value: template(200).optional().openapi({ description: 'Read as an amount in the workspace’s locale.' }),
	owner: template(200).optional().openapi({ description: 'The operator id of its new owner.' }),
	products: z
		.array(
			z.strictObject({
				name: template(200).openapi({ description: 'The product.' }),
				quantity: z.number().positive().openapi({ description: 'How many.' }),
				unitPrice: template(100).openapi({ description: 'The price of one, read as an amount.' }),
			}),
		)
		.max(50)
		.optional()
		.openapi({ description: 'Lines added to the deal; `unitPrice` is read as an amount.' }),
	custom_fields: keyedRecord(z.string().max(40), template(2000))
		.optional()
		.openapi({ description: 'Deal custom values by key, each a template.' }),
});

export type UpdateDealAction = z.infer<typeof updateDealAction>;

/** The currency of a workspace that writes amounts this way, when a step names none. */
export function localeCurrency(locale: AmountLocale): string {
	return locale === 'pt' ? 'BRL' : 'USD';
}
