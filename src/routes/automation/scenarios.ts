import { createRoute, z } from '@hono/zod-openapi';
import { runInputSchema } from '../../domain/automation/scenarios/runs';
import {
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
} from '../../domain/automation/scenarios/scenarios';
import { workspaceTimeZone } from '../../domain/widget/settings';
import { scenarioDefinitionInput } from '../../engines/scenario-definition';
import { simulateScenario } from '../../engines/scenario-simulation';
import { errorResponses, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { etagged, ifMatch, ifMatchHeaders, tagged } from '../../lib/etag';
import { savedOrUnsaved } from '../../lib/schema-rules';
import { operatorActor } from '../../model/actor';
import { example, exampleDefinition, idParams } from './scenario-examples';
import { scenarioRunsRoutes } from './scenario-runs';
import { scenarioWebhooksRoutes } from './scenario-webhooks';
import { addVersionRoutes } from './versioned';

const scenarioPage = pageSchema('ScenarioPage', scenarioSchema, 'This page, by name.');

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
			.max(Number.MAX_SAFE_INTEGER)
			.optional()
			.openapi({ description: 'With `scenarioId`: this version instead of the draft.' }),
		definition: scenarioDefinitionInput
			.optional()
			.openapi({ description: 'An unsaved `ScenarioDefinition` (instead of `scenarioId`).' }),
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
	// The refinements above are invisible to the generator: the document states them for clients that validate.
	.openapi('ScenarioTestRun', savedOrUnsaved('scenarioId', 'scenario'));

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

/** Scenarios themselves: listed, created, tested, read, changed, deleted. */
const scenarioDocuments = createRouter()
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
	);

// One router for /v3/scenarios, its parts in the order the API document lists them.
export const scenariosRoutes = createRouter()
	.route('/', scenarioDocuments)
	.route('/', scenarioWebhooksRoutes)
	.route('/', scenarioRunsRoutes);

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
