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
import { assertScenario, scenarioSchema, updateScenario } from '../../domain/automation/scenarios/scenarios';
import { errorResponses, idempotencyHeaders, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { etagged, tagged } from '../../lib/etag';
import { hopsHeaderSchema, inboundHops } from '../../lib/parley-hops';
import { operatorActor } from '../../model/actor';
import { example, idParams, runExample, runParams, runSummaryExample } from './scenario-examples';

/** Running a scenario by hand, resuming a paused one, and its runs: listed, read, retried. */
const runPage = pageSchema('ScenarioRunPage', runSummarySchema, 'This page, newest first.');

export const scenarioRunsRoutes = createRouter()
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
