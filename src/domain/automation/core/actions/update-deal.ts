/**
 * Update deal: changes the stage, fields, owner or value of a deal, and adds products to it. The deal is the
 * one a variable names (`dealVariable`, e.g. `deal_id` set by an earlier create_deal), else the contact's
 * most recently changed open deal in the selected funnels (any funnel when none is selected). Finding none is
 * no error: the step's `onNoDeal` path is taken.
 */
import type { DealProduct } from '../../../../db/schema';
import { localeCurrency, type UpdateDealAction } from '../../../../engines/actions/deals';
import { parseAmount } from '../../../../engines/values';
import { NotFound } from '../../../../lib/errors';
import { getDeal, latestOpenDeal, productsTotal, updateDeal } from '../../../crm/deals';
import { resolveFunnels } from '../../../crm/funnels';
import { type ActionContext, type ActionResult, given, givenValues, refused, refusedOn } from '../context';

/**
 * The deal the step targets, or null for none: the one the variable names (read by the update itself, which
 * finds it gone or another workspace's), else the contact's most recently changed open deal in the funnels.
 */
async function targetDeal(ctx: ActionContext, action: UpdateDealAction): Promise<string | null> {
	if (action.dealVariable !== undefined) {
		const id = ctx.variables[action.dealVariable];
		return typeof id === 'string' && id !== '' ? id : null;
	}
	if (ctx.contactId === null) return null;
	const funnelIds = await resolveFunnels(ctx.db, ctx.workspaceId, action.funnels ?? [], 'funnels');
	return latestOpenDeal(ctx.db, ctx.workspaceId, ctx.contactId, funnelIds);
}

export function performUpdateDeal(ctx: ActionContext, action: UpdateDealAction): Promise<ActionResult> {
	return refusedOn(async () => {
		const id = await targetDeal(ctx, action);
		if (id === null) return { ok: true, noDeal: true };
		const rawValue = given(action.value);
		const value = rawValue === undefined ? undefined : parseAmount(rawValue, ctx.locale);
		if (value === null || (value !== undefined && value < 0)) return refused(`value: "${rawValue}" is not an amount`);
		const added = [];
		for (const [i, product] of (action.products ?? []).entries()) {
			const unitPrice = parseAmount(product.unitPrice, ctx.locale);
			if (unitPrice === null || unitPrice < 0)
				return refused(`products.${i}.unitPrice: "${product.unitPrice}" is not an amount`);
			const name = given(product.name);
			if (name === undefined) return refused(`products.${i}.name: rendered empty`);
			added.push({ name, quantity: product.quantity, unitPrice });
		}
		try {
			return await update(ctx, action, id, value, added);
		} catch (error) {
			// The deal a variable named is gone (or another workspace's): no deal, as for a contact without one.
			if (error instanceof NotFound) return { ok: true, noDeal: true };
			throw error;
		}
	});
}

async function update(
	ctx: ActionContext,
	action: UpdateDealAction,
	id: string,
	value: number | undefined,
	added: DealProduct[],
): Promise<ActionResult> {
	const current = value !== undefined || added.length > 0 ? await getDeal(ctx.db, ctx.workspaceId, id) : null;
	const products = current && added.length > 0 ? [...current.products, ...added] : undefined;
	// A deal whose value follows its products (or has none) keeps following them; one set by hand stays.
	const followsProducts =
		current !== null && (current.value === null || current.value === productsTotal(current.products));
	const newValue = value ?? (products && followsProducts ? productsTotal(products) : undefined);
	const deal = await updateDeal(
		ctx.env,
		ctx.db,
		ctx.workspaceId,
		id,
		{
			...(given(action.stage) === undefined ? {} : { stage: given(action.stage) }),
			...(given(action.name) === undefined ? {} : { name: given(action.name) }),
			...(given(action.owner) === undefined ? {} : { ownerId: given(action.owner) }),
			...(newValue === undefined ? {} : { value: newValue }),
			...(products ? { products } : {}),
			// An amount needs its currency: a deal without one takes the workspace locale's.
			...(current && current.currency === null ? { currency: localeCurrency(ctx.locale) } : {}),
			customFields: givenValues(action.custom_fields),
		},
		ctx.actor,
		undefined,
		ctx.now,
	);
	return { ok: true, data: { id: deal.id, name: deal.name, stage: deal.stage.name, value: deal.value } };
}
