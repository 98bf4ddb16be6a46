import { createRoute, z } from '@hono/zod-openapi';
import {
	connectNumber,
	getNumber,
	listNumbers,
	newWhatsappNumberSchema,
	removeNumber,
	rotateVerifyToken,
	updateNumber,
	whatsappNumberChangesSchema,
	whatsappNumberSchema,
	whatsappNumberWithTokenSchema,
} from '../../domain/channels/whatsapp/numbers';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';

const example = {
	id: 'wan_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	phoneNumberId: '106540352242922',
	businessAccountId: '102290129340398',
	displayPhoneNumber: '+1 555 078 3881',
	accessTokenSet: true as const,
	appSecretSet: true as const,
	graphUrl: 'https://graph.facebook.com',
	graphVersion: 'v25.0',
	messagesPerSecond: 80,
	webhookUrl: 'https://parley.acme.example/whatsapp/wan_01JD3Q8Z6Y2V7K1N4M5P6R7S8T/webhook',
	createdAt: '2026-11-27T10:00:00.000Z',
	updatedAt: '2026-11-27T10:00:00.000Z',
};
const withToken = { ...example, verifyToken: 'k3Jx9QvT2mW8pL5nR7sY4bC6dF1gH0jA' };
const idParams = z.object({ id: idParam('id', example.id, 'The WhatsApp number connection id.') });

/** The request's origin: the webhook URL Meta is given is on the API the admin reached. */
const originOf = (url: string) => new URL(url).origin;

/** A workspace's connected WhatsApp numbers (src/domain/channels/whatsapp/numbers.ts). */
export const whatsappNumbersRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listWhatsappNumbers',
			summary: "The workspace's connected WhatsApp numbers",
			description: 'Oldest first. The access token and app secret are never returned.',
			...requires('admin'),
			responses: {
				200: jsonResponse('The numbers.', z.object({ data: z.array(whatsappNumberSchema) }), { data: [example] }),
				...errorResponses(403),
			},
		}),
		async (c) => c.json({ data: await listNumbers(c.var.db, c.var.caller.workspaceId, originOf(c.req.url)) }, 200),
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'connectWhatsappNumber',
			summary: 'Connect a WhatsApp Business number',
			description:
				'Stores Meta’s ids and credentials (sealed; never returned) and answers with the `webhookUrl` and the `verifyToken` to enter in the Meta App Dashboard (WhatsApp > Configuration). The verify token is shown only here. A phone number id belongs to one workspace across the deployment (409).',
			...requires('admin'),
			request: {
				body: jsonBody(newWhatsappNumberSchema, {
					phoneNumberId: '106540352242922',
					businessAccountId: '102290129340398',
					accessToken: 'EAAG…your-system-user-token',
					appSecret: '4f6c…your-app-secret',
				}),
			},
			responses: {
				201: jsonResponse('The number, with its verify token.', whatsappNumberWithTokenSchema, withToken),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const input = c.req.valid('json');
			return c.json(await connectNumber(c.env, c.var.db, workspaceId, input, originOf(c.req.url)), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getWhatsappNumber',
			summary: 'One connected WhatsApp number',
			description: 'Its settings, the webhook URL to give Meta; never its credentials or verify token.',
			...requires('admin'),
			request: { params: idParams },
			responses: { 200: jsonResponse('The number.', whatsappNumberSchema, example), ...errorResponses(403, 404) },
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			return c.json(await getNumber(c.var.db, c.var.caller.workspaceId, id, originOf(c.req.url)), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateWhatsappNumber',
			summary: 'Change a number’s settings or credentials',
			description: 'A credential given replaces the stored one; fields left out keep their value.',
			...requires('admin'),
			request: { params: idParams, body: jsonBody(whatsappNumberChangesSchema, { messagesPerSecond: 40 }) },
			responses: {
				200: jsonResponse('The number as it now is.', whatsappNumberSchema, example),
				...errorResponses(400, 403, 404, 413, 415, 422),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const changes = c.req.valid('json');
			const { workspaceId } = c.var.caller;
			return c.json(await updateNumber(c.env, c.var.db, workspaceId, id, changes, originOf(c.req.url)), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'disconnectWhatsappNumber',
			summary: 'Disconnect a WhatsApp number',
			description: 'Its webhooks are refused from then on; its conversations stay.',
			...requires('admin'),
			request: { params: idParams },
			responses: { 204: { description: 'Disconnected.' }, ...errorResponses(403, 404) },
		}),
		async (c) => {
			await removeNumber(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id);
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/verify-token',
			operationId: 'rotateWhatsappVerifyToken',
			summary: 'A new verify token for the number’s webhook',
			description:
				'The old one stops working at once; the new one is shown only here. Enter it in the Meta App Dashboard.',
			...requires('admin'),
			request: { params: idParams },
			responses: {
				200: jsonResponse('The number, with its new verify token.', whatsappNumberWithTokenSchema, withToken),
				...errorResponses(403, 404),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			return c.json(await rotateVerifyToken(c.var.db, c.var.caller.workspaceId, id, originOf(c.req.url)), 200);
		},
	);
