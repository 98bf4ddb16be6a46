import type { deals } from '../../db/schema';
import type { Actor } from '../../model/actor';
import { changesOf, type DomainEvent, newEvent } from '../../model/events';

type DealRow = typeof deals.$inferSelect;

export function dealSummary(d: DealRow) {
	return {
		id: d.id,
		name: d.name,
		funnelId: d.funnelId,
		stageId: d.stageId,
		status: d.status,
		value: d.valueCents,
		currency: d.currency,
		contactId: d.contactId,
		ownerId: d.ownerId,
	};
}

/** One `deal.updated` per deal a bulk change moved (its owner deleted, its contact merged). */
export function dealsMoved(
	workspaceId: string,
	actor: Actor,
	rows: readonly DealRow[],
	field: 'ownerId' | 'contactId',
	to: string | null,
	now: number,
): DomainEvent[] {
	return rows.map((deal) =>
		newEvent(
			'deal.updated',
			workspaceId,
			actor,
			{ deal: dealSummary({ ...deal, [field]: to }), ...changesOf({ [field]: { from: deal[field], to } }) },
			now,
		),
	);
}
