import { createRoute, z } from '@hono/zod-openapi';
import { countStatements } from '../../db/client';
import { addSpans, timed } from '../../db/server-timing';
import { noteBookmark } from '../../db/sessions';
import { postMessage } from '../../domain/conversations/live';
import { attachmentSchema, interactiveSchema, messageSchema } from '../../domain/conversations/messages';
import { errorResponses, idempotencyHeaders, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { messageExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';
import { schemaRules, when } from '../../lib/schema-rules';
import { MAX_OPERATOR_TEXT, messageText } from '../../model/messages';

const sendBody = z
	.strictObject({
		conversationId: z.string().min(1).max(64).openapi({ description: 'The conversation to post into.' }),
		text: messageText(MAX_OPERATOR_TEXT).openapi({ description: 'The message text (trimmed).' }),
		attachments: z
			.array(attachmentSchema)
			.max(10)
			.default([])
			.openapi({ description: 'Files already hosted at https URLs.' }),
		interactive: interactiveSchema.nullable().optional().openapi({
			description:
				'Quick-reply buttons, a data-entry prompt or a 1-5 rating; `text` is the question. The visitor answers with an ordinary message.',
		}),
		private: z.boolean().default(false).openapi({
			description:
				'A private note for the team: numbered and stored like any message, shown to operators, never to the visitor; no reply to the customer (first response, waiting time and bots ignore it). Cannot carry `interactive`.',
		}),
	})
	// The room refuses a private note that asks something (checkMessage): the document states it too.
	.openapi(
		'NewMessage',
		schemaRules(
			when(
				{ required: ['private', 'interactive'], properties: { private: { const: true }, interactive: {} } },
				{ required: ['interactive'], properties: { interactive: { type: 'null' } } },
			),
		),
	);

export const messages = createRouter().openapi(
	createRoute({
		method: 'post',
		path: '/',
		operationId: 'sendMessage',
		summary: 'Send an operator message into a conversation',
		description:
			"Posts as the token's operator; the visitor's widget receives it live, unless it is a private note (`private: true`), which only the team sees. Send an `Idempotency-Key` to make a retry return the stored message instead of a duplicate. Into a WhatsApp conversation whose 24-hour customer-service window has closed, a message that is not private is refused with 409 (the window's end in the message), and nothing is stored: only an approved template can reach the customer then (POST /v3/whatsapp/conversations/{id}/template).",
		...requires('messages:send'),
		request: {
			headers: idempotencyHeaders,
			body: jsonBody(sendBody, {
				conversationId: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
				text: 'Your order ships tomorrow.',
			}),
		},
		responses: {
			201: jsonResponse('The stored message (also for a retried Idempotency-Key).', messageSchema, messageExample),
			// 409: a WhatsApp conversation whose 24-hour customer-service window has closed (send a template).
			...errorResponses(400, 403, 404, 409, 413, 415, 422),
		},
	}),
	async (c) => {
		const body = c.req.valid('json');
		const key = c.req.valid('header')['idempotency-key'];
		const { workspaceId, operatorId } = c.var.caller;
		// Timed whole: the room checks, appends and writes D1; the room's own timings are for it to return (see
		// addSpans).
		const result = await timed(
			c.var.db,
			'post-message',
			postMessage(c.env, {
				workspaceId,
				conversationId: body.conversationId,
				authorKind: 'operator',
				authorId: operatorId,
				text: body.text,
				attachments: body.attachments,
				interactive: body.interactive ?? null,
				private: body.private,
				// Keys are per operator: two integrators cannot collide on the same key.
				clientMessageId: key === undefined ? null : `api:${operatorId}:${key}`,
			}),
		);
		countStatements(c.var.db, result.d1Statements);
		noteBookmark(c.var.db, result.d1Bookmark);
		addSpans(c.var.db, result.spans, 'room');
		if (!result.created) c.header('Idempotent-Replayed', 'true');
		return c.json(result.message, 201);
	},
);
