/**
 * The webhook Meta calls for a connected number: public (Meta signs its POSTs; the GET is its verification
 * request), outside /v3 like the mail links. See src/domain/channels/whatsapp/webhook.ts for the checks.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { receiveWebhook, routeToNumber, verifySubscription } from '../../domain/channels/whatsapp/webhook';
import { errorResponses, idParam, jsonResponse, noCredential } from '../../http/openapi';
import { createRouter } from '../../http/router';

const idParams = z.object({
	id: idParam('id', 'wan_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The WhatsApp number connection id.'),
});

export const whatsappWebhook = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/webhook',
			operationId: 'verifyWhatsappWebhook',
			summary: 'Meta’s verification of the webhook',
			description:
				'Answers `hub.challenge` as plain text when `hub.mode` is `subscribe` and `hub.verify_token` is the number’s verify token; 401 otherwise.',
			...noCredential,
			request: {
				params: idParams,
				query: z.object({
					'hub.mode': z
						.string()
						.max(64)
						.optional()
						.openapi({ description: 'Always `subscribe` from Meta.', example: 'subscribe' }),
					'hub.verify_token': z
						.string()
						.max(512)
						.optional()
						.openapi({ description: 'The verify token Parley gave when the number was connected.' }),
					'hub.challenge': z
						.string()
						.max(512)
						.optional()
						.openapi({ description: 'What to answer when the token is right.', example: '1158201444' }),
				}),
			},
			responses: {
				200: { description: 'The challenge.', content: { 'text/plain': { schema: z.string() } } },
				...errorResponses(401, 422),
			},
		}),
		async (c) => {
			const query = c.req.valid('query');
			await routeToNumber(c.env, c.var.db, c.req.valid('param').id);
			const challenge = await verifySubscription(c.var.db, c.req.valid('param').id, {
				mode: query['hub.mode'],
				token: query['hub.verify_token'],
				challenge: query['hub.challenge'],
			});
			return c.text(challenge, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/webhook',
			operationId: 'receiveWhatsappWebhook',
			summary: 'Meta’s event notifications (messages and statuses)',
			description:
				'Needs `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the app secret) and only changes of this number; at most 1 MiB (413). Every message and status is applied once per WhatsApp id, whatever the redelivery. 503 when some of it must wait for Meta’s redelivery (a temporary failure, or the time budget spent): what was applied is skipped then.',
			...noCredential,
			request: { params: idParams },
			responses: {
				200: jsonResponse(
					'Received (every message and status applied, or recorded as failed for Meta to redeliver).',
					z.object({ received: z.literal(true).openapi({ description: 'Always true.' }) }),
					{ received: true },
				),
				...errorResponses(400, 401, 413, 422, 503),
			},
		}),
		async (c) => {
			// The body is read once, as bytes: the signature is over exactly these (Meta escapes non-ASCII text).
			const body = new Uint8Array(await c.req.arrayBuffer());
			const origin = new URL(c.req.url).origin;
			const signature = c.req.header('X-Hub-Signature-256');
			await routeToNumber(c.env, c.var.db, c.req.valid('param').id);
			await receiveWebhook(c.env, c.var.db, c.req.valid('param').id, body, signature, origin);
			return c.json({ received: true as const }, 200);
		},
	);
