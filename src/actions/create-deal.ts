/**
 * Create deal: the spec's `create_deal` shape (funnel and stage by name, name, value and custom fields, all
 * templated). The value is rendered to text and read as an amount in the workspace's locale ("1.500,00" and
 * "1,500.00" both work); text that is no amount is refused, so the step's error path is taken.
 */
import { z } from '@hono/zod-openapi';
import { createDeal } from '../domain/crm/deals';
import { parseAmount } from '../engines/values';
import { type ActionContext, type ActionResult, given, givenValues, refused, refusedOn } from './context';
import { template } from './fields';

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
	custom_fields: z
		.record(z.string().max(40), template(2000))
		.optional()
		.openapi({ description: 'Deal custom values by key, each a template.' }),
});

export type CreateDealAction = z.infer<typeof createDealAction>;

/** The currency of a workspace that writes amounts this way, when a step names none. */
export function localeCurrency(locale: ActionContext['locale']): string {
	return locale === 'pt' ? 'BRL' : 'USD';
}

export function performCreateDeal(ctx: ActionContext, action: CreateDealAction): Promise<ActionResult> {
	return refusedOn(async () => {
		const name = given(action.name);
		if (name === undefined) return refused('name: rendered empty');
		const funnel = given(action.funnel);
		if (funnel === undefined) return refused('funnel: rendered empty');
		const rawValue = given(action.value);
		const value = rawValue === undefined ? undefined : parseAmount(rawValue, ctx.locale);
		if (value === null) return refused(`value: "${rawValue}" is not an amount`);
		if (value !== undefined && value < 0) return refused(`value: "${rawValue}" is negative`);
		const deal = await createDeal(
			ctx.env,
			ctx.db,
			ctx.workspaceId,
			{
				funnel,
				stage: given(action.stage),
				name,
				...(value === undefined ? {} : { value, currency: action.currency ?? localeCurrency(ctx.locale) }),
				...(ctx.contactId === null ? {} : { contactId: ctx.contactId }),
				customFields: givenValues(action.custom_fields),
			},
			ctx.actor,
			ctx.now,
		);
		return {
			ok: true,
			data: { id: deal.id, name: deal.name, stage: deal.stage.name, value: deal.value, currency: deal.currency },
		};
	});
}
