import { createRoute, z } from '@hono/zod-openapi';
import {
	assignmentRuleChangesSchema,
	assignmentRuleSchema,
	createAssignmentRule,
	deleteAssignmentRule,
	getAssignmentRule,
	listAssignmentRules,
	newAssignmentRuleSchema,
	updateAssignmentRule,
} from '../../domain/assignment/rules';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { etagged, ifMatch, ifMatchHeaders, tagged } from '../../lib/etag';
import { iso } from '../../lib/ids';
import { operatorActor } from '../../model/actor';

const example: z.input<typeof assignmentRuleSchema> = {
	id: 'asr_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'Everyone in turn',
	enabled: true,
	priority: 0,
	condition: null,
	policy: {
		strategy: 'round_robin',
		groupId: null,
		onlyOnline: true,
		respectStatus: true,
		considerBusinessHours: false,
	},
	createdAt: '2026-11-23T12:00:00.000Z',
	updatedAt: '2026-11-23T12:00:00.000Z',
};

const idParams = z.object({ id: idParam('id', example.id, 'The assignment rule id.') });
const ruleList = z
	.object({ data: z.array(assignmentRuleSchema).openapi({ description: 'In the order they are tried.' }) })
	.openapi('AssignmentRuleList');
const queueSchema = z
	.object({
		data: z
			.array(
				z.object({
					conversationId: z.string().openapi({ description: 'The conversation waiting.' }),
					since: z.string().openapi({ description: 'Since when (ISO 8601).' }),
				}),
			)
			.openapi({ description: 'Longest waiting first.' }),
	})
	.openapi('AssignmentQueue');

export const assignmentRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/rules',
			operationId: 'listAssignmentRules',
			summary: 'List auto-assignment rules',
			description: 'With none enabled, nothing is assigned automatically.',
			...requires('admin'),
			responses: { 200: jsonResponse('The rules.', ruleList, { data: [example] }), ...errorResponses(403) },
		}),
		async (c) => c.json({ data: await listAssignmentRules(c.var.db, c.var.caller.workspaceId) }, 200),
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/rules',
			operationId: 'createAssignmentRule',
			summary: 'Create an auto-assignment rule',
			description:
				'A strategy and its options for the conversations its condition holds for; the first matching rule (highest priority first) routes each conversation waiting for a person.',
			...requires('admin'),
			request: { body: jsonBody(newAssignmentRuleSchema, { name: example.name, policy: { strategy: 'round_robin' } }) },
			responses: {
				201: etagged(jsonResponse('The rule.', assignmentRuleSchema, example)),
				...errorResponses(400, 403, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			const rule = await createAssignmentRule(c.env, c.var.db, workspaceId, c.req.valid('json'), actor);
			return c.json(tagged(c, rule), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/rules/{id}',
			operationId: 'getAssignmentRule',
			summary: 'One auto-assignment rule',
			...requires('admin'),
			request: { params: idParams },
			responses: {
				200: etagged(jsonResponse('The rule.', assignmentRuleSchema, example)),
				...errorResponses(403, 404),
			},
		}),
		async (c) =>
			c.json(tagged(c, await getAssignmentRule(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id)), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/rules/{id}',
			operationId: 'updateAssignmentRule',
			summary: 'Change an auto-assignment rule',
			...requires('admin'),
			request: {
				params: idParams,
				headers: ifMatchHeaders,
				body: jsonBody(assignmentRuleChangesSchema, { priority: 10 }),
			},
			responses: {
				200: etagged(jsonResponse('The rule as it now is.', assignmentRuleSchema, { ...example, priority: 10 })),
				...errorResponses(400, 403, 404, 409, 412, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const actor = operatorActor(operatorId);
			const changes = c.req.valid('json');
			return c.json(
				tagged(c, await updateAssignmentRule(c.env, c.var.db, workspaceId, id, changes, actor, ifMatch(c))),
				200,
			);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/rules/{id}',
			operationId: 'deleteAssignmentRule',
			summary: 'Delete an auto-assignment rule',
			...requires('admin'),
			request: { params: idParams, headers: ifMatchHeaders },
			responses: { 204: { description: 'The rule is gone.' }, ...errorResponses(403, 404, 412) },
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			await deleteAssignmentRule(c.env, c.var.db, workspaceId, id, operatorActor(operatorId), ifMatch(c));
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/queue',
			operationId: 'getAssignmentQueue',
			summary: 'Conversations waiting for an operator',
			description:
				'Those auto-assignment could not give anyone yet (nobody online, everyone at capacity, outside business hours), longest waiting first: each goes to the first operator who can take it.',
			...requires('conversations:read'),
			responses: {
				200: jsonResponse('The queue.', queueSchema, {
					data: [{ conversationId: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', since: '2026-11-23T12:00:00.000Z' }],
				}),
				...errorResponses(403),
			},
		}),
		async (c) => {
			const queued = await c.env.WORKSPACE_HUB.getByName(c.var.caller.workspaceId).assignmentQueue();
			return c.json({ data: queued.map((q) => ({ conversationId: q.conversationId, since: iso(q.since) })) }, 200);
		},
	);
