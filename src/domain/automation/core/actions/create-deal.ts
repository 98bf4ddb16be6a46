/**
 * Create deal: the spec's `create_deal` shape (funnel and stage by name, name, value and custom fields, all
 * templated). The value is rendered to text and read as an amount in the workspace's locale ("1.500,00" and
 * "1,500.00" both work); text that is no amount is refused, so the step's error path is taken.
 */
import { type CreateDealAction, localeCurrency } from '../../../../engines/actions/deals';
import { parseAmount } from '../../../../engines/values';
import { createDeal } from '../../../crm/deals';
import { type ActionContext, type ActionResult, given, givenValues, refused, refusedOn } from '../context';

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
