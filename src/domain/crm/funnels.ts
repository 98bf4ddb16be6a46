/**
 * Funnels: one function per operation for the /v3/funnels routes, and the naming of a funnel and a stage by
 * id or by name (case-insensitive), as a bot's author writes them: an unknown or ambiguous name is a 422 that
 * says which. Every change commits with its event. A funnel's stages are changed one by one in stages.ts; the
 * shapes are in pipeline-schemas.ts.
 */
import type { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import {
	batchGuard,
	brokeGuard,
	type Database,
	type Statement,
	violatesForeignKey,
	violatesUnique,
} from '../../db/client';
import { deals, funnels, stages } from '../../db/schema';
import { commit, release } from '../../events/commit';
import { pageOf } from '../../lib/cursor';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { iso, newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { changesOf, type DomainEvent, newEvent } from '../../model/events';
import type { FunnelView, funnelChangesSchema, newFunnelSchema } from './pipeline-schemas';

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

/** What a funnel's events say of it. */
export const funnelSummary = (view: { id: string; name: string }) => ({ id: view.id, name: view.name });

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
export function stagesAsRead(funnel: FunnelView) {
	const expected = JSON.stringify(funnel.stages.map((s) => [s.id, s.name, s.position]));
	return batchGuard(sql`(SELECT coalesce(json_group_array(json_array(id, name, position)), '[]') FROM
		(SELECT id, name, position FROM stages WHERE funnel_id = ${funnel.id} ORDER BY position)) = ${expected}`);
}

/** Commits a change of a funnel or its stages: a 409 when it changed meanwhile or a name is taken. */
export async function commitFunnelChange(
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
export function positionStatements(
	db: Database,
	workspaceId: string,
	ordered: Array<{ id: string; position: number }>,
) {
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
