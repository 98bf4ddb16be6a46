import { createRoute, z } from '@hono/zod-openapi';
import { hasPermission } from '../../auth/permissions';
import type { Database } from '../../db/client';
import { noteBookmark } from '../../db/sessions';
import { messageMailSchema, withMailStates } from '../../domain/channels/email/delivery-views';
import { messageWhatsappSchema, withWhatsappStates } from '../../domain/channels/whatsapp/delivery-views';
import { updateConversation } from '../../domain/conversations/changes';
import {
	assertConversationInWorkspace,
	conversationChangesSchema,
	conversationForWriter,
	conversationWithContactSchema,
	conversationWriteResultSchema,
	getConversation,
	newConversationSchema,
} from '../../domain/conversations/conversations';
import {
	conversationFiltersSchema,
	conversationRowSchema,
	includeParam,
	listConversations,
	listWaiting,
	sortParam,
	waitingCursor,
} from '../../domain/conversations/list';
import { assertUpgrade, connectToRoom, markRead } from '../../domain/conversations/live';
import { listMessages, messageSchema, messageView } from '../../domain/conversations/messages';
import { startConversation } from '../../domain/conversations/start';
import { clientIp } from '../../domain/widget/visitor-limits';
import { errorResponses, idempotencyHeaders, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { conversationExample, conversationWithContactExample, messageExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageOf, pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { Invalid } from '../../lib/errors';
import { operatorActor } from '../../model/actor';
import type { MessageView } from '../../model/messages';

const listQuery = conversationFiltersSchema.extend({ include: includeParam, sort: sortParam }).extend(pageQuery(25));
const messagesCursor = z.object({ seq: z.number().int().min(0) });
const beforeParam = z.coerce
	.number()
	.int()
	.min(1)
	.max(Number.MAX_SAFE_INTEGER)
	.optional()
	.openapi({ description: 'Only messages with a `seq` below this one: the newest `limit` of them.', example: 120 });
const conversationPage = pageSchema('ConversationPage', conversationRowSchema);
/** A message as the team reads it: with `mail` and `whatsapp`, where what carries it to the customer stands. */
const teamMessageSchema = messageSchema
	.extend({
		mail: messageMailSchema
			.optional()
			.openapi({ description: 'Present when a mail carries the message (an e-mail reply, a continuation).' }),
		whatsapp: messageWhatsappSchema
			.optional()
			.openapi({ description: 'Present when a WhatsApp message carries it (a reply in a WhatsApp conversation).' }),
	})
	.openapi('TeamMessage');
const messagePage = pageSchema('MessagePage', teamMessageSchema, 'This page, oldest first.');

/** The mail and WhatsApp states of a page of messages: two reads side by side, one round trip's wait. */
async function withDeliveryStates(
	db: Database,
	workspaceId: string,
	conversationId: string,
	page: MessageView[],
): Promise<Array<z.infer<typeof teamMessageSchema>>> {
	const [mail, whatsapp] = await Promise.all([
		withMailStates(db, workspaceId, conversationId, page),
		withWhatsappStates(db, workspaceId, conversationId, page),
	]);
	return mail.map((m, i) => {
		const state = whatsapp[i]?.whatsapp;
		return state ? { ...m, whatsapp: state } : m;
	});
}

const readBody = z
	.strictObject({
		seq: z
			.int()
			.min(0)
			.max(Number.MAX_SAFE_INTEGER)
			.openapi({ description: 'The `seq` of the last message the operators have read.' }),
	})
	.openapi('ReadReceipt');
const readPosition = z
	.object({
		conversationId: z.string().openapi({ description: 'The conversation.' }),
		readSeq: z.number().int().openapi({ description: "The operators' read position (it never moves back)." }),
	})
	.openapi('ReadPosition');

const idParams = z.object({ id: idParam('id', 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The conversation id.') });

export const conversations = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listConversations',
			summary: 'List conversations, most recent activity first or longest waiting first',
			description:
				'The inbox, filtered by status, assignee, contact, channel, tag, campaign origin or last update, sorted by last activity or by how long the customer has waited (`sort`), and paged with an opaque cursor.',
			...requires('conversations:read'),
			request: { query: listQuery },
			responses: {
				200: jsonResponse('A page of conversations.', conversationPage, {
					data: [conversationExample],
					nextCursor: null,
				}),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor, include, sort, ...filters } = c.req.valid('query');
			const { db, caller } = c.var;
			const page =
				sort === 'waiting'
					? await listWaiting(db, caller.workspaceId, filters, readCursor(cursor, waitingCursor), limit, include)
					: await listConversations(
							db,
							caller.workspaceId,
							filters,
							readCursor(cursor, newestFirstCursor),
							limit,
							include,
						);
			return c.json(page, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createConversation',
			summary: 'Start a conversation with a contact (created when unknown)',
			description:
				'Names the contact by id, e-mail or phone (a contact is created for an unknown e-mail or phone), optionally with a first message from the operator or the contact. Send an `Idempotency-Key` to make a retry safe.',
			...requires('messages:send'),
			request: {
				headers: idempotencyHeaders,
				body: jsonBody(newConversationSchema, {
					contact: { email: 'ada@example.com', name: 'Ada Lovelace' },
					tags: ['billing'],
					message: { text: 'Hi Ada, your refund is on its way.' },
				}),
			},
			responses: {
				201: jsonResponse(
					'The new conversation: its contact embedded with `conversations:read`, else a receipt.',
					conversationWriteResultSchema,
					conversationWithContactExample,
				),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const key = c.req.valid('header')['idempotency-key'];
			const { message, ...input } = c.req.valid('json');
			const created = await startConversation(c.env, c.var.db, {
				...input,
				workspaceId,
				actor: operatorActor(operatorId),
				startKey: key === undefined ? null : `api:${operatorId}:${key}`,
				message: message && {
					authorKind: message.author,
					authorId: message.author === 'operator' ? operatorId : null,
					text: message.text,
					// Posting it again (a retried start) finds the message instead of adding one.
					clientMessageId: 'start',
				},
			});
			if (!created.created) c.header('Idempotent-Replayed', 'true');
			const canRead = hasPermission(c.var.caller.permissions, 'conversations:read');
			return c.json(await conversationForWriter(c.var.db, workspaceId, created.id, canRead), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getConversation',
			summary: 'One conversation with its contact and origin',
			description: 'The conversation, its contact and the campaign origin it came from.',
			...requires('conversations:read'),
			request: { params: idParams },
			responses: {
				200: jsonResponse('The conversation.', conversationWithContactSchema, conversationWithContactExample),
				...errorResponses(403, 404),
			},
		}),
		async (c) => c.json(await getConversation(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateConversation',
			summary: 'Change status, assignee, group or tags',
			description: 'Give at least one field; the others stay as they are. `tags` replaces the whole tag set.',
			...requires('messages:send'),
			request: { params: idParams, body: jsonBody(conversationChangesSchema, { status: 'closed' }) },
			responses: {
				200: jsonResponse(
					'The updated conversation: its contact embedded with `conversations:read`, else a receipt.',
					conversationWriteResultSchema,
					{ ...conversationWithContactExample, status: 'closed' },
				),
				...errorResponses(400, 403, 404, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const actor = operatorActor(operatorId);
			await updateConversation(c.env, c.var.db, workspaceId, id, c.req.valid('json'), actor);
			const canRead = hasPermission(c.var.caller.permissions, 'conversations:read');
			return c.json(await conversationForWriter(c.var.db, workspaceId, id, canRead), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/messages',
			operationId: 'listConversationMessages',
			summary: "A conversation's messages, oldest first",
			description:
				'Every message of the conversation in `seq` order, paged with an opaque cursor. With `before`, the `limit` messages just before that `seq` instead (still oldest first, no cursor): how a console scrolls back from the newest.',
			...requires('conversations:read'),
			request: {
				params: idParams,
				query: z.object({ ...pageQuery(50), before: beforeParam }),
			},
			responses: {
				200: jsonResponse('A page of messages.', messagePage, { data: [messageExample], nextCursor: null }),
				...errorResponses(403, 404, 422),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const { limit, cursor, before } = c.req.valid('query');
			const { workspaceId } = c.var.caller;
			if (before !== undefined) {
				if (cursor !== undefined)
					throw new Invalid('give either cursor or before, not both', { field: ['before'], source: 'query' });
				const rows = await listMessages(c.var.db, workspaceId, id, { before }, limit);
				if (rows.length === 0) await assertConversationInWorkspace(c.var.db, workspaceId, id);
				const data = await withDeliveryStates(c.var.db, workspaceId, id, rows.map(messageView));
				return c.json({ data, nextCursor: null }, 200);
			}
			const after = readCursor(cursor, messagesCursor) ?? { seq: 0 };
			const rows = await listMessages(c.var.db, workspaceId, id, { after: after.seq }, limit + 1);
			// An empty page is only a 404 when the conversation itself is not ours: checked only then.
			if (rows.length === 0) await assertConversationInWorkspace(c.var.db, workspaceId, id);
			const page = pageOf(rows, limit, messageView, (row) => ({ seq: row.seq }));
			return c.json({ ...page, data: await withDeliveryStates(c.var.db, workspaceId, id, page.data) }, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/read',
			operationId: 'markConversationRead',
			summary: 'Mark the conversation read by operators up to a message (a read receipt)',
			description:
				'Moves the operators’ read position forward (never back) and tells the visitor’s widget through the live socket.',
			...requires('conversations:read'),
			request: { params: idParams, body: jsonBody(readBody, { seq: 2 }) },
			responses: {
				200: jsonResponse("The operators' read position after the receipt.", readPosition, {
					conversationId: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					readSeq: 2,
				}),
				...errorResponses(400, 403, 404, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const id = c.req.valid('param').id;
			// Checked in D1 first: a made-up id must not create a conversation room.
			await assertConversationInWorkspace(c.var.db, workspaceId, id);
			const read = await markRead(c.env, workspaceId, id, 'operator', operatorId, c.req.valid('json').seq);
			// The room wrote the receipt to D1: the answer's bookmark lets the next read see it.
			noteBookmark(c.var.db, read.d1Bookmark);
			return c.json({ conversationId: id, readSeq: read.seq }, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/live',
			operationId: 'connectConversationSocket',
			summary: "The conversation's WebSocket: messages after `after`, then live messages, typing and read receipts",
			description:
				'Upgrades to a WebSocket (subprotocol `parley.v1`). A browser, which cannot send headers, offers the token as the `bearer.<token>` subprotocol. Frames, close codes, limits and reconnection: docs/live-protocol.md. Sending needs `messages:send` as well.',
			...requires('conversations:read'),
			request: {
				params: idParams,
				query: z.object({
					after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).openapi({
						description: 'The last `seq` this client has: the socket first replays every message after it.',
					}),
				}),
			},
			responses: {
				101: { description: 'Switching to the WebSocket protocol (frames: docs/live-protocol.md).' },
				...errorResponses(403, 404, 422, 426),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId, credential, permissions } = c.var.caller;
			// A plain GET is told so first; then D1, before the room: a made-up id must not create a room.
			assertUpgrade(c.req.raw);
			await assertConversationInWorkspace(c.var.db, workspaceId, c.req.valid('param').id);
			return connectToRoom(c.env, c.req.raw, {
				workspaceId,
				conversationId: c.req.valid('param').id,
				role: 'operator',
				operatorId,
				tokenId: credential.id,
				tokenHash: credential.hash,
				canSend: hasPermission(permissions, 'messages:send'),
				ip: clientIp(c.req.raw.headers),
				after: c.req.valid('query').after,
			});
		},
	);
