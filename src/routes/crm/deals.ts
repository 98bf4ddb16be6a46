import { createRoute, z } from '@hono/zod-openapi';
import { createDeal, deleteDeal, getDeal, listDeals, updateDeal } from '../../domain/crm/deals';
import { createFunnel, deleteFunnel, getFunnel, listFunnels, updateFunnel } from '../../domain/crm/funnels';
import {
	dealChangesSchema,
	dealFiltersSchema,
	dealSchema,
	funnelChangesSchema,
	funnelCursor,
	funnelSchema,
	newDealSchema,
	newFunnelSchema,
	newStageSchema,
	stageChangesSchema,
} from '../../domain/crm/pipeline-schemas';
import { addStage, deleteStage, renameStage } from '../../domain/crm/stages';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { etagged, ifMatch, ifMatchHeaders, tagged } from '../../lib/etag';
import { operatorActor } from '../../model/actor';

const at = '2026-11-23T12:00:00.000Z';
const funnelExample: z.input<typeof funnelSchema> = {
	id: 'fnl_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'Sales',
	stages: [
		{ id: 'stg_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'New', position: 0 },
		{ id: 'stg_01JD3Q8Z6Y2V7K1N4M5P6R7S8V', name: 'Proposal', position: 1 },
	],
	createdAt: at,
};
const dealExample: z.input<typeof dealSchema> = {
	id: 'deal_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'Acme: 20 seats',
	funnelId: 'fnl_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	stage: { id: 'stg_01JD3Q8Z6Y2V7K1N4M5P6R7S8V', name: 'Proposal' },
	status: 'open',
	value: 240000,
	currency: 'BRL',
	products: [{ name: 'Seat', quantity: 20, unitPrice: 12000 }],
	ownerId: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	contactId: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	customFields: {},
	closedAt: null,
	createdAt: at,
	updatedAt: at,
};
const funnelParams = z.object({ id: idParam('id', funnelExample.id, 'The funnel id.') });
const stageParams = funnelParams.extend({
	stageId: idParam('stageId', 'stg_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The stage id.'),
});
const dealParams = z.object({ id: idParam('id', dealExample.id, 'The deal id.') });

export const funnelsRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listFunnels',
			summary: 'List funnels with their stages',
			description: 'By name, each with its stages in order.',
			...requires('crm:access'),
			request: { query: z.object(pageQuery(50)) },
			responses: {
				200: jsonResponse('A page of funnels.', pageSchema('FunnelPage', funnelSchema, 'This page, by name.'), {
					data: [funnelExample],
					nextCursor: null,
				}),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor } = c.req.valid('query');
			const after = readCursor(cursor, funnelCursor);
			return c.json(await listFunnels(c.var.db, c.var.caller.workspaceId, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createFunnel',
			summary: 'Create a funnel with its stages',
			description: 'Names are unique: a funnel in the workspace, a stage in its funnel (409 / 422).',
			...requires('crm:access'),
			request: { body: jsonBody(newFunnelSchema, { name: 'Sales', stages: ['New', 'Proposal', 'Negotiation'] }) },
			responses: {
				201: jsonResponse('The new funnel.', funnelSchema, funnelExample),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			return c.json(await createFunnel(c.env, c.var.db, workspaceId, c.req.valid('json'), actor), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getFunnel',
			summary: 'One funnel with its stages',
			description: 'The funnel, its stages in order.',
			...requires('crm:access'),
			request: { params: funnelParams },
			responses: { 200: jsonResponse('The funnel.', funnelSchema, funnelExample), ...errorResponses(403, 404) },
		}),
		async (c) => c.json(await getFunnel(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateFunnel',
			summary: 'Rename a funnel or reorder its stages',
			description: '`stageOrder` lists every stage id of the funnel once, in the new order.',
			...requires('crm:access'),
			request: { params: funnelParams, body: jsonBody(funnelChangesSchema, { name: 'Enterprise sales' }) },
			responses: {
				200: jsonResponse('The funnel as it now is.', funnelSchema, funnelExample),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const actor = operatorActor(operatorId);
			return c.json(await updateFunnel(c.env, c.var.db, workspaceId, id, c.req.valid('json'), actor), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteFunnel',
			summary: 'Delete a funnel without deals',
			description: 'A funnel with deals (open or closed) is a 409: move or delete them first.',
			...requires('crm:access'),
			request: { params: funnelParams },
			responses: { 204: { description: 'The funnel is deleted.' }, ...errorResponses(403, 404, 409) },
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			await deleteFunnel(c.env, c.var.db, workspaceId, c.req.valid('param').id, operatorActor(operatorId));
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/stages',
			operationId: 'addFunnelStage',
			summary: 'Add a stage to a funnel',
			description: 'At `position` (from 0; the end when left out); the stages after it move down. 30 stages at most.',
			...requires('crm:access'),
			request: { params: funnelParams, body: jsonBody(newStageSchema, { name: 'Demo', position: 1 }) },
			responses: {
				201: jsonResponse('The funnel with its new stage.', funnelSchema, funnelExample),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const actor = operatorActor(operatorId);
			return c.json(await addStage(c.env, c.var.db, workspaceId, id, c.req.valid('json'), actor), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}/stages/{stageId}',
			operationId: 'renameFunnelStage',
			summary: 'Rename a stage',
			description: 'Its deals keep it. A name its funnel has is a 409.',
			...requires('crm:access'),
			request: { params: stageParams, body: jsonBody(stageChangesSchema, { name: 'Qualified' }) },
			responses: {
				200: jsonResponse('The funnel as it now is.', funnelSchema, funnelExample),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id, stageId } = c.req.valid('param');
			const { name } = c.req.valid('json');
			const actor = operatorActor(operatorId);
			return c.json(await renameStage(c.env, c.var.db, workspaceId, id, stageId, name, actor), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}/stages/{stageId}',
			operationId: 'deleteFunnelStage',
			summary: 'Delete a stage, moving its deals to another',
			description:
				'A stage with deals needs `moveDealsTo` (another stage of the funnel), where they go, each announced with `deal.stage_changed`; without it, a 409. A funnel keeps at least one stage.',
			...requires('crm:access'),
			request: {
				params: stageParams,
				query: z.strictObject({
					moveDealsTo: z.string().min(1).max(64).optional().openapi({
						description: 'The stage its deals move to.',
						example: 'stg_01JD3Q8Z6Y2V7K1N4M5P6R7S8V',
					}),
				}),
			},
			responses: {
				200: jsonResponse('The funnel as it now is.', funnelSchema, funnelExample),
				...errorResponses(403, 404, 409, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id, stageId } = c.req.valid('param');
			const { moveDealsTo } = c.req.valid('query');
			const actor = operatorActor(operatorId);
			return c.json(await deleteStage(c.env, c.var.db, workspaceId, id, stageId, moveDealsTo, actor), 200);
		},
	);

export const dealsRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listDeals',
			summary: 'List deals, newest first',
			description: 'Filtered by funnel, stage, owner, contact or status, and paged with an opaque cursor.',
			...requires('crm:access'),
			request: { query: dealFiltersSchema.extend(pageQuery(25)) },
			responses: {
				200: jsonResponse('A page of deals.', pageSchema('DealPage', dealSchema), {
					data: [dealExample],
					nextCursor: null,
				}),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor, ...filters } = c.req.valid('query');
			const after = readCursor(cursor, newestFirstCursor);
			return c.json(await listDeals(c.var.db, c.var.caller.workspaceId, filters, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createDeal',
			summary: 'Create a deal',
			description:
				'In a funnel and stage named by id or by name (any case; the first stage when left out): an unknown or ambiguous name is a 422 naming it. The value, in minor units, defaults to the products’ total.',
			...requires('crm:access'),
			request: {
				body: jsonBody(newDealSchema, {
					funnel: 'Sales',
					stage: 'Proposal',
					name: 'Acme: 20 seats',
					currency: 'BRL',
					products: [{ name: 'Seat', quantity: 20, unitPrice: 12000 }],
					contactId: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
				}),
			},
			responses: {
				201: etagged(jsonResponse('The new deal.', dealSchema, dealExample)),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			return c.json(tagged(c, await createDeal(c.env, c.var.db, workspaceId, c.req.valid('json'), actor)), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getDeal',
			summary: 'One deal',
			description: 'The deal with its stage, value, products and custom values.',
			...requires('crm:access'),
			request: { params: dealParams },
			responses: { 200: etagged(jsonResponse('The deal.', dealSchema, dealExample)), ...errorResponses(403, 404) },
		}),
		async (c) => c.json(tagged(c, await getDeal(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id)), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateDeal',
			summary: 'Change a deal, move it to another stage, mark it won or lost',
			description:
				'A stage move (`stage`, and `funnel` for another funnel; by id or name) announces `deal.stage_changed` with the stage before and after; other fields `deal.updated`.',
			...requires('crm:access'),
			request: {
				params: dealParams,
				headers: ifMatchHeaders,
				body: jsonBody(dealChangesSchema, { stage: 'Negotiation' }),
			},
			responses: {
				200: etagged(jsonResponse('The deal as it now is.', dealSchema, dealExample)),
				...errorResponses(400, 403, 404, 409, 412, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const actor = operatorActor(operatorId);
			const deal = await updateDeal(c.env, c.var.db, workspaceId, id, c.req.valid('json'), actor, ifMatch(c));
			return c.json(tagged(c, deal), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteDeal',
			summary: 'Delete a deal',
			description: 'Its notes go with it; tasks about it stay, without it.',
			...requires('crm:access'),
			request: { params: dealParams, headers: ifMatchHeaders },
			responses: { 204: { description: 'The deal is deleted.' }, ...errorResponses(403, 404, 412) },
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			await deleteDeal(c.env, c.var.db, workspaceId, id, operatorActor(operatorId), ifMatch(c));
			return c.body(null, 204);
		},
	);
