import { createRoute, z } from '@hono/zod-openapi';
import { RUN_STATUSES } from '../../db/schema';
import {
	getRun,
	listRuns,
	retryRun,
	runAccepted,
	runAcceptedSchema,
	runInputSchema,
	runSchema,
	runSummarySchema,
	startRun,
} from '../../domain/automation/scenarios/runs';
import {
	assertScenario,
	checkedScenario,
	createScenario,
	deleteScenario,
	getScenario,
	getScenarioVersion,
	listScenarios,
	listScenarioVersions,
	newScenarioSchema,
	publishScenario,
	scenarioChangesSchema,
	scenarioCursor,
	scenarioSchema,
	scenarioVersionSchema,
	updateScenario,
	workspaceTimeZone,
} from '../../domain/automation/scenarios/scenarios';
import {
	createWebhook,
	deleteWebhook,
	listWebhooks,
	newWebhookSchema,
	rotateWebhookSecret,
	updateWebhook,
	webhookChangesSchema,
	webhookSchema,
	webhookWithSecretSchema,
} from '../../domain/automation/scenarios/webhooks';
import type { scenarioDefinitionSchema } from '../../engines/scenario-definition';
import { simulateScenario } from '../../engines/scenario-simulation';
import { errorResponses, idempotencyHeaders, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { etagged, ifMatch, ifMatchHeaders, tagged } from '../../lib/etag';
import { hopsHeaderSchema, inboundHops } from '../../lib/parley-hops';
import { operatorActor } from '../../model/actor';
import { addVersionRoutes, versionedParams } from './versioned';

const exampleDefinition: z.input<typeof scenarioDefinitionSchema> = {
	start: 'contact',
	steps: [
		{
			id: 'contact',
			type: 'create_contact',
			name: '{{ name }}',
			email: '{{ email }}',
			variable: 'contact',
			next: 'conversation',
		},
		{
			id: 'conversation',
			type: 'create_conversation',
			contact: '{{ contact.id }}',
			message: 'Hi {{ name }}, your order {{ orderId }} has shipped!',
			variable: 'conversation',
		},
	],
};

const example: z.input<typeof scenarioSchema> = {
	id: 'scn_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'Order to conversation',
	enabled: true,
	trigger: { kind: 'webhook', events: [], condition: null, cron: null, nextFireAt: null },
	draft: exampleDefinition,
	publishedVersion: 1,
	lastVersion: 1,
	paused: null,
	createdAt: '2026-11-23T12:00:00.000Z',
	updatedAt: '2026-11-23T12:00:00.000Z',
};

const webhookExample: z.input<typeof webhookSchema> = {
	id: 'wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	scenarioId: example.id,
	name: 'Shop orders',
	auth: 'secret',
	enabled: true,
	url: 'https://parley.acme.example/v3/workflows/webhook/wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	createdAt: example.createdAt,
};

/** A run as a page lists it; one run's read adds its input, variables and log. */
const runSummaryExample: z.input<typeof runSummarySchema> = {
	id: 'run_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	scenarioId: example.id,
	version: 1,
	trigger: 'webhook',
	source: webhookExample.id,
	status: 'succeeded',
	error: null,
	retryable: false,
	createdAt: example.createdAt,
	finishedAt: '2026-11-23T12:00:00.210Z',
	hops: 0,
};

const runExample: z.input<typeof runSchema> = {
	...runSummaryExample,
	input: { orderId: '1042', name: 'Ada', email: 'ada@example.com' },
	variables: {
		orderId: '1042',
		name: 'Ada',
		email: 'ada@example.com',
		contact: { id: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' },
	},
	waitingAt: null,
	log: [
		{
			at: '2026-11-23T12:00:00.100Z',
			key: 'contact',
			stepId: 'contact',
			output: { id: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' },
		},
	],
};

const { idParams } = versionedParams('scenario', example.id);
const webhookParams = idParams.extend({
	webhookId: idParam('webhookId', webhookExample.id, 'The webhook id.'),
});
const runParams = idParams.extend({ runId: idParam('runId', runExample.id, 'The run id.') });
const scenarioPage = pageSchema('ScenarioPage', scenarioSchema, 'This page, by name.');
const runPage = pageSchema('ScenarioRunPage', runSummarySchema, 'This page, newest first.');
const webhookList = z
	.object({ data: z.array(webhookSchema).openapi({ description: 'Newest first (without secrets).' }) })
	.openapi('ScenarioWebhookList');

const simulatedResult = z
	.strictObject({
		ok: z.boolean().openapi({ description: 'Whether the step succeeds.' }),
		data: z.unknown().optional().openapi({ description: 'What it answers (a record found, an HTTP JSON body).' }),
		error: z.string().max(500).optional().openapi({ description: 'Why it fails.' }),
		retryable: z.boolean().optional().openapi({ description: 'A 5xx or timeout: an HTTP step tries again.' }),
		notFound: z
			.boolean()
			.optional()
			.openapi({ description: 'A Find that finds nothing; an update_deal without a deal.' }),
	})
	.openapi('ScenarioSimulatedResult');

const testBody = z
	.strictObject({
		scenarioId: z.string().max(64).optional().openapi({ description: 'A saved scenario to test (its draft).' }),
		version: z
			.int()
			.min(1)
			.optional()
			.openapi({ description: 'With `scenarioId`: this version instead of the draft.' }),
		definition: z
			.unknown()
			.optional()
			.openapi({ description: 'An unsaved `ScenarioDefinition` (instead of `scenarioId`).', type: 'object' }),
		input: runInputSchema.default({}).openapi({ description: 'The sample payload: the run’s starting variables.' }),
		results: z
			.record(z.string(), simulatedResult)
			.optional()
			.openapi({ description: 'How each action step turns out, by step id (done, with no data, when absent).' }),
	})
	.refine((b) => (b.scenarioId === undefined) !== (b.definition === undefined), {
		message: 'give either scenarioId or definition',
		path: ['definition'],
	})
	.refine((b) => b.version === undefined || b.scenarioId !== undefined, {
		message: 'version needs a scenarioId',
		path: ['version'],
	})
	.openapi('ScenarioTestRun');

const testResult = z
	.object({
		status: z.enum(['running', 'waiting', 'succeeded', 'failed']).openapi({ description: 'How the run ended.' }),
		error: z.string().nullable().openapi({ description: 'Why it failed, naming the step.' }),
		variables: z.record(z.string(), z.unknown()).openapi({ description: 'The variables at the end.' }),
		log: z
			.array(
				z.object({
					key: z.string().openapi({ description: 'The step and its loop iterations.' }),
					stepId: z.string().openapi({ description: 'The step id.' }),
					output: z.unknown().optional().openapi({ description: 'What it did.' }),
					error: z.string().optional().openapi({ description: 'Why it failed.' }),
				}),
			)
			.openapi({ description: 'Every step taken, in order.' }),
		actions: z
			.array(
				z.object({
					key: z.string().openapi({ description: 'The step and its loop iterations.' }),
					stepId: z.string().openapi({ description: 'The step id.' }),
					type: z.string().openapi({ description: 'The action.' }),
					attempt: z.number().int().openapi({ description: 'The try, from 0.' }),
					step: z.unknown().openapi({ description: 'The step with its templates rendered.' }),
				}),
			)
			.openapi({ description: 'The actions it would take, in order: none was performed.' }),
	})
	.openapi('ScenarioTestResult');

export const scenariosRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listScenarios',
			summary: 'List scenarios',
			description: "The workspace's scenarios by name, with their trigger, draft and published version.",
			...requires('admin'),
			request: { query: z.object(pageQuery(50)) },
			responses: {
				200: jsonResponse('A page of scenarios.', scenarioPage, { data: [example], nextCursor: null }),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { cursor, limit } = c.req.valid('query');
			const after = readCursor(cursor, scenarioCursor);
			return c.json(await listScenarios(c.var.db, c.var.caller.workspaceId, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createScenario',
			summary: 'Create a scenario',
			description:
				'Its settings and a draft definition, checked whole: every problem is named at its step and field. Publish it to run it.',
			...requires('admin'),
			request: {
				body: jsonBody(newScenarioSchema, {
					name: 'Order to conversation',
					trigger: { kind: 'webhook' },
					definition: exampleDefinition,
				}),
			},
			responses: {
				201: etagged(
					jsonResponse('The scenario, unpublished.', scenarioSchema, {
						...example,
						publishedVersion: null,
						lastVersion: 0,
					}),
				),
				...errorResponses(400, 403, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			return c.json(tagged(c, await createScenario(c.env, c.var.db, workspaceId, c.req.valid('json'), actor)), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/test',
			operationId: 'testScenario',
			summary: 'Test a scenario on a sample payload',
			description:
				'Runs a saved scenario (its draft or a version) or an unsaved definition on paper: no action is performed, each answered as `results` says (done by default). Returns the step log, the actions it would take rendered, and the variables. Changes nothing.',
			...requires('admin'),
			request: {
				body: jsonBody(testBody, {
					definition: exampleDefinition,
					input: { orderId: '1042', name: 'Ada', email: 'ada@example.com' },
					results: { contact: { ok: true, data: { id: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' } } },
				}),
			},
			responses: {
				200: jsonResponse('What the run would do.', testResult, {
					status: 'succeeded',
					error: null,
					variables: { orderId: '1042', contact: { id: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' } },
					log: [{ key: 'contact', stepId: 'contact', output: { id: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' } }],
					actions: [
						{ key: 'contact', stepId: 'contact', type: 'create_contact', attempt: 0, step: exampleDefinition.steps[0] },
					],
				}),
				...errorResponses(400, 403, 404, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const body = c.req.valid('json');
			const definition =
				body.scenarioId === undefined
					? checkedScenario(body.definition)
					: body.version === undefined
						? (await getScenario(c.var.db, workspaceId, body.scenarioId)).draft
						: (await getScenarioVersion(c.var.db, workspaceId, body.scenarioId, body.version)).definition;
			const result = simulateScenario(definition, {
				variables: body.input,
				...(body.results ? { results: body.results } : {}),
				timeZone: await workspaceTimeZone(c.var.db, workspaceId),
				now: Date.now(),
			});
			return c.json(result as z.infer<typeof testResult>, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getScenario',
			summary: 'One scenario',
			description: 'Its settings, draft and the version new runs start with.',
			...requires('admin'),
			request: { params: idParams },
			responses: {
				200: etagged(jsonResponse('The scenario.', scenarioSchema, example)),
				...errorResponses(403, 404),
			},
		}),
		async (c) => c.json(tagged(c, await getScenario(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id)), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateScenario',
			summary: "Change a scenario's settings or draft",
			description:
				'Name, enabled, trigger, or the draft definition (checked whole). The published version is not touched: publish to make a new draft live.',
			...requires('admin'),
			request: {
				params: idParams,
				headers: ifMatchHeaders,
				body: jsonBody(scenarioChangesSchema, { enabled: false }),
			},
			responses: {
				200: etagged(jsonResponse('The scenario as it now is.', scenarioSchema, example)),
				...errorResponses(400, 403, 404, 409, 412, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const actor = operatorActor(operatorId);
			const scenario = await updateScenario(c.env, c.var.db, workspaceId, id, c.req.valid('json'), actor, ifMatch(c));
			return c.json(tagged(c, scenario), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteScenario',
			summary: 'Delete a scenario, its versions, webhooks and runs',
			description: 'Its webhook URLs answer 404 from now on; a run still queued stops.',
			...requires('admin'),
			request: { params: idParams, headers: ifMatchHeaders },
			responses: { 204: { description: 'The scenario is gone.' }, ...errorResponses(403, 404, 412) },
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			await deleteScenario(c.env, c.var.db, workspaceId, id, operatorActor(operatorId), ifMatch(c));
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/webhooks',
			operationId: 'listScenarioWebhooks',
			summary: "A scenario's inbound webhooks",
			description: 'Each with the URL to POST to (secrets are shown only on creation and rotation).',
			...requires('admin'),
			request: { params: idParams },
			responses: {
				200: jsonResponse('The webhooks.', webhookList, { data: [webhookExample] }),
				...errorResponses(403, 404),
			},
		}),
		async (c) => {
			const origin = new URL(c.req.url).origin;
			return c.json(await listWebhooks(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id, origin), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/webhooks',
			operationId: 'createScenarioWebhook',
			summary: 'Create an inbound webhook for a scenario',
			description:
				'A URL your systems POST JSON to, to start a run. Its signing secret is in this answer only: keep it.',
			...requires('admin'),
			request: { params: idParams, body: jsonBody(newWebhookSchema, { name: 'Shop orders' }) },
			responses: {
				201: jsonResponse('The webhook, its URL and its secret.', webhookWithSecretSchema, {
					...webhookExample,
					secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
				}),
				...errorResponses(400, 403, 404, 413, 415, 422),
			},
		}),
		async (c) => {
			const origin = new URL(c.req.url).origin;
			const { id } = c.req.valid('param');
			return c.json(
				await createWebhook(c.env, c.var.db, c.var.caller.workspaceId, id, c.req.valid('json'), origin),
				201,
			);
		},
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}/webhooks/{webhookId}',
			operationId: 'updateScenarioWebhook',
			summary: 'Rename, enable, disable or open a webhook',
			description: '`auth: "open"` lets anyone call it without a token, signature or secret.',
			...requires('admin'),
			request: { params: webhookParams, body: jsonBody(webhookChangesSchema, { enabled: false }) },
			responses: {
				200: jsonResponse('The webhook as it now is.', webhookSchema, webhookExample),
				...errorResponses(400, 403, 404, 413, 415, 422),
			},
		}),
		async (c) => {
			const origin = new URL(c.req.url).origin;
			const { id, webhookId } = c.req.valid('param');
			const changes = c.req.valid('json');
			return c.json(await updateWebhook(c.var.db, c.var.caller.workspaceId, id, webhookId, changes, origin), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}/webhooks/{webhookId}',
			operationId: 'deleteScenarioWebhook',
			summary: 'Delete a webhook',
			description: 'Its URL answers 404 from now on.',
			...requires('admin'),
			request: { params: webhookParams },
			responses: { 204: { description: 'The webhook is gone.' }, ...errorResponses(403, 404) },
		}),
		async (c) => {
			const { id, webhookId } = c.req.valid('param');
			await deleteWebhook(c.var.db, c.var.caller.workspaceId, id, webhookId);
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/webhooks/{webhookId}/rotate-secret',
			operationId: 'rotateScenarioWebhookSecret',
			summary: "Replace a webhook's secret",
			description: 'The old secret stops working at once; the new one is in this answer only.',
			...requires('admin'),
			request: { params: webhookParams },
			responses: {
				200: jsonResponse('The webhook with its new secret.', webhookWithSecretSchema, {
					...webhookExample,
					secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
				}),
				...errorResponses(403, 404),
			},
		}),
		async (c) => {
			const origin = new URL(c.req.url).origin;
			const { id, webhookId } = c.req.valid('param');
			return c.json(await rotateWebhookSecret(c.env, c.var.db, c.var.caller.workspaceId, id, webhookId, origin), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/runs',
			operationId: 'startScenarioRun',
			summary: 'Start a run with input variables',
			description:
				'Runs the published version with the body as its variables, as a webhook call would. With an `Idempotency-Key`, a retry answers the first run.',
			...requires('admin'),
			request: {
				params: idParams,
				headers: idempotencyHeaders.extend({ 'parley-hops': hopsHeaderSchema }),
				body: jsonBody(runInputSchema, { orderId: '1042', name: 'Ada', email: 'ada@example.com' }),
			},
			responses: {
				202: jsonResponse('The run was recorded and queued.', runAcceptedSchema, {
					runId: runExample.id,
					scenarioId: example.id,
					status: 'queued',
					createdAt: example.createdAt,
				}),
				...errorResponses(400, 403, 404, 409, 413, 415, 422, 503, 508),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const key = c.req.valid('header')['idempotency-key'];
			// A scenario's HTTP step may call this with a token: a loop through it is bounded as a webhook's is.
			const hops = inboundHops(c.req.raw.headers);
			const { run, replayed } = await startRun(c.env, c.var.db, c.env.SCENARIO_RUNS, {
				workspaceId: c.var.caller.workspaceId,
				scenarioId: id,
				trigger: 'api',
				source: null,
				dedupeKey: key === undefined ? null : `api:${key}`,
				input: c.req.valid('json'),
				hops,
			});
			if (replayed) c.header('Idempotent-Replayed', 'true');
			return c.json(runAccepted(run), 202);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/resume',
			operationId: 'resumeScenario',
			summary: 'Resume a scenario flood protection paused',
			description:
				'Enables it again (as `PATCH {"enabled": true}` does) and clears `paused`; flood protection counts its runs from now. A scenario that is enabled already is answered as it is.',
			...requires('admin'),
			request: { params: idParams },
			responses: {
				200: etagged(jsonResponse('The scenario, enabled.', scenarioSchema, example)),
				...errorResponses(403, 404, 409),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const resumed = await updateScenario(
				c.env,
				c.var.db,
				workspaceId,
				id,
				{ enabled: true },
				operatorActor(operatorId),
			);
			// Its version, as every write answers it: an editor open on it keeps saving over the resume.
			return c.json(tagged(c, resumed), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/runs',
			operationId: 'listScenarioRuns',
			summary: "A scenario's runs",
			description: 'Newest first, with status, trigger and error; `status` keeps one status (`failed`…).',
			...requires('admin'),
			request: {
				params: idParams,
				query: z.object({
					...pageQuery(50),
					status: z.enum(RUN_STATUSES).optional().openapi({ description: 'Only runs with this status.' }),
				}),
			},
			responses: {
				200: jsonResponse('A page of runs.', runPage, { data: [runSummaryExample], nextCursor: null }),
				...errorResponses(403, 404, 422),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const { cursor, limit, status } = c.req.valid('query');
			const { workspaceId } = c.var.caller;
			await assertScenario(c.var.db, workspaceId, id);
			const after = readCursor(cursor, newestFirstCursor);
			return c.json(await listRuns(c.var.db, workspaceId, id, status, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/runs/{runId}',
			operationId: 'getScenarioRun',
			summary: 'One run, with its step log and variables',
			description: 'Its status, trigger, input, variables, every step it took, and why it failed.',
			...requires('admin'),
			request: { params: runParams },
			responses: { 200: jsonResponse('The run.', runSchema, runExample), ...errorResponses(403, 404) },
		}),
		async (c) => {
			const { id, runId } = c.req.valid('param');
			return c.json(await getRun(c.var.db, c.var.caller.workspaceId, id, runId), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/runs/{runId}/retry',
			operationId: 'retryScenarioRun',
			summary: 'Retry a failed run from its failed step',
			description:
				'The failed step is tried again with the variables it had; the steps before it are not repeated. 409 for a run that did not fail at an action.',
			...requires('admin'),
			request: { params: runParams },
			responses: {
				200: jsonResponse('The run, queued again.', runSchema, { ...runExample, status: 'waiting', finishedAt: null }),
				...errorResponses(403, 404, 409, 503),
			},
		}),
		async (c) => {
			const { id, runId } = c.req.valid('param');
			return c.json(await retryRun(c.var.db, c.env.SCENARIO_RUNS, c.var.caller.workspaceId, id, runId), 200);
		},
	);

addVersionRoutes(scenariosRoutes, {
	noun: 'scenario',
	idExample: example.id,
	schema: scenarioSchema,
	example,
	versionSchema: scenarioVersionSchema,
	exampleDefinition,
	publish: publishScenario,
	listVersions: listScenarioVersions,
	getVersion: getScenarioVersion,
});
