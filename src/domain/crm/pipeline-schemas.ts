/**
 * The API shapes of the sales pipeline: funnels, their ordered stages, and the deals moving through them (the
 * zod schemas the routes validate with and the OpenAPI document shows). Apart from the operations so that
 * funnels.ts, stages.ts and deals.ts share one definition of each shape, and a name is checked the same way
 * for a funnel, a stage and a deal.
 */
import { z } from '@hono/zod-openapi';
import { keyedRecord, schemaRules } from '../../lib/schema-rules';
import { customFieldKey } from '../../model/custom-fields';

const stageView = z
	.object({
		id: z.string().openapi({ description: 'The stage id.', example: 'stg_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'Unique in its funnel.', example: 'Proposal' }),
		position: z.number().int().openapi({ description: 'Its place in the funnel, from 0.' }),
	})
	.openapi('Stage');

export const funnelSchema = z
	.object({
		id: z.string().openapi({ description: 'The funnel id.', example: 'fnl_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'Unique in the workspace.', example: 'Sales' }),
		stages: z.array(stageView).openapi({ description: 'Its stages, in order.' }),
		createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
	})
	.openapi('Funnel');

export type FunnelView = z.infer<typeof funnelSchema>;

const name = z.string().trim().min(1).max(100);
const uniqueNames = (list: string[]) => new Set(list).size === list.length;

export const newFunnelSchema = z
	.strictObject({
		name: name.openapi({ description: 'Unique in the workspace.', example: 'Sales' }),
		stages: z
			.array(name)
			.min(1)
			.max(30)
			.refine(uniqueNames, 'stage names must be unique')
			.openapi({
				description: 'Its stages, in order, each name once.',
				example: ['New', 'Proposal', 'Negotiation'],
				uniqueItems: true,
			}),
	})
	.openapi('NewFunnel');

export const funnelChangesSchema = z
	.strictObject({
		name: name.optional().openapi({ description: 'The new name.' }),
		stageOrder: z.array(z.string().min(1).max(64)).max(30).optional().openapi({
			description: 'Every stage id of the funnel, each exactly once, in the new order (a reorder).',
			uniqueItems: true,
		}),
	})
	.refine((b) => Object.keys(b).length > 0, 'give at least one of name, stageOrder')
	.openapi('FunnelChanges', { minProperties: 1 });

export const newStageSchema = z
	.strictObject({
		name: name.openapi({ description: 'Unique in its funnel.', example: 'Demo' }),
		position: z
			.int()
			.min(0)
			.max(Number.MAX_SAFE_INTEGER)
			.optional()
			.openapi({ description: 'Where it goes, from 0; at the end when left out (or past the end).' }),
	})
	.openapi('NewStage');

export const stageChangesSchema = z
	.strictObject({ name: name.openapi({ description: 'The new name.' }) })
	.openapi('StageChanges');

export const funnelCursor = z.object({ name: z.string() });

const productSchema = z
	.strictObject({
		name: z.string().trim().min(1).max(200).openapi({ description: 'The product.' }),
		quantity: z.number().positive().max(1_000_000).openapi({ description: 'How many.' }),
		unitPrice: z.int().min(0).max(1e12).openapi({ description: 'Price of one, in minor units (cents).' }),
	})
	.openapi('DealProduct');

const currency = z
	.string()
	.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code in capitals, e.g. BRL')
	.openapi({ description: 'ISO 4217 currency code.', example: 'BRL' });

export const dealSchema = z
	.object({
		id: z.string().openapi({ description: 'The deal id.', example: 'deal_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'What is being sold.' }),
		funnelId: z.string().openapi({ description: 'Its funnel.' }),
		stage: z
			.object({
				id: z.string().openapi({ description: 'The stage id.' }),
				name: z.string().openapi({ description: 'The stage name.' }),
			})
			.openapi({ description: 'The stage it is in.' }),
		status: z.enum(['open', 'won', 'lost']).openapi({ description: 'open, won or lost.' }),
		value: z.number().int().nullable().openapi({ description: 'Its value in minor units (cents); null if unknown.' }),
		currency: z.string().nullable().openapi({ description: 'ISO 4217 code of the value.' }),
		products: z.array(productSchema).openapi({ description: 'Its lines.' }),
		ownerId: z.string().nullable().openapi({ description: 'The operator who owns it.' }),
		contactId: z.string().nullable().openapi({ description: 'The contact it is with.' }),
		customFields: z
			.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
			.openapi({ description: 'Values of the deal custom fields, by key.' }),
		closedAt: z.string().nullable().openapi({ description: 'When it was won or lost (ISO 8601); null while open.' }),
		createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When it last changed (ISO 8601).' }),
	})
	.openapi('Deal');

export type DealView = z.infer<typeof dealSchema>;

const dealCustomValues = keyedRecord(customFieldKey, z.union([z.string(), z.number(), z.boolean(), z.null()])).openapi({
	description: 'Values by deal custom field key, each checked against its definition; null clears one.',
});
const ref = z.string().trim().min(1).max(100);

export const newDealSchema = z
	.strictObject({
		funnel: ref.openapi({ description: 'The funnel, by id or name.', example: 'Sales' }),
		stage: ref.optional().openapi({ description: 'The stage, by id or name; the first stage when left out.' }),
		name: name.openapi({ description: 'What is being sold.', example: 'Acme: 20 seats' }),
		value: z.int().min(0).max(1e15).optional().openapi({
			description: 'In minor units (cents); the products’ total when left out and products are given.',
		}),
		currency: currency.optional(),
		products: z.array(productSchema).max(100).optional().openapi({ description: 'Its lines.' }),
		ownerId: z.string().min(1).max(64).optional().openapi({ description: 'The operator who owns it.' }),
		contactId: z.string().min(1).max(64).optional().openapi({ description: 'The contact it is with.' }),
		customFields: dealCustomValues.optional(),
	})
	.refine((d) => d.currency !== undefined || (d.value === undefined && d.products === undefined), {
		message: 'a value or products need a currency',
		path: ['currency'],
	})
	// The refinement above is invisible to the generator: the document states it for clients that validate.
	.openapi('NewDeal', schemaRules({ dependentRequired: { value: ['currency'], products: ['currency'] } }));

export type NewDeal = z.infer<typeof newDealSchema>;

export const dealChangesSchema = z
	.strictObject({
		name: name.optional().openapi({ description: 'The new name.' }),
		funnel: ref
			.optional()
			.openapi({ description: 'Move to this funnel (by id or name), with `stage` or to its first.' }),
		stage: ref.optional().openapi({ description: 'Move to this stage (by id or name) of its funnel.' }),
		status: z.enum(['open', 'won', 'lost']).optional().openapi({ description: 'Mark it won or lost, or open again.' }),
		value: z.int().min(0).max(1e15).nullable().optional().openapi({ description: 'In minor units; null clears it.' }),
		currency: currency.nullable().optional(),
		products: z.array(productSchema).max(100).optional().openapi({ description: 'Replaces its lines.' }),
		ownerId: z.string().min(1).max(64).nullable().optional().openapi({ description: 'The owner; null for none.' }),
		contactId: z.string().min(1).max(64).nullable().optional().openapi({ description: 'The contact; null for none.' }),
		customFields: dealCustomValues.optional(),
	})
	.refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
	.openapi('DealChanges', { minProperties: 1 });

export const dealFiltersSchema = z.strictObject({
	funnelId: z.string().min(1).max(64).optional().openapi({ description: 'Only this funnel’s deals.' }),
	stageId: z.string().min(1).max(64).optional().openapi({ description: 'Only this stage’s deals.' }),
	ownerId: z.string().min(1).max(64).optional().openapi({ description: 'Only this operator’s deals.' }),
	contactId: z.string().min(1).max(64).optional().openapi({ description: 'Only this contact’s deals.' }),
	status: z.enum(['open', 'won', 'lost']).optional().openapi({ description: 'Only open, won or lost deals.' }),
});
