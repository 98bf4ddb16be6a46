import { createRoute, z } from '@hono/zod-openapi';
import { requirePermission } from '../auth/middleware';
import { countStatements } from '../db/client';
import { postMessage } from '../domain/live';
import { attachmentSchema, interactiveSchema, messageSchema } from '../domain/messages';
import { bearerSecurity, errorResponses, idempotencyHeaders, jsonBody, jsonResponse } from '../lib/openapi';
import { createRouter } from '../lib/router';

const sendBody = z
	.strictObject({
		conversationId: z.string().min(1).max(64),
		text: z.string().trim().min(1).max(10_000),
		attachments: z.array(attachmentSchema).max(10).default([]),
		interactive: interactiveSchema.nullable().optional().openapi({
			description:
				'Quick-reply buttons, a data-entry prompt or a 1-5 rating; `text` is the question. The visitor answers with an ordinary message.',
		}),
	})
	.openapi('NewMessage');

export const messages = createRouter().openapi(
	createRoute({
		method: 'post',
		path: '/',
		summary: 'Send an operator message into a conversation',
		security: bearerSecurity,
		middleware: [requirePermission('messages:send')] as const,
		request: { headers: idempotencyHeaders, body: jsonBody(sendBody) },
		responses: {
			201: jsonResponse('The stored message (also for a retried Idempotency-Key).', messageSchema),
			...errorResponses(400, 403, 404, 413, 415, 422),
		},
	}),
	async (c) => {
		const body = c.req.valid('json');
		const key = c.req.valid('header')['idempotency-key'];
		const { workspaceId, operatorId } = c.var.caller;
		const result = await postMessage(c.env, {
			workspaceId,
			conversationId: body.conversationId,
			authorKind: 'operator',
			authorId: operatorId,
			text: body.text,
			attachments: body.attachments,
			interactive: body.interactive ?? null,
			// Keys are per operator: two integrators cannot collide on the same key.
			clientMessageId: key === undefined ? null : `api:${operatorId}:${key}`,
		});
		countStatements(c.var.db, result.d1Statements);
		if (!result.created) c.header('Idempotent-Replayed', 'true');
		return c.json(result.message, 201);
	},
);
