/**
 * A funnel's stages: adding one at a place, renaming one, deleting one (its deals moved to another stage, each
 * announcing `deal.stage_changed`). Each change is checked against the funnel's stages as read and announced
 * with `funnel.updated`. Apart from funnels.ts, which holds the funnel itself and the helpers both share.
 */
import type { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { batchGuard, type Database, nextVersion, type Statement } from '../../db/client';
import { deals, stages } from '../../db/schema';
import { rowsLinkedTo } from '../../db/scoped';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { changesOf, type DomainEvent, newEvent } from '../../model/events';
import { dealSummary } from './deal-events';
import { commitFunnelChange, funnelSummary, getFunnel, positionStatements, stagesAsRead } from './funnels';
import type { FunnelView, newStageSchema } from './pipeline-schemas';

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
