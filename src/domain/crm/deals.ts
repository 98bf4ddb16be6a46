/**
 * Deals moving through a funnel's stages: one function per operation, for the /v3/deals routes and for bots
 * (`create_deal`), scenarios and rules. A deal's funnel and stage may be named by id or by name (see
 * `resolveStage` in funnels.ts). Every change commits with its event; a deal changing stage announces
 * `deal.stage_changed` with the stage before and after, the trigger rules and bots react to. The shapes are in
 * pipeline-schemas.ts, the funnels in funnels.ts and stages.ts.
 */
import type { z } from '@hono/zod-openapi';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import {
	batchGuard,
	brokeGuard,
	brokeVersionGuard,
	type Database,
	type Statement,
	versionGuard,
	violatesForeignKey,
} from '../../db/client';
import { contacts, type DealProduct, deals, notes, tasks } from '../../db/schema';
import { existsInWorkspace, linksGuard, rowsLinkedTo } from '../../db/scoped';
import { commit, release } from '../../events/commit';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../lib/cursor';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { assertVersion, changedSince, type ExpectedVersion, expectsVersion } from '../../lib/expected-version';
import { iso, isoOrNull, newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { changesOf, type DomainEvent, newEvent } from '../../model/events';
import { assertEnabledOperator } from '../team/assignees';
import { checkedCustomValues, customChangeEntries, customValueChanges, definitionsGuard } from './custom-values';
import { dealSummary } from './deal-events';
import { resolveStage } from './funnels';
import type { DealView, dealChangesSchema, dealFiltersSchema, NewDeal } from './pipeline-schemas';
import { tasksMoved } from './tasks';

type DealRow = typeof deals.$inferSelect;

const stageName = sql<string>`(SELECT s.name FROM stages s WHERE s.id = deals.stage_id)`;
const dealColumns = { deal: deals, stageName };

function dealView(row: { deal: DealRow; stageName: string }): DealView {
	const d = row.deal;
	return {
		id: d.id,
		name: d.name,
		funnelId: d.funnelId,
		stage: { id: d.stageId, name: row.stageName },
		status: d.status,
		value: d.valueCents,
		currency: d.currency,
		products: d.products,
		ownerId: d.ownerId,
		contactId: d.contactId,
		customFields: d.customFields,
		closedAt: isoOrNull(d.closedAt),
		createdAt: iso(d.createdAt),
		updatedAt: iso(d.updatedAt),
	};
}

const dealIn = (workspaceId: string, id: string) => and(eq(deals.workspaceId, workspaceId), eq(deals.id, id));

async function dealRow(db: Database, workspaceId: string, id: string) {
	const row = await db.select(dealColumns).from(deals).where(dealIn(workspaceId, id)).get();
	if (!row) throw new NotFound(`Deal ${id} not found.`);
	return row;
}

export async function getDeal(db: Database, workspaceId: string, id: string): Promise<DealView> {
	return dealView(await dealRow(db, workspaceId, id));
}

/** One page of the workspace's deals, newest first, in one statement. */
export async function listDeals(
	db: Database,
	workspaceId: string,
	filters: z.infer<typeof dealFiltersSchema>,
	after: NewestFirstCursor | null,
	limit: number,
) {
	const d = deals;
	const rows = await db
		.select(dealColumns)
		.from(d)
		.where(
			and(
				eq(d.workspaceId, workspaceId),
				filters.funnelId === undefined ? undefined : eq(d.funnelId, filters.funnelId),
				filters.stageId === undefined ? undefined : eq(d.stageId, filters.stageId),
				filters.ownerId === undefined ? undefined : eq(d.ownerId, filters.ownerId),
				filters.contactId === undefined ? undefined : eq(d.contactId, filters.contactId),
				filters.status === undefined ? undefined : eq(d.status, filters.status),
				afterNewestFirst(d.createdAt, d.id, after),
			),
		)
		.orderBy(desc(d.createdAt), desc(d.id))
		.limit(limit + 1);
	return pageOf(rows, limit, dealView, (row) => ({ at: row.deal.createdAt, id: row.deal.id }));
}

/** Checks the deal's owner (an operator) and contact belong to the workspace: a 422 naming the field. */
async function assertLinks(
	db: Database,
	workspaceId: string,
	links: { ownerId?: string | null; contactId?: string | null },
) {
	if (links.ownerId) await assertEnabledOperator(db, workspaceId, links.ownerId, 'ownerId');
	if (links.contactId && !(await existsInWorkspace(db, contacts, workspaceId, links.contactId))) {
		throw new Invalid(`no contact ${links.contactId} in this workspace`, { field: ['contactId'] });
	}
}

/** The guard that the stage is still in the funnel (a stage deleted or moved meanwhile refuses the write). */
function stageStillThere(workspaceId: string, funnelId: string, stageId: string) {
	return batchGuard(
		sql`EXISTS (SELECT 1 FROM stages WHERE id = ${stageId} AND funnel_id = ${funnelId} AND workspace_id = ${workspaceId})`,
	);
}

function dealWriteFailed(error: unknown): never {
	if (brokeGuard(error)) {
		throw new Conflict(
			'The deal, its stage, its owner, its contact or a custom field changed at the same moment; retry.',
		);
	}
	if (violatesForeignKey(error))
		throw new Conflict('The deal’s contact or stage was deleted at the same moment; retry.');
	throw error;
}

/** What a deal's lines add up to, in minor units: its value unless one was set. */
export const productsTotal = (products: readonly DealProduct[]) =>
	Math.round(products.reduce((sum, p) => sum + p.quantity * p.unitPrice, 0));

/**
 * The contact's open deal an automation acts on: the most recently changed one (in these funnels, when given);
 * null when it has none.
 */
export async function latestOpenDeal(
	db: Database,
	workspaceId: string,
	contactId: string,
	funnelIds: readonly string[] = [],
): Promise<string | null> {
	const row = await db
		.select({ id: deals.id })
		.from(deals)
		.where(
			and(
				eq(deals.workspaceId, workspaceId),
				eq(deals.contactId, contactId),
				eq(deals.status, 'open'),
				funnelIds.length > 0 ? inArray(deals.funnelId, [...funnelIds]) : undefined,
			),
		)
		.orderBy(desc(deals.updatedAt), desc(deals.id))
		.get();
	return row?.id ?? null;
}

/**
 * Creates a deal in a funnel and stage named by id or name (the first stage when none is given), with a
 * `deal.created` event: what the API and a bot's `create_deal` both call. Its value defaults to its products'
 * total; its custom values are checked against the deal definitions, required ones included.
 */
export async function createDeal(
	env: Env,
	db: Database,
	workspaceId: string,
	input: NewDeal,
	actor: Actor,
	now = Date.now(),
): Promise<DealView> {
	const { funnel, stage } = await resolveStage(db, workspaceId, input.funnel, input.stage);
	await assertLinks(db, workspaceId, input);
	const custom = await checkedCustomValues(db, workspaceId, 'deal', input.customFields ?? {}, { creating: true });
	const products = input.products ?? [];
	const row: DealRow = {
		id: newId('deal', now),
		workspaceId,
		funnelId: funnel.id,
		stageId: stage.id,
		contactId: input.contactId ?? null,
		ownerId: input.ownerId ?? null,
		name: input.name,
		valueCents: input.value ?? (input.products ? productsTotal(products) : null),
		currency: input.currency ?? null,
		status: 'open',
		customFields: Object.fromEntries(
			Object.entries(custom).filter((entry): entry is [string, string | number | boolean] => entry[1] !== null),
		),
		products,
		closedAt: null,
		createdAt: now,
		updatedAt: now,
	};
	const event = newEvent('deal.created', workspaceId, actor, { deal: dealSummary(row) }, now);
	const links = linksGuard(workspaceId, [
		['operators', input.ownerId],
		['contacts', input.contactId],
	]);
	const definitions = definitionsGuard(workspaceId, 'deal', custom);
	const statements = [
		...(definitions ? [definitions] : []),
		stageStillThere(workspaceId, funnel.id, stage.id),
		...(links ? [links] : []),
		db.insert(deals).values(row),
	];
	const committed = await commit(db, { statements, events: [event] }, dealWriteFailed);
	await release(env, committed.events);
	return getDeal(db, workspaceId, row.id);
}

/**
 * Changes a deal: its fields (`deal.updated`, each from and to), its stage (`deal.stage_changed`, from and to)
 * or both; nothing when nothing moves. Won and lost set `closedAt`; open clears it. The write applies only
 * while the deal is as read (its `updated_at`), else a 409.
 */
export async function updateDeal(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof dealChangesSchema>,
	actor: Actor,
	/** The version the change was computed from (If-Match): applied only while it is current, else a 412. */
	expected?: ExpectedVersion,
	now = Date.now(),
): Promise<DealView> {
	const { deal: current, stageName: currentStage } = await dealRow(db, workspaceId, id);
	assertVersion(expected, current.updatedAt, `Deal ${id}`);
	const target =
		changes.funnel !== undefined || changes.stage !== undefined
			? await resolveStage(db, workspaceId, changes.funnel ?? current.funnelId, changes.stage)
			: undefined;
	await assertLinks(db, workspaceId, changes);
	const custom = await checkedCustomValues(db, workspaceId, 'deal', changes.customFields ?? {});
	const moved: Record<string, { from: unknown; to: unknown }> = {};
	const set: Partial<DealRow> = {};
	const field = <K extends 'name' | 'valueCents' | 'currency' | 'ownerId' | 'contactId' | 'status'>(
		key: K,
		label: string,
		to: DealRow[K] | undefined,
	) => {
		if (to !== undefined && to !== current[key]) {
			moved[label] = { from: current[key], to };
			set[key] = to;
		}
	};
	field('name', 'name', changes.name);
	field('valueCents', 'value', changes.value);
	field('currency', 'currency', changes.currency);
	field('ownerId', 'ownerId', changes.ownerId);
	field('contactId', 'contactId', changes.contactId);
	field('status', 'status', changes.status);
	if (moved.status) set.closedAt = changes.status === 'open' ? null : now;
	if (changes.products && JSON.stringify(changes.products) !== JSON.stringify(current.products)) {
		moved.products = { from: current.products, to: changes.products };
		set.products = changes.products;
	}
	const movedCustom = customValueChanges(current.customFields, custom);
	if (movedCustom.size > 0) {
		const next: Record<string, string | number | boolean> = { ...current.customFields };
		for (const [key, { to }] of movedCustom) {
			if (to === null) delete next[key];
			else next[key] = to;
		}
		set.customFields = next;
		Object.assign(moved, customChangeEntries(movedCustom));
	}
	const stageMoved = target !== undefined && target.stage.id !== current.stageId;
	if (stageMoved) {
		set.funnelId = target.funnel.id;
		set.stageId = target.stage.id;
	}
	if (Object.keys(set).length === 0) return dealView({ deal: current, stageName: currentStage });
	const updatedAt = Math.max(now, current.updatedAt + 1);
	const after: DealRow = { ...current, ...set, updatedAt };
	const statements: Statement[] = [
		db
			.update(deals)
			.set({ ...set, updatedAt })
			.where(and(dealIn(workspaceId, id), eq(deals.updatedAt, current.updatedAt))),
		// A version the caller named gets a guard of its own, so its failure is a 412 and the others a 409.
		(expectsVersion(expected) ? versionGuard : batchGuard)(sql`changes() = 1`),
	];
	if (stageMoved) statements.unshift(stageStillThere(workspaceId, target.funnel.id, target.stage.id));
	const links = linksGuard(workspaceId, [
		['operators', changes.ownerId],
		['contacts', changes.contactId],
	]);
	if (links) statements.unshift(links);
	const definitions = definitionsGuard(workspaceId, 'deal', custom);
	if (definitions) statements.unshift(definitions);
	const events: DomainEvent[] = [];
	if (Object.keys(moved).length > 0) {
		events.push(newEvent('deal.updated', workspaceId, actor, { deal: dealSummary(after), ...changesOf(moved) }, now));
	}
	if (stageMoved) {
		events.push(
			newEvent(
				'deal.stage_changed',
				workspaceId,
				actor,
				{ deal: dealSummary(after), from: { id: current.stageId, name: currentStage }, to: target.stage },
				now,
			),
		);
	}
	const committed = await commit(db, { statements, events }, (error) => {
		if (brokeVersionGuard(error)) throw changedSince(`Deal ${id}`);
		return dealWriteFailed(error);
	});
	await release(env, committed.events);
	return getDeal(db, workspaceId, id);
}

/**
 * Deletes a deal and its notes, with a `deal.deleted` event; tasks about it stay, without it (each with its
 * `task.updated`).
 */
export async function deleteDeal(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	actor: Actor,
	/** The version the caller read (If-Match): deleted only while it is current, else a 412. */
	expected?: ExpectedVersion,
	now = Date.now(),
): Promise<void> {
	const { deal } = await dealRow(db, workspaceId, id);
	assertVersion(expected, deal.updatedAt, `Deal ${id}`);
	const linked = await rowsLinkedTo(db, tasks, tasks.dealId, workspaceId, id);
	const atVersion = sql`EXISTS (SELECT 1 FROM ${deals} WHERE ${and(dealIn(workspaceId, id), eq(deals.updatedAt, deal.updatedAt))})`;
	const statements: Statement[] = [
		...(expectsVersion(expected) ? [versionGuard(atVersion)] : []),
		batchGuard(linked.unchanged),
		db
			.delete(notes)
			.where(and(eq(notes.workspaceId, workspaceId), eq(notes.subjectKind, 'deal'), eq(notes.subjectId, id))),
		db.update(tasks).set({ dealId: null, updatedAt: now }).where(linked.where),
		db.delete(deals).where(dealIn(workspaceId, id)),
	];
	const events: DomainEvent[] = [
		...tasksMoved(workspaceId, actor, linked.rows, 'dealId', null, now),
		newEvent('deal.deleted', workspaceId, actor, { deal: dealSummary(deal) }, now),
	];
	const committed = await commit(db, { statements, events }, (error) => {
		if (brokeVersionGuard(error)) throw changedSince(`Deal ${id}`);
		if (brokeGuard(error)) throw new Conflict(`Deal ${id} was given a task at the same moment; retry.`);
		throw error;
	});
	await release(env, committed.events);
}
