import { createRoute, z } from '@hono/zod-openapi';
import { requirePermission } from '../auth/middleware';
import { hasPermission } from '../auth/permissions';
import { createConversation, updateConversation } from '../domain/conversation-changes';
import {
	assertConversationInWorkspace,
	conversationChangesSchema,
	conversationFiltersSchema,
	conversationForWriter,
	conversationSchema,
	conversationWithContactSchema,
	conversationWriteResultSchema,
	getConversation,
	listConversations,
	newConversationSchema,
} from '../domain/conversations';
import { assertUpgrade, connectToRoom, markRead, postMessage } from '../domain/live';
import { listMessages, messageSchema, messageView } from '../domain/messages';
import { clientIp } from '../domain/visitor-limits';
import { releaseEvents } from '../events/outbox';
import { decodeCursor, encodeCursor } from '../lib/cursor';
import { Invalid } from '../lib/errors';
import { bearerSecurity, errorResponses, idempotencyHeaders, idParam, jsonBody, jsonResponse } from '../lib/openapi';
import { createRouter } from '../lib/router';

const listQuery = conversationFiltersSchema.extend({
	limit: z.coerce.number().int().min(1).max(100).default(25),
	cursor: z.string().max(512).optional(),
});

const listCursor = z.object({ at: z.number().int(), id: z.string() });
const messagesCursor = z.object({ seq: z.number().int().min(0) });

const conversationPage = z
	.object({ data: z.array(conversationSchema), nextCursor: z.string().nullable() })
	.openapi('ConversationPage');

const messagePage = z
	.object({ data: z.array(messageSchema), nextCursor: z.string().nullable() })
	.openapi('MessagePage');

const readBody = z.strictObject({ seq: z.number().int().min(0) }).openapi('ReadReceipt');
const readPosition = z.object({ conversationId: z.string(), readSeq: z.number().int() }).openapi('ReadPosition');

const idParams = z.object({ id: idParam('id', 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T') });

function badCursor(): never {
	throw new Invalid('query.cursor: not a cursor this API issued; start again without it.');
}

export const conversations = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			summary: 'List conversations, most recent activity first',
			security: bearerSecurity,
			middleware: [requirePermission('conversations:read')] as const,
			request: { query: listQuery },
			responses: { 200: jsonResponse('A page of conversations.', conversationPage), ...errorResponses(403, 422) },
		}),
		async (c) => {
			const { limit, cursor, ...filters } = c.req.valid('query');
			const after = cursor === undefined ? null : (decodeCursor(cursor, listCursor) ?? badCursor());
			const page = await listConversations(c.var.db, c.var.caller.workspaceId, filters, after, limit);
			return c.json({ data: page.data, nextCursor: page.next && encodeCursor(page.next) }, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			summary: 'Start a conversation with a contact (created when unknown)',
			security: bearerSecurity,
			middleware: [requirePermission('messages:send')] as const,
			request: { headers: idempotencyHeaders, body: jsonBody(newConversationSchema) },
			responses: {
				201: jsonResponse(
					'The new conversation: its contact embedded with `conversations:read`, else a receipt.',
					conversationWriteResultSchema,
				),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const key = c.req.valid('header')['idempotency-key'];
			const created = await createConversation(c.var.db, workspaceId, c.req.valid('json'), {
				operatorId,
				startKey: key === undefined ? null : `api:${operatorId}:${key}`,
			});
			// conversation.created goes out before the first message's message.created.
			await releaseEvents(c.env, created.events);
			if (created.firstMessage) await postMessage(c.env, created.firstMessage);
			if (!created.created) c.header('Idempotent-Replayed', 'true');
			const canRead = hasPermission(c.var.caller.permissions, 'conversations:read');
			return c.json(await conversationForWriter(c.var.db, workspaceId, created.id, canRead), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			summary: 'One conversation with its contact and origin',
			security: bearerSecurity,
			middleware: [requirePermission('conversations:read')] as const,
			request: { params: idParams },
			responses: {
				200: jsonResponse('The conversation.', conversationWithContactSchema),
				...errorResponses(403, 404),
			},
		}),
		async (c) => c.json(await getConversation(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			summary: 'Change status, assignee, group or tags',
			security: bearerSecurity,
			middleware: [requirePermission('messages:send')] as const,
			request: { params: idParams, body: jsonBody(conversationChangesSchema) },
			responses: {
				200: jsonResponse(
					'The updated conversation: its contact embedded with `conversations:read`, else a receipt.',
					conversationWriteResultSchema,
				),
				...errorResponses(400, 403, 404, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const { id } = c.req.valid('param');
			const updated = await updateConversation(c.var.db, workspaceId, id, c.req.valid('json'));
			c.executionCtx.waitUntil(releaseEvents(c.env, updated.events));
			const canRead = hasPermission(c.var.caller.permissions, 'conversations:read');
			return c.json(await conversationForWriter(c.var.db, workspaceId, id, canRead), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/messages',
			summary: "A conversation's messages, oldest first",
			security: bearerSecurity,
			middleware: [requirePermission('conversations:read')] as const,
			request: {
				params: idParams,
				query: z.object({
					limit: z.coerce.number().int().min(1).max(100).default(50),
					cursor: z.string().max(512).optional(),
				}),
			},
			responses: { 200: jsonResponse('A page of messages.', messagePage), ...errorResponses(403, 404, 422) },
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const { limit, cursor } = c.req.valid('query');
			const { workspaceId } = c.var.caller;
			const after = cursor === undefined ? { seq: 0 } : (decodeCursor(cursor, messagesCursor) ?? badCursor());
			const rows = await listMessages(c.var.db, workspaceId, id, after.seq, limit + 1);
			// An empty page is only a 404 when the conversation itself is not ours: checked only then.
			if (rows.length === 0) await assertConversationInWorkspace(c.var.db, workspaceId, id);
			const page = rows.slice(0, limit);
			const last = page.at(-1);
			return c.json(
				{
					data: page.map(messageView),
					nextCursor: rows.length > limit && last ? encodeCursor({ seq: last.seq }) : null,
				},
				200,
			);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/read',
			summary: 'Mark the conversation read by operators up to a message (a read receipt)',
			security: bearerSecurity,
			middleware: [requirePermission('conversations:read')] as const,
			request: { params: idParams, body: jsonBody(readBody) },
			responses: {
				200: jsonResponse("The operators' read position after the receipt.", readPosition),
				...errorResponses(400, 403, 404, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const id = c.req.valid('param').id;
			// Checked in D1 first: a made-up id must not create a conversation room.
			await assertConversationInWorkspace(c.var.db, workspaceId, id);
			const seq = await markRead(c.env, workspaceId, id, 'operator', operatorId, c.req.valid('json').seq);
			return c.json({ conversationId: id, readSeq: seq }, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/live',
			summary: "The conversation's WebSocket: messages after `after`, then live messages, typing and read receipts",
			security: bearerSecurity,
			middleware: [requirePermission('conversations:read')] as const,
			request: { params: idParams, query: z.object({ after: z.coerce.number().int().min(0).default(0) }) },
			responses: {
				101: { description: 'Switching to the WebSocket protocol (frames: src/protocol/live.ts).' },
				...errorResponses(403, 404, 422, 426),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId, tokenId, permissions } = c.var.caller;
			// A plain GET is told so first; then D1, before the room: a made-up id must not create a room.
			assertUpgrade(c.req.raw);
			await assertConversationInWorkspace(c.var.db, workspaceId, c.req.valid('param').id);
			return connectToRoom(c.env, c.req.raw, {
				workspaceId,
				conversationId: c.req.valid('param').id,
				role: 'operator',
				operatorId,
				tokenId,
				canSend: hasPermission(permissions, 'messages:send'),
				ip: clientIp(c.req.raw.headers),
				after: c.req.valid('query').after,
			});
		},
	);
