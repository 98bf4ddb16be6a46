import { createRoute, z } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
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
import {
	anyToken,
	errorResponses,
	idempotencyHeaders,
	idParam,
	jsonBody,
	jsonResponse,
	requires,
} from '../lib/openapi';
import { createRouter } from '../lib/router';

export const WEBHOOK_BODY_LIMIT = 256 * 1024;

const webhookExample = {
	id: 'wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'Order shipped',
	scenarioId: null,
	enabled: true,
	url: 'https://parley.acme.example/v3/workflows/webhook/wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	createdAt: '2026-11-21T12:00:00.000Z',
};

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
			operationId: 'startWorkflowRun',
			summary: "Start a run of the webhook's scenario; the JSON body becomes its variables",
			description:
				'Any token of the workspace may call it: the webhook id names the scenario, and the run acts as the workspace, not as the operator. With an `Idempotency-Key`, a retry with the same body returns the first run.',
			...anyToken,
			middleware: [webhookBodyLimit] as const,
			request: {
				params: z.object({
					webhook_id: idParam('webhook_id', 'wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The inbound webhook id.'),
				}),
				headers: idempotencyHeaders,
				body: jsonBody(
					webhookInputSchema.openapi({ description: 'Any JSON object, up to 256 KiB and 32 levels deep.' }),
					{
						orderId: '1042',
						email: 'ada@example.com',
					},
				),
			},
			responses: {
				202: jsonResponse('The run was recorded and queued.', workflowRunAcceptedSchema, {
					runId: 'run_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					webhookId: 'wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					status: 'queued',
					createdAt: '2026-11-21T12:00:00.000Z',
				}),
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
			operationId: 'createInboundWebhook',
			summary: 'Create an inbound webhook',
			description: 'A URL your systems POST JSON to (with a Token V3) to start a scenario run.',
			...requires('admin'),
			request: {
				body: jsonBody(
					z
						.strictObject({ name: z.string().trim().min(1).max(120).openapi({ description: 'A name for people.' }) })
						.openapi('NewInboundWebhook'),
					{ name: 'Order shipped' },
				),
			},
			responses: {
				201: jsonResponse('The webhook and the URL to call.', inboundWebhookSchema, webhookExample),
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
			operationId: 'listInboundWebhooks',
			summary: 'List inbound webhooks',
			description: "The workspace's inbound webhooks with the URL of each.",
			...requires('admin'),
			responses: {
				200: jsonResponse(
					'The workspace webhooks.',
					z
						.object({ data: z.array(inboundWebhookSchema).openapi({ description: 'Every webhook.' }) })
						.openapi('InboundWebhookList'),
					{ data: [webhookExample] },
				),
				...errorResponses(403),
			},
		}),
		async (c) => {
			const origin = new URL(c.req.url).origin;
			return c.json({ data: await listInboundWebhooks(c.var.db, c.var.caller.workspaceId, origin) }, 200);
		},
	);
