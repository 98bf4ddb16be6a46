/**
 * The public widget endpoints: no Bearer token; the widget names its workspace in the path and proves its
 * visitor with the `Parley-Session` header (on the WebSocket, which cannot carry headers, as a subprotocol
 * or the `session` query parameter). CORS is open: any site may embed the widget, and no cookie is ever
 * involved. The bodies are defined in src/protocol/widget-api.ts, shared with the widget.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { createConversation, findStarted } from '../domain/conversation-changes';
import { connectToRoom, disconnectVisitor, markRead, postMessage, postVisitorMessage } from '../domain/live';
import { listMessages, messageSchema, messageView, visitorClientId, visitorView } from '../domain/messages';
import { recordHandoff } from '../domain/messaging-handoffs';
import { applyDetails, beginVisit, identifySchema, identifyVisitor } from '../domain/visitor-identity';
import { clientIp, spendSessionStart, spendVisitorMessage } from '../domain/visitor-limits';
import {
	authenticateSession,
	contactConversationIds,
	endSession,
	ensureContact,
	knownDetails,
	storedOrigin,
	visitorConversation,
	visitorConversationSchema,
	visitorConversations,
} from '../domain/visitor-sessions';
import {
	assertPrechatFields,
	DEFAULT_WIDGET_SETTINGS,
	loadWidgetSettings,
	publicWidgetConfig,
	publicWidgetConfigSchema,
	readPublicConfig,
} from '../domain/widget-settings';
import { releaseEvents } from '../events/outbox';
import { NotFound } from '../lib/errors';
import {
	errorResponses,
	idParam,
	jsonBody,
	jsonResponse,
	noCredential,
	optionalSession,
	visitorSession,
	visitorSocketSession,
} from '../lib/openapi';
import {
	contactExample,
	handoffExample,
	visitorConversationExample,
	visitorMessageExample,
} from '../lib/openapi-examples';
import { createRouter } from '../lib/router';
import { credentialFromSubprotocols } from '../protocol/live';
import {
	handoffBody,
	handoffResponse,
	identifiedResponse,
	sessionBody,
	sessionResponse,
	startBody,
	startResponse,
	visitorMessage,
} from '../protocol/widget-api';

const SESSION_HEADER = 'Parley-Session';

const workspaceParam = z.object({
	workspaceId: idParam('workspaceId', 'ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The workspace whose widget this is.'),
});
const conversationParams = workspaceParam.extend({
	id: idParam('id', 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'One of the visitor’s conversations.'),
});
const sessionHeaders = z.object({
	'parley-session': z.string().max(1024).optional().openapi({ description: 'The token from POST /sessions.' }),
});
const afterParam = z.coerce
	.number()
	.int()
	.min(0)
	.default(0)
	.openapi({ description: 'The last `seq` the widget has: only later messages come.' });

async function visitor(c: Context<AppEnv>, workspaceId: string) {
	return authenticateSession(c.var.db, c.env, workspaceId, c.req.header(SESSION_HEADER));
}

export const publicWidget = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/{workspaceId}/config',
			operationId: 'getWidgetConfig',
			summary: 'Public widget config (cacheable; revalidate with If-None-Match)',
			description: 'What every page view of a site with the widget loads first; served from the edge copy in KV.',
			...noCredential,
			request: {
				params: workspaceParam,
				headers: z.object({
					'if-none-match': z
						.string()
						.optional()
						.openapi({ description: 'The ETag of the config the widget holds.', example: '"1763726400000"' }),
				}),
			},
			responses: {
				200: {
					...jsonResponse(
						'The public config.',
						publicWidgetConfigSchema,
						publicWidgetConfig('ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', DEFAULT_WIDGET_SETTINGS, 1763726400000),
					),
					headers: {
						ETag: { $ref: '#/components/headers/ETag' },
						'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
					},
				},
				304: {
					description: 'Not modified since the ETag you sent.',
					headers: {
						ETag: { $ref: '#/components/headers/ETag' },
						'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
					},
				},
				...errorResponses(404),
			},
		}),
		async (c) => {
			const { workspaceId } = c.req.valid('param');
			const config = await readPublicConfig(c.var.db, c.env.WIDGET_CONFIG, workspaceId);
			if (!config) throw new NotFound(`Workspace ${workspaceId} not found.`);
			const etag = `"${config.version}"`;
			// Short freshness so a settings change shows within a minute; the widget revalidates in background.
			c.header('Cache-Control', 'public, max-age=60, stale-while-revalidate=86400');
			c.header('ETag', etag);
			if (c.req.header('If-None-Match') === etag) return c.body(null, 304);
			c.header('Content-Type', 'application/json; charset=utf-8');
			return c.body(config.json, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{workspaceId}/sessions',
			operationId: 'startVisitorSession',
			summary: 'Start or resume a visitor session',
			description:
				'Resumes the session whose token the browser kept, or starts a new anonymous one; the token then goes in `Parley-Session`.',
			...noCredential,
			request: {
				params: workspaceParam,
				body: jsonBody(sessionBody, { origin: { utmSource: 'newsletter', landingUrl: 'https://shop.example/tents' } }),
			},
			responses: {
				200: jsonResponse('The session (resumed or new) and its conversations.', sessionResponse, {
					visitorId: 'vis_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					sessionToken: 'pvs1.eyJ3cyI6IndzXzAxIn0.c2lnbmF0dXJl',
					resumed: false,
					conversations: [],
				}),
				...errorResponses(400, 404, 409, 415, 422, 503),
			},
		}),
		async (c) => {
			const { workspaceId } = c.req.valid('param');
			const body = c.req.valid('json');
			const limit = () => spendSessionStart(c.var.db, c.env, workspaceId, clientIp(c.req.raw.headers));
			return c.json(await beginVisit(c.var.db, c.env, workspaceId, body, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{workspaceId}/handoffs',
			operationId: 'recordMessagingHandoff',
			summary: 'Record the reference of a visitor leaving for the messaging app, with the campaign origin',
			description: 'Idempotent by reference: recording the same one again answers 200 with the stored handoff.',
			...optionalSession,
			request: {
				params: workspaceParam,
				headers: sessionHeaders,
				body: jsonBody(handoffBody, { ref: '7KQ2M9XD', channel: 'whatsapp' }),
			},
			responses: {
				201: jsonResponse('The recorded handoff.', handoffResponse, handoffExample),
				200: jsonResponse(
					'This reference was recorded before: the stored handoff, unchanged.',
					handoffResponse,
					handoffExample,
				),
				...errorResponses(400, 404, 415, 422, 503),
			},
		}),
		async (c) => {
			const { workspaceId } = c.req.valid('param');
			const body = c.req.valid('json');
			// Anyone may post one: it counts against the same per-IP budget as starting a session.
			await spendSessionStart(c.var.db, c.env, workspaceId, clientIp(c.req.raw.headers));
			// The session is optional (the bubble may be clicked before the widget has one), but one that is
			// sent must be valid, as everywhere else.
			const session = c.req.header(SESSION_HEADER) === undefined ? null : await visitor(c, workspaceId);
			const { handoff, created } = await recordHandoff(c.var.db, workspaceId, {
				ref: body.ref,
				channel: body.channel,
				origin: body.origin,
				session,
			});
			return created ? c.json(handoff, 201) : c.json(handoff, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{workspaceId}/identify',
			operationId: 'identifyVisitor',
			summary: 'Tell who the visitor is (verified with an identity JWT when the workspace has a secret)',
			description:
				'Attaches name, e-mail, phone and custom data to the visitor’s contact; with identity verification on, only a valid JWT makes the identity verified.',
			...visitorSession,
			request: {
				params: workspaceParam,
				headers: sessionHeaders,
				body: jsonBody(identifySchema, { name: 'Ada Lovelace', email: 'ada@example.com' }),
			},
			responses: {
				200: jsonResponse('The visitor’s contact and whether the identity was verified.', identifiedResponse, {
					contact: contactExample,
					verified: false,
					unverifiedReason: null,
				}),
				...errorResponses(400, 404, 409, 415, 422, 503),
			},
		}),
		async (c) => {
			const session = await visitor(c, c.req.valid('param').workspaceId);
			return c.json(await identifyVisitor(c.var.db, c.env, session, c.req.valid('json')), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{workspaceId}/reset',
			operationId: 'resetVisitorSession',
			summary: 'End the visitor session (the site’s logout); the widget starts a new anonymous one',
			description: 'The session token stops working and the visitor’s open sockets close.',
			...visitorSession,
			request: { params: workspaceParam, headers: sessionHeaders },
			responses: { 204: { description: 'The session token no longer works.' }, ...errorResponses() },
		}),
		async (c) => {
			const session = await visitor(c, c.req.valid('param').workspaceId);
			await endSession(c.var.db, session);
			const conversationIds = await contactConversationIds(c.var.db, session.workspaceId, session.contactId);
			await disconnectVisitor(c.env, conversationIds, session.id);
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{workspaceId}/conversations',
			operationId: 'listVisitorConversations',
			summary: 'The visitor’s conversations, most recent first',
			description: 'Only what a visitor may see of them.',
			...visitorSession,
			request: { params: workspaceParam, headers: sessionHeaders },
			responses: {
				200: jsonResponse(
					'Conversations.',
					z
						.object({ data: z.array(visitorConversationSchema).openapi({ description: 'Most recent first.' }) })
						.openapi('VisitorConversationList'),
					{ data: [visitorConversationExample] },
				),
				...errorResponses(),
			},
		}),
		async (c) => {
			const session = await visitor(c, c.req.valid('param').workspaceId);
			return c.json({ data: await visitorConversations(c.var.db, session) }, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{workspaceId}/conversations',
			operationId: 'startVisitorConversation',
			summary: 'Start a conversation: pre-chat fields (checked against the widget settings), origin, first message',
			description: 'Retrying with the same first `clientMessageId` finds the conversation the first attempt opened.',
			...visitorSession,
			request: {
				params: workspaceParam,
				headers: sessionHeaders,
				body: jsonBody(startBody, {
					details: { name: 'Ada Lovelace', email: 'ada@example.com' },
					message: { text: 'Is the Ridge 2 tent in stock?', clientMessageId: 'c8f3b0e2-5d1a-4f7e-9c61-2b0d3e4f5a6b' },
				}),
			},
			responses: {
				201: jsonResponse('The new conversation and its first message.', startResponse, {
					conversation: visitorConversationExample,
					message: visitorMessageExample,
				}),
				...errorResponses(400, 409, 415, 422, 503),
			},
		}),
		async (c) => {
			const { workspaceId } = c.req.valid('param');
			const body = c.req.valid('json');
			const session = await visitor(c, workspaceId);
			const { settings } = await loadWidgetSettings(c.var.db, workspaceId);
			const given = body.details ?? {};
			// The contact is read only when the form leaves a required field out (identify may have given it).
			const known = settings.requiredFields.some((f) => given[f] === undefined)
				? await knownDetails(c.var.db, session)
				: {};
			assertPrechatFields(settings, given, body.customFields ?? {}, known);
			const sender = { workspaceId, visitorId: session.id, ip: clientIp(c.req.raw.headers) };
			const startKey = visitorClientId(session.id, body.message.clientMessageId);
			// A retried start is not counted again: only a new one spends the visitor's message budget.
			if (!(await findStarted(c.var.db, workspaceId, startKey))) {
				await spendVisitorMessage(c.var.db, c.env, sender);
			}
			const contactId = await ensureContact(c.var.db, c.env, session);
			if (body.details || body.customFields) {
				const details = { ...body.details, ...(body.customFields ? { customData: body.customFields } : {}) };
				await applyDetails(c.var.db, c.env, workspaceId, contactId, details, Date.now());
			}
			// Retrying a start (same first clientMessageId) finds the conversation the first attempt opened.
			const created = await createConversation(
				c.var.db,
				workspaceId,
				{ contact: { id: contactId }, channel: 'widget' },
				{
					operatorId: null,
					origin: storedOrigin(body.origin) ?? session.origin,
					startKey,
				},
			);
			await releaseEvents(c.env, created.events);
			const { message } = await postMessage(c.env, {
				workspaceId,
				conversationId: created.id,
				authorKind: 'contact',
				authorId: null,
				text: body.message.text,
				attachments: [],
				clientMessageId: visitorClientId(session.id, body.message.clientMessageId),
			});
			if (settings.autoMessage && created.created) {
				// The workspace's automatic initial message, once per conversation (a retried start finds it).
				await postMessage(c.env, {
					workspaceId,
					conversationId: created.id,
					authorKind: 'bot',
					authorId: null,
					text: settings.autoMessage,
					attachments: [],
					clientMessageId: `auto:${created.id}`,
				});
			}
			const conversation = await visitorConversation(c.var.db, session, created.id);
			return c.json({ conversation, message: visitorView(message) }, 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{workspaceId}/conversations/{id}/messages',
			operationId: 'listVisitorMessages',
			summary: 'History of one of the visitor’s conversations, after a seq',
			description: 'Messages in `seq` order, as a visitor sees them.',
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
			const session = await visitor(c, workspaceId);
			await visitorConversation(c.var.db, session, id);
			const rows = await listMessages(c.var.db, workspaceId, id, after, limit);
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
			const session = await visitor(c, workspaceId);
			await visitorConversation(c.var.db, session, id);
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
							seq: z.number().int().min(0).openapi({ description: 'The last message the visitor has read.' }),
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
			const session = await visitor(c, workspaceId);
			await visitorConversation(c.var.db, session, id);
			const readSeq = await markRead(c.env, workspaceId, id, 'contact', null, c.req.valid('json').seq);
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
			const session = await authenticateSession(c.var.db, c.env, workspaceId, token);
			await visitorConversation(c.var.db, session, id);
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
