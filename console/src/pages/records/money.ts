import type { Schemas } from '../../api/client';

/** A deal's value in its currency (values are kept in cents), or '' when it has none. */
export function money(deal: Pick<Schemas['Deal'], 'value' | 'currency'>): string {
	if (deal.value === null) return '';
	const amount = deal.value / 100;
	return deal.currency
		? new Intl.NumberFormat(undefined, { style: 'currency', currency: deal.currency }).format(amount)
		: String(amount);
}
