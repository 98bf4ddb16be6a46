import { createRoute, z } from '@hono/zod-openapi';
import {
	conversationMails,
	inboundMailDetail,
	inboundMailDetailSchema,
	inboundMailFiltersSchema,
	inboundMailRaw,
	inboundMailSchema,
	listInboundMails,
} from '../../domain/channels/email/received';
import { errorResponses, idParam, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';

const mailPage = pageSchema('InboundMailPage', inboundMailSchema, 'This page, newest first.');
const idParams = z.object({ id: idParam('id', 'inm_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The received mail id.') });
const conversationParams = z.object({
	id: idParam('id', 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The conversation id.'),
});

const example = {
	id: 'inm_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	status: 'posted' as const,
	kind: 'message' as const,
	failure: null,
	envelopeFrom: 'ana.souza@gmail.com',
	envelopeTo: 'support@acme.example',
	subject: 'Order #4411 not delivered',
	headerMessageId: 'CAF1x2y3@mail.gmail.com',
	conversationId: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	messageId: 'msg_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	authentication: { spf: 'pass' as const, dkim: 'pass' as const, dmarc: 'pass' as const },
	possiblyForged: false,
	rawSize: 5120,
	receivedAt: '2026-11-24T10:15:03.000Z',
};

/** Received mail: the admin's list, one mail and its original (src/domain/channels/email/received.ts). */
export const inboundMailsRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listInboundMails',
			summary: 'Every mail the workspace received, and what became of it',
			description:
				'Posted, ignored (machine mail: auto-replies, bounces, bulk; or a redelivery), rejected or failed (with `failure` saying why), newest first. The raw message of each is kept.',
			...requires('admin'),
			request: { query: inboundMailFiltersSchema.extend(pageQuery(50)) },
			responses: {
				200: jsonResponse('A page of mails.', mailPage, { data: [example], nextCursor: null }),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor, ...filters } = c.req.valid('query');
			const after = readCursor(cursor, newestFirstCursor);
			return c.json(await listInboundMails(c.var.db, c.var.caller.workspaceId, filters, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getInboundMail',
			summary: 'One received mail, as the console shows it',
			description:
				'Read again from the raw message: the text with quoted history and signature folded out (and kept), the HTML sanitized with remote images held back, the authentication verdicts, and each file with what became of it.',
			...requires('conversations:read'),
			request: { params: idParams },
			responses: {
				200: jsonResponse('The mail.', inboundMailDetailSchema, {
					...example,
					from: { address: 'ana.souza@gmail.com', name: 'Ana Souza' },
					text: 'Hi, my order #4411 has not arrived yet.',
					quote:
						'On Mon, 23 Nov 2026 at 18:02, Acme Support <support@acme.example> wrote:\n> Could you tell us your order number?',
					signature: null,
					html: '<div dir="ltr">Hi, my order #4411 has not arrived yet.<img alt="logo" data-remote-src="https://shop.example/logo.png" /></div><div data-parley-quote="block">On Mon, 23 Nov 2026 …</div>',
					remoteImages: 1,
					files: [
						{
							name: 'receipt.pdf',
							contentType: 'application/pdf',
							size: 48213,
							contentId: null,
							outcome: 'attached',
							url: 'https://api.parley.example/v3/files/fil_3f7a9c2e4b1d8f60a5c7e9b2d4f6a8c0',
						},
					],
					parseError: null,
				}),
				...errorResponses(403, 404),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const origin = new URL(c.req.url).origin;
			return c.json(await inboundMailDetail(c.env, c.var.db, c.var.caller.workspaceId, id, origin), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/raw',
			operationId: 'downloadInboundMail',
			summary: 'The original of a received mail',
			description: 'The raw message exactly as received, as a download (`message/rfc822`).',
			...requires('conversations:read'),
			request: { params: idParams },
			responses: {
				200: {
					description: 'The raw message.',
					content: { 'message/rfc822': { schema: z.string().openapi({ format: 'binary' }) } },
				},
				...errorResponses(403, 404),
			},
		}),
		(c) => inboundMailRaw(c.env, c.var.db, c.var.caller.workspaceId, c.req.valid('param').id),
	);

/** A conversation's received mails, beside its messages: mounted under /v3/conversations. */
export const conversationMailsRoutes = createRouter().openapi(
	createRoute({
		method: 'get',
		path: '/{id}/mails',
		operationId: 'listConversationMails',
		summary: "A conversation's received mails",
		description:
			'Every mail threaded into the conversation, oldest first (at most 200), including machine mail shown beside it and never posted (an auto-reply, a bounce of a mail it sent).',
		...requires('conversations:read'),
		request: { params: conversationParams },
		responses: {
			200: jsonResponse('The mails.', z.object({ data: z.array(inboundMailSchema) }), { data: [example] }),
			...errorResponses(403, 404),
		},
	}),
	async (c) => {
		const { id } = c.req.valid('param');
		return c.json({ data: await conversationMails(c.var.db, c.var.caller.workspaceId, id) }, 200);
	},
);
