import { createRoute, z } from '@hono/zod-openapi';
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
import { errorResponses, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { idParams, webhookExample, webhookParams } from './scenario-examples';

/** A scenario's inbound webhooks: listed, created, changed, deleted, their secret rotated (`/v3/scenarios/{id}/webhooks`). */
const webhookList = z
	.object({ data: z.array(webhookSchema).openapi({ description: 'Newest first (without secrets).' }) })
	.openapi('ScenarioWebhookList');

export const scenarioWebhooksRoutes = createRouter()
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
	);
