/**
 * The CRM: funnels with ordered stages, and deals moving through them. One function per operation, for the
 * /v3 routes now and for bots (`create_deal`), scenarios and rules later. A funnel and a stage may be named by
 * id or by name (case-insensitive), as a bot's author writes them: an unknown or ambiguous name is a 422 that
 * says which. Every change commits with its event; a deal changing stage announces `deal.stage_changed` with
 * the stage before and after, the trigger rules and bots react to.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import {
	batchGuard,
	brokeGuard,
	brokeVersionGuard,
	type Database,
	nextVersion,
	type Statement,
	versionGuard,
	violatesForeignKey,
	violatesUnique,
} from '../../db/client';
import { contacts, type DealProduct, deals, funnels, notes, stages, tasks } from '../../db/schema';
import { existsInWorkspace, linksGuard, rowsLinkedTo } from '../../db/scoped';
import { commit, release } from '../../events/commit';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../lib/cursor';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { assertVersion, changedSince, type ExpectedVersion, expectsVersion } from '../../lib/expected-version';
import { iso, isoOrNull, newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { customFieldKey } from '../../model/custom-fields';
import { changesOf, type DomainEvent, newEvent } from '../../model/events';
import { assertEnabledOperator } from '../team/assignees';
import { checkedCustomValues, customChangeEntries, customValueChanges, definitionsGuard } from './custom-fields';
import { tasksMoved } from './tasks';

// Funnels and stages.

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
			.openapi({ description: 'Its stages, in order.', example: ['New', 'Proposal', 'Negotiation'] }),
	})
	.openapi('NewFunnel');

export const funnelChangesSchema = z
	.strictObject({
		name: name.optional().openapi({ description: 'The new name.' }),
		stageOrder: z
			.array(z.string().min(1).max(64))
			.max(30)
			.optional()
			.openapi({ description: 'Every stage id of the funnel, in the new order (a reorder).' }),
	})
	.refine((b) => Object.keys(b).length > 0, 'give at least one of name, stageOrder')
	.openapi('FunnelChanges', { minProperties: 1 });

export const newStageSchema = z
	.strictObject({
		name: name.openapi({ description: 'Unique in its funnel.', example: 'Demo' }),
		position: z.int().min(0).optional().openapi({ description: 'Where it goes, from 0; at the end when left out.' }),
	})
	.openapi('NewStage');

export const stageChangesSchema = z
	.strictObject({ name: name.openapi({ description: 'The new name.' }) })
	.openapi('StageChanges');

type FunnelRow = typeof funnels.$inferSelect;
type StageRow = typeof stages.$inferSelect;

const stagesOfFunnel = sql<string>`(SELECT json_group_array(json_object('id', s.id, 'name', s.name, 'position', s.position)) FROM stages s WHERE s.workspace_id = funnels.workspace_id AND s.funnel_id = funnels.id)`;
const funnelColumns = { funnel: funnels, stages: stagesOfFunnel };

function funnelView(row: { funnel: FunnelRow; stages: string | null }): FunnelView {
	const list = (JSON.parse(row.stages ?? '[]') as FunnelView['stages']).sort((a, b) => a.position - b.position);
	return { id: row.funnel.id, name: row.funnel.name, stages: list, createdAt: iso(row.funnel.createdAt) };
}

const funnelIn = (workspaceId: string, id: string) => and(eq(funnels.workspaceId, workspaceId), eq(funnels.id, id));

async function funnelRow(db: Database, workspaceId: string, id: string) {
	const row = await db.select(funnelColumns).from(funnels).where(funnelIn(workspaceId, id)).get();
	if (!row) throw new NotFound(`Funnel ${id} not found.`);
	return row;
}

export async function getFunnel(db: Database, workspaceId: string, id: string): Promise<FunnelView> {
	return funnelView(await funnelRow(db, workspaceId, id));
}

export const funnelCursor = z.object({ name: z.string() });

/** One page of the workspace's funnels by name, each with its stages, in one statement. */
export async function listFunnels(db: Database, workspaceId: string, after: { name: string } | null, limit: number) {
	const rows = await db
		.select(funnelColumns)
		.from(funnels)
		.where(and(eq(funnels.workspaceId, workspaceId), after === null ? undefined : gt(funnels.name, after.name)))
		.orderBy(asc(funnels.name))
		.limit(limit + 1);
	return pageOf(rows, limit, funnelView, (row) => ({ name: row.funnel.name }));
}

function nameTaken(what: string) {
	return (error: unknown): never => {
		if (violatesUnique(error, 'funnels.name')) {
			throw new Conflict(`The workspace already has a funnel named "${what}".`, { cause: error });
		}
		if (violatesUnique(error, 'stages.name')) {
			throw new Conflict(`The funnel already has a stage named "${what}".`, { cause: error });
		}
		throw error;
	};
}

const funnelSummary = (view: { id: string; name: string }) => ({ id: view.id, name: view.name });

/** Creates a funnel with its stages in order, with a `funnel.created` event; a 409 when the name is taken. */
export async function createFunnel(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newFunnelSchema>,
	actor: Actor,
	now = Date.now(),
): Promise<FunnelView> {
	const funnel: FunnelRow = { id: newId('fnl', now), workspaceId, name: input.name, createdAt: now };
	const stageRows: StageRow[] = input.stages.map((stageName, position) => ({
		id: newId('stg', now),
		workspaceId,
		funnelId: funnel.id,
		name: stageName,
		position,
	}));
	const event = newEvent('funnel.created', workspaceId, actor, { funnel: funnelSummary(funnel) }, now);
	const statements = [db.insert(funnels).values(funnel), db.insert(stages).values(stageRows)];
	const committed = await commit(db, { statements, events: [event] }, nameTaken(input.name));
	await release(env, committed.events);
	return getFunnel(db, workspaceId, funnel.id);
}

/** The guard of a change computed from the funnel's stages as read: the same ids, names and order. */
function stagesAsRead(funnel: FunnelView) {
	const expected = JSON.stringify(funnel.stages.map((s) => [s.id, s.name, s.position]));
	return batchGuard(sql`(SELECT coalesce(json_group_array(json_array(id, name, position)), '[]') FROM
		(SELECT id, name, position FROM stages WHERE funnel_id = ${funnel.id} ORDER BY position)) = ${expected}`);
}

async function commitFunnelChange(
	env: Env,
	db: Database,
	statements: Statement[],
	events: DomainEvent[],
	conflictName: string,
	funnelId: string,
) {
	const committed = await commit(db, { statements, events }, (error) => {
		if (brokeGuard(error)) throw new Conflict(`Funnel ${funnelId} changed while this change was applied; retry.`);
		return nameTaken(conflictName)(error);
	});
	await release(env, committed.events);
}

/** `position` rewritten for the stages in the order given (statements for the ones that move). */
function positionStatements(db: Database, workspaceId: string, ordered: Array<{ id: string; position: number }>) {
	return ordered.flatMap((stage, position) =>
		stage.position === position
			? []
			: [
					db
						.update(stages)
						.set({ position })
						.where(and(eq(stages.workspaceId, workspaceId), eq(stages.id, stage.id))),
				],
	);
}

/**
 * Renames a funnel or reorders its stages (`stageOrder`: every stage id, once), with a `funnel.updated`
 * event; nothing when nothing moves. The change applies only while the funnel is as read, else a 409.
 */
export async function updateFunnel(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof funnelChangesSchema>,
	actor: Actor,
	now = Date.now(),
): Promise<FunnelView> {
	const funnel = await getFunnel(db, workspaceId, id);
	const moved: Partial<Record<'name' | 'stages', { from: unknown; to: unknown }>> = {};
	const statements: Statement[] = [stagesAsRead(funnel)];
	if (changes.name !== undefined && changes.name !== funnel.name) {
		moved.name = { from: funnel.name, to: changes.name };
		statements.push(db.update(funnels).set({ name: changes.name }).where(funnelIn(workspaceId, id)));
	}
	if (changes.stageOrder) {
		const byId = new Map(funnel.stages.map((s) => [s.id, s]));
		const order = changes.stageOrder;
		if (order.length !== byId.size || new Set(order).size !== order.length || order.some((s) => !byId.has(s))) {
			throw new Invalid(`must list each of the funnel's ${byId.size} stage ids exactly once`, {
				field: ['stageOrder'],
			});
		}
		const ordered = order.map((stageId) => byId.get(stageId) as FunnelView['stages'][number]);
		if (ordered.some((stage, position) => stage.position !== position)) {
			moved.stages = { from: funnel.stages.map((s) => s.name), to: ordered.map((s) => s.name) };
			statements.push(...positionStatements(db, workspaceId, ordered));
		}
	}
	if (Object.keys(moved).length === 0) return funnel;
	const summary = { id, name: changes.name ?? funnel.name };
	const event = newEvent('funnel.updated', workspaceId, actor, { funnel: summary, ...changesOf(moved) }, now);
	await commitFunnelChange(env, db, statements, [event], changes.name ?? funnel.name, id);
	return getFunnel(db, workspaceId, id);
}

/** Deletes a funnel that has no deals (a 409 says to move or delete them first), with `funnel.deleted`. */
export async function deleteFunnel(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	actor: Actor,
	now = Date.now(),
): Promise<void> {
	const funnel = await getFunnel(db, workspaceId, id);
	const hasDeals = () => new Conflict(`Funnel ${id} has deals: move or delete them first.`);
	const deal = await db
		.select({ id: deals.id })
		.from(deals)
		.where(and(eq(deals.workspaceId, workspaceId), eq(deals.funnelId, id)))
		.get();
	if (deal) throw hasDeals();
	const statements: Statement[] = [
		db.delete(stages).where(and(eq(stages.workspaceId, workspaceId), eq(stages.funnelId, id))),
		db.delete(funnels).where(funnelIn(workspaceId, id)),
	];
	const event = newEvent('funnel.deleted', workspaceId, actor, { funnel: funnelSummary(funnel) }, now);
	const committed = await commit(db, { statements, events: [event] }, (error) => {
		if (violatesForeignKey(error)) throw hasDeals();
		throw error;
	});
	await release(env, committed.events);
}

/** Adds a stage at `position` (the end by default), moving the ones after it down, with `funnel.updated`. */
export async function addStage(
	env: Env,
	db: Database,
	workspaceId: string,
	funnelId: string,
	input: z.infer<typeof newStageSchema>,
	actor: Actor,
	now = Date.now(),
): Promise<FunnelView> {
	const funnel = await getFunnel(db, workspaceId, funnelId);
	if (funnel.stages.length >= 30) throw new Conflict('A funnel has at most 30 stages.');
	const position = Math.min(input.position ?? funnel.stages.length, funnel.stages.length);
	const stage = { id: newId('stg', now), workspaceId, funnelId, name: input.name, position };
	const after = [...funnel.stages.slice(0, position), stage, ...funnel.stages.slice(position)];
	// The stages after it move down one; the new one is inserted at its place.
	const statements: Statement[] = [
		stagesAsRead(funnel),
		...positionStatements(db, workspaceId, after),
		db.insert(stages).values(stage),
	];
	const moved = { stages: { from: funnel.stages.map((s) => s.name), to: after.map((s) => s.name) } };
	const event = newEvent(
		'funnel.updated',
		workspaceId,
		actor,
		{ funnel: funnelSummary(funnel), ...changesOf(moved) },
		now,
	);
	await commitFunnelChange(env, db, statements, [event], input.name, funnelId);
	return getFunnel(db, workspaceId, funnelId);
}

/** Renames a stage (its deals keep it), with `funnel.updated`. */
export async function renameStage(
	env: Env,
	db: Database,
	workspaceId: string,
	funnelId: string,
	stageId: string,
	stageName: string,
	actor: Actor,
	now = Date.now(),
): Promise<FunnelView> {
	const funnel = await getFunnel(db, workspaceId, funnelId);
	const stage = funnel.stages.find((s) => s.id === stageId);
	if (!stage) throw new NotFound(`Stage ${stageId} not found in funnel ${funnelId}.`);
	if (stage.name === stageName) return funnel;
	const after = funnel.stages.map((s) => (s.id === stageId ? stageName : s.name));
	const moved = { stages: { from: funnel.stages.map((s) => s.name), to: after } };
	const event = newEvent(
		'funnel.updated',
		workspaceId,
		actor,
		{ funnel: funnelSummary(funnel), ...changesOf(moved) },
		now,
	);
	const statements: Statement[] = [
		stagesAsRead(funnel),
		db
			.update(stages)
			.set({ name: stageName })
			.where(and(eq(stages.workspaceId, workspaceId), eq(stages.id, stageId))),
	];
	await commitFunnelChange(env, db, statements, [event], stageName, funnelId);
	return getFunnel(db, workspaceId, funnelId);
}

/**
 * Deletes a stage: one with deals only with `moveDealsTo` (another stage of the funnel), where they go, each
 * with its `deal.stage_changed`. The last stage of a funnel stays (a deal always has one). Guarded: a deal
 * entering the stage meanwhile makes it a 409.
 */
export async function deleteStage(
	env: Env,
	db: Database,
	workspaceId: string,
	funnelId: string,
	stageId: string,
	moveDealsTo: string | undefined,
	actor: Actor,
	now = Date.now(),
): Promise<FunnelView> {
	const funnel = await getFunnel(db, workspaceId, funnelId);
	const stage = funnel.stages.find((s) => s.id === stageId);
	if (!stage) throw new NotFound(`Stage ${stageId} not found in funnel ${funnelId}.`);
	if (funnel.stages.length === 1) throw new Conflict('A funnel keeps at least one stage: delete the funnel instead.');
	const target = moveDealsTo === undefined ? undefined : funnel.stages.find((s) => s.id === moveDealsTo);
	if (moveDealsTo !== undefined && (!target || target.id === stageId)) {
		throw new Invalid('must be another stage of the same funnel', { field: ['moveDealsTo'], source: 'query' });
	}
	const inStage = await rowsLinkedTo(db, deals, deals.stageId, workspaceId, stageId);
	if (inStage.rows.length > 0 && !target) {
		throw new Conflict(`Stage ${stageId} has ${inStage.rows.length} deal(s): give moveDealsTo, the stage they go to.`);
	}
	const after = funnel.stages.filter((s) => s.id !== stageId);
	const statements: Statement[] = [stagesAsRead(funnel), batchGuard(inStage.unchanged)];
	if (target)
		statements.push(
			db
				.update(deals)
				.set({ stageId: target.id, updatedAt: nextVersion(deals.updatedAt, now) })
				.where(inStage.where),
		);
	statements.push(
		db.delete(stages).where(and(eq(stages.workspaceId, workspaceId), eq(stages.id, stageId))),
		...positionStatements(db, workspaceId, after),
	);
	const from = { id: stage.id, name: stage.name };
	const events: DomainEvent[] = [
		// With deals there is a target (checked above).
		...(target
			? inStage.rows.map((deal) =>
					newEvent(
						'deal.stage_changed',
						workspaceId,
						actor,
						{ deal: dealSummary({ ...deal, stageId: target.id }), from, to: { id: target.id, name: target.name } },
						now,
					),
				)
			: []),
		newEvent(
			'funnel.updated',
			workspaceId,
			actor,
			{
				funnel: funnelSummary(funnel),
				...changesOf({ stages: { from: funnel.stages.map((s) => s.name), to: after.map((s) => s.name) } }),
			},
			now,
		),
	];
	await commitFunnelChange(env, db, statements, events, stage.name, funnelId);
	return getFunnel(db, workspaceId, funnelId);
}

/**
 * The funnel and stage a reference names: each by id or by name (exact, else in any case); the stage within the
 * funnel, its first stage when none is given. A 422 on `fields` says when a name is unknown or matches
 * several. One statement.
 */
export async function resolveStage(
	db: Database,
	workspaceId: string,
	funnelRef: string,
	stageRef: string | undefined,
	fields: { funnel: string; stage: string } = { funnel: 'funnel', stage: 'stage' },
): Promise<{ funnel: { id: string; name: string }; stage: { id: string; name: string } }> {
	const rows = await db.select(funnelColumns).from(funnels).where(eq(funnels.workspaceId, workspaceId));
	const all = rows.map(funnelView);
	const funnel = pick(all, funnelRef, 'funnel', fields.funnel);
	if (funnel.stages.length === 0) throw new Invalid('the funnel has no stage', { field: [fields.funnel] });
	const stage =
		stageRef === undefined
			? (funnel.stages[0] as FunnelView['stages'][number])
			: pick(funnel.stages, stageRef, 'stage', fields.stage);
	return { funnel: { id: funnel.id, name: funnel.name }, stage: { id: stage.id, name: stage.name } };
}

/** Funnels named by id or name, as `resolveStage` finds them, in one statement; a 422 on `<field>.<i>`. */
export async function resolveFunnels(
	db: Database,
	workspaceId: string,
	refs: readonly string[],
	field: string,
): Promise<string[]> {
	if (refs.length === 0) return [];
	const rows = await db.select(funnelColumns).from(funnels).where(eq(funnels.workspaceId, workspaceId));
	const all = rows.map(funnelView);
	return refs.map((ref, i) => pick(all, ref, 'funnel', `${field}.${i}`).id);
}

/**
 * The item with this id, else with exactly this name (names are unique), else the one with this name in any
 * case: a 422 when none or several match.
 */
function pick<T extends { id: string; name: string }>(items: T[], ref: string, what: string, field: string): T {
	const exact = items.find((item) => item.id === ref) ?? items.find((item) => item.name === ref);
	if (exact) return exact;
	const named = items.filter((item) => item.name.toLowerCase() === ref.toLowerCase());
	if (named.length === 1) return named[0] as T;
	if (named.length === 0) throw new Invalid(`no ${what} "${ref}" (by id or name)`, { field: [field] });
	throw new Invalid(`the ${what} name "${ref}" is ambiguous: ${named.map((i) => `${i.name} (${i.id})`).join(', ')}`, {
		field: [field],
	});
}

// Deals.

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

const dealCustomValues = z
	.record(customFieldKey, z.union([z.string(), z.number(), z.boolean(), z.null()]))
	.openapi({ description: 'Values by deal custom field key, each checked against its definition; null clears one.' });
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
	.openapi('NewDeal');

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
 * Creates a deal in a funnel and stage named by id or name (the first stage when none is given), with a
 * `deal.created` event: what the API and a bot's `create_deal` both call. Its value defaults to its products'
 * total; its custom values are checked against the deal definitions, required ones included.
 */
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
