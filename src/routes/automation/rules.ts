import { createRoute, z } from '@hono/zod-openapi';
import {
	createRule,
	deleteRule,
	executionFiltersSchema,
	getRule,
	listExecutions,
	listRules,
	newRuleSchema,
	ruleChangesSchema,
	ruleExecutionSchema,
	ruleSchema,
	updateRule,
} from '../../domain/automation/rules/rules';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { etagged, ifMatch, ifMatchHeaders, tagged } from '../../lib/etag';
import { operatorActor } from '../../model/actor';

const example: z.input<typeof ruleSchema> = {
	id: 'rule_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'After-hours reply',
	enabled: true,
	priority: 0,
	trigger: { kind: 'message_outside_hours' },
	condition: { fact: 'conversation.channel', operator: 'eq', value: 'widget' },
	actions: [
		{ type: 'send_message', text: 'Thanks {{ contact.name }}! We are back at 9:00 and will answer you first thing.' },
		{ type: 'apply_tag', tag: 'after-hours', remove: false, target: 'conversation' },
	],
	createdAt: '2026-11-23T12:00:00.000Z',
	updatedAt: '2026-11-23T12:00:00.000Z',
};

const executionExample: z.input<typeof ruleExecutionSchema> = {
	id: 'rex_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	ruleId: example.id,
	eventId: 'evt_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	eventType: 'message.created',
	conversationId: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	contactId: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	status: 'succeeded',
	reason: null,
	actions: [
		{ type: 'send_message', ok: true, data: { id: 'msg_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', seq: 2 } },
		{ type: 'apply_tag', ok: true, data: { tag: 'after-hours', applied: 'conversation' } },
	],
	depth: 1,
	createdAt: '2026-11-23T22:14:03.120Z',
	finishedAt: '2026-11-23T22:14:03.410Z',
};

const idParams = z.object({ id: idParam('id', example.id, 'The rule id.') });
const ruleList = z
	.object({ data: z.array(ruleSchema).openapi({ description: 'In the order they run: highest priority first.' }) })
	.openapi('AutomationRuleList');
const executionPage = pageSchema('AutomationRuleExecutionPage', ruleExecutionSchema, 'This page, newest first.');

export const automationRulesRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listAutomationRules',
			summary: 'List automation rules',
			description: 'Every rule of the workspace (100 at most), in the order they run on an event.',
			...requires('admin'),
			responses: { 200: jsonResponse('The rules.', ruleList, { data: [example] }), ...errorResponses(403) },
		}),
		async (c) => c.json({ data: await listRules(c.var.db, c.var.caller.workspaceId) }, 200),
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createAutomationRule',
			summary: 'Create an automation rule',
			description:
				'A trigger, an optional condition and the actions to run, in order. Each problem names its field (`actions.1.botId: no bot …`).',
			...requires('admin'),
			request: {
				body: jsonBody(newRuleSchema, {
					name: example.name,
					trigger: example.trigger,
					actions: [{ type: 'send_message', text: 'We are back at 9:00.' }],
				}),
			},
			responses: {
				201: etagged(jsonResponse('The rule.', ruleSchema, example)),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const rule = await createRule(c.env, c.var.db, workspaceId, c.req.valid('json'), operatorActor(operatorId));
			return c.json(tagged(c, rule), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/executions',
			operationId: 'listAutomationRuleExecutions',
			summary: 'Why rules fired or did not',
			description:
				'Each event a rule’s trigger met: fired (each action’s outcome) or skipped (and why: the condition, business hours, its own change, a chain too deep). Kept 30 days; newest first.',
			...requires('admin'),
			request: { query: z.object({ ...pageQuery(50), ...executionFiltersSchema.shape }) },
			responses: {
				200: jsonResponse('A page of executions.', executionPage, { data: [executionExample], nextCursor: null }),
				...errorResponses(403, 404, 422),
			},
		}),
		async (c) => {
			const { cursor, limit, ...filters } = c.req.valid('query');
			const after = readCursor(cursor, newestFirstCursor);
			return c.json(await listExecutions(c.var.db, c.var.caller.workspaceId, filters, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getAutomationRule',
			summary: 'One automation rule',
			...requires('admin'),
			request: { params: idParams },
			responses: { 200: etagged(jsonResponse('The rule.', ruleSchema, example)), ...errorResponses(403, 404) },
		}),
		async (c) => c.json(tagged(c, await getRule(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id)), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateAutomationRule',
			summary: 'Change a rule, enable or disable it',
			description: 'Events from now on meet the rule as it now is; executions under way finish as they began.',
			...requires('admin'),
			request: { params: idParams, headers: ifMatchHeaders, body: jsonBody(ruleChangesSchema, { enabled: false }) },
			responses: {
				200: etagged(jsonResponse('The rule as it now is.', ruleSchema, { ...example, enabled: false })),
				...errorResponses(400, 403, 404, 409, 412, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const actor = operatorActor(operatorId);
			const rule = await updateRule(c.env, c.var.db, workspaceId, id, c.req.valid('json'), actor, ifMatch(c));
			return c.json(tagged(c, rule), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteAutomationRule',
			summary: 'Delete a rule',
			description: 'With its executions’ records.',
			...requires('admin'),
			request: { params: idParams, headers: ifMatchHeaders },
			responses: { 204: { description: 'The rule is gone.' }, ...errorResponses(403, 404, 412) },
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			await deleteRule(c.env, c.var.db, workspaceId, id, operatorActor(operatorId), ifMatch(c));
			return c.body(null, 204);
		},
	);
