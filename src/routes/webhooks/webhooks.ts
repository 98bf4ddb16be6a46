import { createRoute, z } from '@hono/zod-openapi';
import { DELIVERY_STATUSES } from '../../db/schema';
import {
	deliverySchema,
	deliverySummarySchema,
	getDelivery,
	listDeliveries,
	resendDelivery,
} from '../../domain/webhooks/delivery-log';
import {
	createEndpoint,
	deleteEndpoint,
	endpointChangesSchema,
	endpointSchema,
	endpointWithSecretSchema,
	getEndpoint,
	listEndpoints,
	newEndpointSchema,
	rotateEndpointSecret,
	rotationSchema,
	updateEndpoint,
} from '../../domain/webhooks/endpoints';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';

const example: z.input<typeof endpointSchema> = {
	id: 'whe_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	url: 'https://hooks.acme.example/parley',
	description: 'CRM sync',
	events: ['conversation.created', 'scenario.run_ended'],
	enabled: true,
	disabledReason: null,
	failingSince: null,
	secrets: [{ version: 1, createdAt: '2026-11-23T12:00:00.000Z', expiresAt: null }],
	createdAt: '2026-11-23T12:00:00.000Z',
	updatedAt: '2026-11-23T12:00:00.000Z',
};
const withSecret = { ...example, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };

const deliveryExample: z.input<typeof deliverySummarySchema> = {
	id: 'dlv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	endpointId: example.id,
	eventId: 'evt_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	eventType: 'conversation.created',
	status: 'succeeded',
	attempts: 1,
	nextAttemptAt: null,
	createdAt: example.createdAt,
};

const idParams = z.object({ id: idParam('id', example.id, 'The endpoint id.') });
const deliveryParams = idParams.extend({
	deliveryId: idParam('deliveryId', deliveryExample.id, 'The delivery id.'),
});
const endpointList = z
	.object({ data: z.array(endpointSchema).openapi({ description: 'Newest first.' }) })
	.openapi('WebhookEndpointList');
const deliveryPage = pageSchema('WebhookDeliveryPage', deliverySummarySchema, 'This page, newest first.');
const deliveryDetail: z.input<typeof deliverySchema> = {
	...deliveryExample,
	body: '{"type":"conversation.created","timestamp":"2026-11-23T12:00:00.000Z","data":{"id":"evt_01JD3Q8Z6Y2V7K1N4M5P6R7S8T"}}',
	attemptLog: [{ attempt: 1, at: example.createdAt, statusCode: 200, error: null, response: 'ok', durationMs: 84 }],
};

export const webhooksRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listWebhookEndpoints',
			summary: 'List outbound webhook endpoints',
			description: 'The URLs the workspace’s events are sent to, with the types each receives.',
			...requires('admin'),
			responses: {
				200: jsonResponse('The endpoints.', endpointList, { data: [example] }),
				...errorResponses(403),
			},
		}),
		async (c) => c.json(await listEndpoints(c.var.db, c.var.caller.workspaceId), 200),
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createWebhookEndpoint',
			summary: 'Send events to a URL',
			description:
				'Each event of the chosen types is POSTed to the URL, signed (Standard Webhooks) with the secret in this answer, which is shown only now.',
			...requires('admin'),
			request: {
				body: jsonBody(newEndpointSchema, {
					url: 'https://hooks.acme.example/parley',
					events: ['conversation.created', 'scenario.run_ended'],
					description: 'CRM sync',
				}),
			},
			responses: {
				201: jsonResponse('The endpoint and its signing secret.', endpointWithSecretSchema, withSecret),
				...errorResponses(400, 403, 413, 415, 422),
			},
		}),
		async (c) => c.json(await createEndpoint(c.env, c.var.db, c.var.caller.workspaceId, c.req.valid('json')), 201),
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getWebhookEndpoint',
			summary: 'One outbound webhook endpoint',
			description: 'Its URL, event types, state and the secrets signing now (without their values).',
			...requires('admin'),
			request: { params: idParams },
			responses: { 200: jsonResponse('The endpoint.', endpointSchema, example), ...errorResponses(403, 404) },
		}),
		async (c) => c.json(await getEndpoint(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateWebhookEndpoint',
			summary: 'Change an endpoint, pause or resume it',
			description: 'Enabling an endpoint Parley disabled after days of failures gives it a fresh start.',
			...requires('admin'),
			request: { params: idParams, body: jsonBody(endpointChangesSchema, { enabled: false }) },
			responses: {
				200: jsonResponse('The endpoint as it now is.', endpointSchema, example),
				...errorResponses(400, 403, 404, 413, 415, 422),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			return c.json(await updateEndpoint(c.env, c.var.db, c.var.caller.workspaceId, id, c.req.valid('json')), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteWebhookEndpoint',
			summary: 'Stop sending events to an endpoint',
			description: 'Its deliveries still waiting are dropped.',
			...requires('admin'),
			request: { params: idParams },
			responses: { 204: { description: 'The endpoint is gone.' }, ...errorResponses(403, 404) },
		}),
		async (c) => {
			await deleteEndpoint(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id);
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/rotate-secret',
			operationId: 'rotateWebhookEndpointSecret',
			summary: 'Add a new signing secret, retiring the old ones later',
			description:
				'Deliveries carry a signature by every active secret, so the receiver can switch to the new secret at its pace; the old ones stop signing after `overlapSeconds`.',
			...requires('admin'),
			request: { params: idParams, body: jsonBody(rotationSchema, { overlapSeconds: 86_400 }) },
			responses: {
				200: jsonResponse('The endpoint with its new secret.', endpointWithSecretSchema, {
					...withSecret,
					secrets: [
						{ version: 1, createdAt: example.createdAt, expiresAt: '2026-11-24T12:00:00.000Z' },
						{ version: 2, createdAt: '2026-11-23T12:00:00.000Z', expiresAt: null },
					],
				}),
				...errorResponses(400, 403, 404, 413, 415, 422),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const { overlapSeconds } = c.req.valid('json');
			return c.json(await rotateEndpointSecret(c.env, c.var.db, c.var.caller.workspaceId, id, overlapSeconds), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/deliveries',
			operationId: 'listWebhookDeliveries',
			summary: "An endpoint's deliveries",
			description: 'Newest first, with their status and tries; `status=failed` lists what never arrived.',
			...requires('admin'),
			request: {
				params: idParams,
				query: z.object({
					...pageQuery(50),
					status: z.enum(DELIVERY_STATUSES).optional().openapi({ description: 'Only deliveries with this status.' }),
				}),
			},
			responses: {
				200: jsonResponse('A page of deliveries.', deliveryPage, { data: [deliveryExample], nextCursor: null }),
				...errorResponses(403, 404, 422),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const { cursor, limit, status } = c.req.valid('query');
			const after = readCursor(cursor, newestFirstCursor);
			return c.json(await listDeliveries(c.var.db, c.var.caller.workspaceId, id, status, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/deliveries/{deliveryId}',
			operationId: 'getWebhookDelivery',
			summary: 'One delivery with every try',
			description: 'The body as sent, and each try’s time, HTTP status, error and the start of the answer.',
			...requires('admin'),
			request: { params: deliveryParams },
			responses: { 200: jsonResponse('The delivery.', deliverySchema, deliveryDetail), ...errorResponses(403, 404) },
		}),
		async (c) => {
			const { id, deliveryId } = c.req.valid('param');
			return c.json(await getDelivery(c.var.db, c.var.caller.workspaceId, id, deliveryId), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/deliveries/{deliveryId}/resend',
			operationId: 'resendWebhookDelivery',
			summary: 'Send a delivery again now',
			description: 'The same event id and body, signed anew; the receiver can tell it from the first by nothing else.',
			...requires('admin'),
			request: { params: deliveryParams },
			responses: {
				200: jsonResponse('The delivery, queued again.', deliverySchema, {
					...deliveryDetail,
					status: 'pending',
					nextAttemptAt: example.createdAt,
				}),
				...errorResponses(403, 404, 409, 503),
			},
		}),
		async (c) => {
			const { id, deliveryId } = c.req.valid('param');
			const { workspaceId } = c.var.caller;
			return c.json(await resendDelivery(c.var.db, c.env.WEBHOOK_DELIVERIES, workspaceId, id, deliveryId), 200);
		},
	);
