import { createRoute, z } from '@hono/zod-openapi';
import { listDeliveries, mailDeliverySchema } from '../../domain/channels/email/delivery-views';
import { errorResponses, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { MAIL_DELIVERY_STATUSES } from '../../model/email';

const deliveryPage = pageSchema('MailDeliveryPage', mailDeliverySchema, 'This page, newest first.');

export const emailDeliveriesRoutes = createRouter().openapi(
	createRoute({
		method: 'get',
		path: '/deliveries',
		operationId: 'listMailDeliveries',
		summary: 'Every mail Parley sent or tried to send, newest first',
		description:
			'Continuations, replies in e-mail conversations and the rest: where each stands (`queued`, `sending`, `sent`, `failed` with the provider’s reason, `skipped` with Parley’s), its tries, and the Message-ID it went out with. Paged with an opaque cursor.',
		...requires('admin'),
		request: {
			query: z.object({
				status: z
					.enum(MAIL_DELIVERY_STATUSES)
					.optional()
					.openapi({ description: 'Only the deliveries in this state.', example: 'failed' }),
				...pageQuery(50),
			}),
		},
		responses: {
			200: jsonResponse('A page of deliveries.', deliveryPage, {
				data: [
					{
						id: 'mail_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
						kind: 'continuation',
						status: 'sent',
						recipient: 'ada@example.com',
						conversationId: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
						contactId: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
						firstSeq: 4,
						lastSeq: 6,
						attempts: 1,
						messageId: '0a1b2c3d4e@acme.example',
						error: null,
						createdAt: '2026-11-27T10:00:00.000Z',
						updatedAt: '2026-11-27T10:00:01.000Z',
						sentAt: '2026-11-27T10:00:01.000Z',
					},
				],
				nextCursor: null,
			}),
			...errorResponses(403, 422),
		},
	}),
	async (c) => {
		const { limit, cursor, status } = c.req.valid('query');
		const after = readCursor(cursor, newestFirstCursor);
		return c.json(await listDeliveries(c.var.db, c.var.caller.workspaceId, { status }, after, limit), 200);
	},
);
