/**
 * One of a visitor's conversations through the public widget endpoints (mounted at `/widget`, beside
 * public-widget.ts): its history, sending, the read receipt and the WebSocket.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { postFileMessage } from '../../domain/conversations/file-messages';
import { ACCEPTED_FILES, visitorFileDownload } from '../../domain/conversations/files';
import { connectToRoom, markRead, postVisitorMessage } from '../../domain/conversations/live';
import {
	listMessages,
	messageSchema,
	messageView,
	visitorClientId,
	visitorView,
} from '../../domain/conversations/messages';
import { clientIp, spendVisitorMessage } from '../../domain/widget/visitor-limits';
import { authenticateForConversation } from '../../domain/widget/visitor-sessions';
import {
	errorResponses,
	fileBytesBody,
	jsonBody,
	jsonResponse,
	visitorSession,
	visitorSocketSession,
} from '../../http/openapi';
import { visitorMessageExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';
import { credentialFromSubprotocols } from '../../protocol/live';
import { visitorMessage } from './contract';
import { afterParam, conversationParams, sessionHeaders, visitorIn } from './public-widget-params';

export const publicMessages = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/{workspaceId}/conversations/{id}/messages',
			operationId: 'listVisitorMessages',
			summary: 'History of one of the visitor’s conversations, after a seq',
			description:
				'Messages in `seq` order, as a visitor sees them: the team’s private notes are left out, so `seq` may skip numbers.',
			...visitorSession,
			request: {
				params: conversationParams,
				headers: sessionHeaders,
				query: z.object({
					after: afterParam,
					limit: z.coerce
						.number()
						.int()
						.min(1)
						.max(100)
						.default(50)
						.openapi({ description: 'Most messages to return.' }),
				}),
			},
			responses: {
				200: jsonResponse(
					'Messages, oldest first.',
					z
						.object({ data: z.array(messageSchema).openapi({ description: 'Oldest first.' }) })
						.openapi('VisitorMessageList'),
					{ data: [visitorMessageExample] },
				),
				...errorResponses(404, 422),
			},
		}),
		async (c) => {
			const { workspaceId, id } = c.req.valid('param');
			const { after, limit } = c.req.valid('query');
			await visitorIn(c, workspaceId, id);
			const rows = await listMessages(c.var.db, workspaceId, id, { after }, limit, 'contact');
			return c.json({ data: rows.map((row) => visitorView(messageView(row))) }, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{workspaceId}/conversations/{id}/messages',
			operationId: 'sendVisitorMessage',
			summary: 'Send a visitor message (idempotent by clientMessageId)',
			description: 'A retry with the same `clientMessageId` returns the stored message instead of a duplicate.',
			...visitorSession,
			request: {
				params: conversationParams,
				headers: sessionHeaders,
				body: jsonBody(visitorMessage, {
					text: 'Is the Ridge 2 tent in stock?',
					clientMessageId: 'c8f3b0e2-5d1a-4f7e-9c61-2b0d3e4f5a6b',
				}),
			},
			responses: {
				201: jsonResponse(
					'The stored message (also for a repeated clientMessageId).',
					messageSchema,
					visitorMessageExample,
				),
				...errorResponses(400, 404, 409, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, id } = c.req.valid('param');
			const body = c.req.valid('json');
			const session = await visitorIn(c, workspaceId, id);
			// A retried clientMessageId is answered before the limits count it (postVisitorMessage).
			const sender = { workspaceId, visitorId: session.id, ip: clientIp(c.req.raw.headers) };
			const limit = () => spendVisitorMessage(c.var.db, c.env, sender);
			const input = {
				workspaceId,
				conversationId: id,
				authorKind: 'contact' as const,
				authorId: null,
				text: body.text,
				attachments: [],
				clientMessageId: visitorClientId(session.id, body.clientMessageId),
			};
			const { message } = await postVisitorMessage(c.env, input, limit);
			return c.json(visitorView(message), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{workspaceId}/conversations/{id}/files',
			operationId: 'uploadVisitorFile',
			summary: 'Send a file (idempotent by clientMessageId)',
			description: `The body is the file itself (10 MiB at most): ${ACCEPTED_FILES}, told by its first bytes, whatever its name or Content-Type say (anything else is a 415). It is stored, and sent as a visitor message carrying it, which a bot asking for a file takes as the answer. Operators open it at \`GET /v3/files/{id}\`; the visitor at \`GET /widget/{workspaceId}/conversations/{id}/files/{fileId}\`.`,
			...visitorSession,
			request: {
				params: conversationParams,
				headers: sessionHeaders,
				query: z.object({
					name: z.string().max(255).optional().openapi({ description: 'The file’s name, as the visitor picked it.' }),
					clientMessageId: z
						.string()
						.min(1)
						.max(200)
						.openapi({ description: 'The widget’s id for this send: a retry stores and sends nothing new.' }),
				}),
				body: fileBytesBody,
			},
			responses: {
				201: jsonResponse('The stored message carrying the file.', messageSchema, {
					...visitorMessageExample,
					text: 'invoice.pdf',
					attachments: [
						{
							url: 'https://api.parley.example/v3/files/fil_3f7a9c2e4b1d8f60a5c7e9b2d4f6a8c0',
							name: 'invoice.pdf',
							contentType: 'application/pdf',
							size: 48213,
						},
					],
				}),
				...errorResponses(404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, id } = c.req.valid('param');
			const { name, clientMessageId } = c.req.valid('query');
			const session = await visitorIn(c, workspaceId, id);
			// A retry is answered from the stored message before anything is counted or stored; a new send is
			// counted, then its file stored, then the message that carries it posted.
			const sender = { workspaceId, visitorId: session.id, ip: clientIp(c.req.raw.headers) };
			const { message } = await postFileMessage(
				c.env,
				{
					workspaceId,
					conversationId: id,
					sender: session.id,
					author: { authorKind: 'contact', authorId: null },
					name,
					bytes: new Uint8Array(await c.req.arrayBuffer()),
					clientKey: clientMessageId,
					clientMessageId: visitorClientId(session.id, clientMessageId),
					private: false,
					// Always https: the deployment is, and message attachments are https links.
					origin: `https://${new URL(c.req.url).host}`,
				},
				() => spendVisitorMessage(c.var.db, c.env, sender),
			);
			return c.json(visitorView(message), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{workspaceId}/conversations/{id}/files/{fileId}',
			operationId: 'downloadVisitorFile',
			summary: 'Download a file of the visitor’s conversation',
			description:
				'The bytes of a file sent in this conversation (an attachment whose URL ends in `/v3/files/{fileId}`), as a download with its type as sniffed on upload. A file of the team’s private notes, or of another conversation, is not found.',
			...visitorSession,
			request: {
				params: conversationParams.extend({
					fileId: z
						.string()
						.max(64)
						.openapi({ description: 'The file id.', example: 'fil_3f7a9c2e4b1d8f60a5c7e9b2d4f6a8c0' }),
				}),
				headers: sessionHeaders,
			},
			responses: {
				200: {
					description: 'The file.',
					content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
				},
				...errorResponses(404, 422),
			},
		}),
		async (c) => {
			const { workspaceId, id, fileId } = c.req.valid('param');
			await visitorIn(c, workspaceId, id);
			return visitorFileDownload(c.env, workspaceId, id, fileId);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{workspaceId}/conversations/{id}/read',
			operationId: 'markVisitorRead',
			summary: 'The visitor read the conversation up to `seq`',
			description: 'Moves the visitor’s read position forward (never back); operators see it live.',
			...visitorSession,
			request: {
				params: conversationParams,
				headers: sessionHeaders,
				body: jsonBody(
					z
						.strictObject({
							seq: z
								.int()
								.min(0)
								.max(Number.MAX_SAFE_INTEGER)
								.openapi({ description: 'The last message the visitor has read.' }),
						})
						.openapi('VisitorReadReceipt'),
					{ seq: 2 },
				),
			},
			responses: {
				200: jsonResponse(
					'The visitor’s read position.',
					z
						.object({ readSeq: z.number().int().openapi({ description: 'The visitor’s read position.' }) })
						.openapi('VisitorReadPosition'),
					{ readSeq: 2 },
				),
				...errorResponses(400, 404, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, id } = c.req.valid('param');
			await visitorIn(c, workspaceId, id);
			const { seq: readSeq } = await markRead(c.env, workspaceId, id, 'contact', null, c.req.valid('json').seq);
			return c.json({ readSeq }, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{workspaceId}/conversations/{id}/live',
			operationId: 'connectVisitorSocket',
			summary: 'The conversation’s WebSocket for the visitor (session in the query: sockets carry no headers)',
			description:
				'Upgrades to a WebSocket (subprotocol `parley.v1`). The session comes as the `session.<token>` subprotocol or the `session` query parameter. Frames, close codes, limits and reconnection: docs/live-protocol.md.',
			...visitorSocketSession,
			request: {
				params: conversationParams,
				query: z.object({
					session: z.string().max(1024).optional().openapi({
						description: 'The session token; or offer the subprotocols `parley.v1` and `session.<token>`.',
					}),
					after: afterParam,
				}),
			},
			responses: {
				101: { description: 'Switching to the WebSocket protocol (frames: docs/live-protocol.md).' },
				...errorResponses(404, 422, 426),
			},
		}),
		async (c) => {
			const { workspaceId, id } = c.req.valid('param');
			const { session: inQuery, after } = c.req.valid('query');
			const token = inQuery ?? credentialFromSubprotocols(c.req.raw.headers, 'session.');
			const session = await authenticateForConversation(c.var.db, c.env, workspaceId, token, id);
			return connectToRoom(c.env, c.req.raw, {
				workspaceId,
				conversationId: id,
				role: 'contact',
				visitorId: session.id,
				canSend: true,
				ip: clientIp(c.req.raw.headers),
				after,
			});
		},
	);
