import { createRoute, z } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { requirePermission } from '../auth/middleware';
import {
	createInboundWebhook,
	enqueueWebhookRun,
	inboundWebhookSchema,
	listInboundWebhooks,
	runAccepted,
	webhookInputSchema,
	workflowRunAcceptedSchema,
} from '../domain/workflow-runs';
import { PayloadTooLarge } from '../lib/errors';
import { bearerSecurity, errorResponses, idempotencyHeaders, idParam, jsonBody, jsonResponse } from '../lib/openapi';
import { createRouter } from '../lib/router';

export const WEBHOOK_BODY_LIMIT = 256 * 1024;

const webhookBodyLimit = bodyLimit({
	maxSize: WEBHOOK_BODY_LIMIT,
	onError: () => {
		throw new PayloadTooLarge('A webhook body may be at most 256 KiB.');
	},
});

export const workflows = createRouter()
	.openapi(
		createRoute({
			method: 'post',
			path: '/webhook/{webhook_id}',
			summary: "Start a run of the webhook's scenario; the JSON body becomes its variables",
			description:
				'Any token of the workspace may call it: the webhook id names the scenario, and the run acts as the workspace, not as the operator.',
			security: bearerSecurity,
			middleware: [webhookBodyLimit] as const,
			request: {
				params: z.object({ webhook_id: idParam('webhook_id', 'wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T') }),
				headers: idempotencyHeaders,
				body: jsonBody(webhookInputSchema),
			},
			responses: {
				202: jsonResponse('The run was recorded and queued.', workflowRunAcceptedSchema),
				...errorResponses(400, 404, 409, 413, 415, 422, 503),
			},
		}),
		async (c) => {
			const { run, replayed } = await enqueueWebhookRun(
				c.var.db,
				c.env.WORKFLOW_RUNS,
				c.var.caller.workspaceId,
				c.req.valid('param').webhook_id,
				c.req.valid('json'),
				c.req.valid('header')['idempotency-key'] ?? null,
			);
			if (replayed) c.header('Idempotent-Replayed', 'true');
			return c.json(runAccepted(run), 202);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/webhooks',
			summary: 'Create an inbound webhook',
			security: bearerSecurity,
			middleware: [requirePermission('admin')] as const,
			request: {
				body: jsonBody(z.strictObject({ name: z.string().trim().min(1).max(120) }).openapi('NewInboundWebhook')),
			},
			responses: {
				201: jsonResponse('The webhook and the URL to call.', inboundWebhookSchema),
				...errorResponses(400, 403, 413, 415, 422),
			},
		}),
		async (c) => {
			const origin = new URL(c.req.url).origin;
			return c.json(
				await createInboundWebhook(c.var.db, c.var.caller.workspaceId, c.req.valid('json').name, origin),
				201,
			);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/webhooks',
			summary: 'List inbound webhooks',
			security: bearerSecurity,
			middleware: [requirePermission('admin')] as const,
			responses: {
				200: jsonResponse('The workspace webhooks.', z.object({ data: z.array(inboundWebhookSchema) })),
				...errorResponses(403),
			},
		}),
		async (c) => {
			const origin = new URL(c.req.url).origin;
			return c.json({ data: await listInboundWebhooks(c.var.db, c.var.caller.workspaceId, origin) }, 200);
		},
	);
