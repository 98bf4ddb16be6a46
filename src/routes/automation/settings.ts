import { createRoute } from '@hono/zod-openapi';
import {
	automationSettingsChangesSchema,
	automationSettingsSchema,
	DEFAULT_SCENARIO_RUNS_PER_MINUTE,
	getAutomationSettings,
	updateAutomationSettings,
} from '../../domain/automation/settings';
import { errorResponses, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';

const example = { scenarioRunsPerMinute: DEFAULT_SCENARIO_RUNS_PER_MINUTE };

/** The workspace's automation settings (src/domain/automation/settings.ts). */
export const automationSettingsRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'getAutomationSettings',
			summary: "The workspace's automation settings",
			description: 'Flood protection: how many runs a minute a scenario may start before it is paused.',
			...requires('admin'),
			responses: {
				200: jsonResponse('The settings (defaults where never set).', automationSettingsSchema, example),
				...errorResponses(403),
			},
		}),
		async (c) => c.json(await getAutomationSettings(c.var.db, c.var.caller.workspaceId), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/',
			operationId: 'updateAutomationSettings',
			summary: "Change the workspace's automation settings",
			description:
				'A scenario that starts more runs than `scenarioRunsPerMinute` in any minute is paused (its webhooks answer 409, its events and schedule start nothing), `scenario.paused` is sent, and an admin resumes it with `POST /v3/scenarios/{id}/resume`.',
			...requires('admin'),
			request: { body: jsonBody(automationSettingsChangesSchema, { scenarioRunsPerMinute: 300 }) },
			responses: {
				200: jsonResponse('The settings as they now are.', automationSettingsSchema, { scenarioRunsPerMinute: 300 }),
				...errorResponses(400, 403, 413, 415, 422),
			},
		}),
		async (c) => c.json(await updateAutomationSettings(c.var.db, c.var.caller.workspaceId, c.req.valid('json')), 200),
	);
