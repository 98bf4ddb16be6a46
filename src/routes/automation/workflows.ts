import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../../app-env';
import { operatorAuth } from '../../auth/middleware';
import { runAccepted, runAcceptedSchema, runInputSchema, startRun } from '../../domain/automation/scenarios/runs';
import { type CallerProof, enabledWebhook, proveCall, SECRET_HEADER } from '../../domain/automation/scenarios/webhooks';
import { clientIp, enforceFloodLimit } from '../../domain/widget/visitor-limits';
import { errorResponses, idempotencyHeaders, idParam, jsonBody, jsonResponse } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { NotFound, PayloadTooLarge } from '../../lib/errors';
import { hopsHeaderSchema, inboundHops } from '../../lib/parley-hops';

export const WEBHOOK_BODY_LIMIT = 256 * 1024;

const webhookBodyLimit = bodyLimit({
	maxSize: WEBHOOK_BODY_LIMIT,
	onError: () => {
		throw new PayloadTooLarge('A webhook body may be at most 256 KiB.');
	},
});

type WebhookEnv = AppEnv & {
	Variables: AppEnv['Variables'] & {
		webhook: Awaited<ReturnType<typeof enabledWebhook>>;
		proof: CallerProof | 'token';
		hops: number;
	};
};

/**
 * Who may start the webhook's scenario (src/domain/automation/scenarios/webhooks.ts): a Token V3 of the owning workspace,
 * checked and counted as every /v3 call is; else the webhook's signature, secret, or openness.
 */
const webhookAuth = createMiddleware<WebhookEnv>(async function webhookAuth(c, next) {
	const id = c.req.param('webhook_id') ?? '';
	const withToken = c.req.header('Authorization') !== undefined;
	// A call without a token is counted before any lookup: made-up ids cost the caller, not D1.
	if (!withToken) await enforceFloodLimit(c.env, `webhook:${id.slice(0, 64)}`, clientIp(c.req.raw.headers), 'other');
	// Before any read: a loop's last round costs nothing and records nothing.
	c.set('hops', inboundHops(c.req.raw.headers));
	const webhook = await enabledWebhook(c.env, c.var.db, id);
	c.set('webhook', webhook);
	if (withToken) {
		c.set('proof', 'token');
		return operatorAuth(c as never, async () => {
			// Another workspace's token learns nothing about this webhook.
			if (c.var.caller.workspaceId !== webhook.workspaceId) {
				throw new NotFound(`Webhook ${webhook.id} not found (or disabled).`);
			}
			await next();
		});
	}
	c.set('proof', await proveCall(c.env, webhook, c.req.raw.headers, await c.req.text()));
	await next();
});

const signatureHeaders = idempotencyHeaders.extend({
	'webhook-id': z
		.string()
		.max(255)
		.optional()
		.openapi({ description: 'Standard Webhooks: the message id; a retry with it answers the first run.' }),
	'webhook-timestamp': z
		.string()
		.max(20)
		.optional()
		.openapi({ description: 'Standard Webhooks: seconds since the epoch; refused when 5 minutes off.' }),
	'webhook-signature': z
		.string()
		.max(2000)
		.optional()
		.openapi({ description: 'Standard Webhooks: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`.' }),
	'x-webhook-secret': z
		.string()
		.max(200)
		.optional()
		.openapi({ description: `The webhook's secret, for a sender that cannot sign (${SECRET_HEADER}).` }),
	'parley-hops': hopsHeaderSchema,
});

/** The inbound path: mounted before the API's own bearer check, which it runs itself when a token is sent. */
export const workflows = createRouter().openapi(
	createRoute({
		method: 'post',
		path: '/webhook/{webhook_id}',
		operationId: 'startWorkflowRun',
		summary: "Start a run of the webhook's scenario; the JSON body becomes its variables",
		description:
			"Authenticate with a Token V3 of the workspace, or with the webhook's own secret: a Standard Webhooks signature (`webhook-id`, `webhook-timestamp`, `webhook-signature`) or the secret in `X-Webhook-Secret`. An `open` webhook takes anonymous calls. A retried `webhook-id` (or `Idempotency-Key`) answers the first run; the same id with another body is 422. A call that is the 5th Parley made to itself in a row (`Parley-Hops`) is refused with 508; a scenario paused by flood protection answers 409.",
		security: [{ TokenV3: [] }, { WebhookSignature: [] }, { WebhookSecret: [] }, {}] as Array<Record<string, string[]>>,
		'x-required-permission': 'none',
		middleware: [webhookBodyLimit, webhookAuth as MiddlewareHandler] as const,
		request: {
			params: z.object({
				webhook_id: idParam('webhook_id', 'wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The inbound webhook id.'),
			}),
			headers: signatureHeaders,
			body: jsonBody(runInputSchema, { orderId: '1042', email: 'ada@example.com', name: 'Ada' }),
		},
		responses: {
			202: jsonResponse('The run was recorded and queued.', runAcceptedSchema, {
				runId: 'run_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
				scenarioId: 'scn_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
				status: 'queued',
				createdAt: '2026-11-23T12:00:00.000Z',
			}),
			...errorResponses(400, 404, 409, 413, 415, 422, 503, 508),
		},
	}),
	async (c) => {
		const { webhook, hops } = (c as unknown as { var: WebhookEnv['Variables'] }).var;
		const headers = c.req.valid('header');
		const senderId = headers['webhook-id'] ?? headers['idempotency-key'];
		const { run, replayed } = await startRun(c.env, c.var.db, c.env.SCENARIO_RUNS, {
			workspaceId: webhook.workspaceId,
			scenarioId: webhook.scenarioId,
			trigger: 'webhook',
			source: webhook.id,
			dedupeKey: senderId === undefined ? null : `${webhook.id}:${senderId}`,
			input: c.req.valid('json'),
			hops,
		});
		if (replayed) c.header('Idempotent-Replayed', 'true');
		return c.json(runAccepted(run), 202);
	},
);
