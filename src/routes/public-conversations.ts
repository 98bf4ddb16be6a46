/**
 * A visitor's conversations through the public widget endpoints (mounted at `/widget`, beside
 * public-widget.ts): the list, and starting one with its pre-chat fields and first message.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { createConversation, findStarted } from '../domain/conversation-changes';
import { postMessage } from '../domain/live';
import { visitorClientId, visitorView } from '../domain/messages';
import { applyDetails } from '../domain/visitor-identity';
import { clientIp, spendVisitorMessage } from '../domain/visitor-limits';
import {
	ensureContact,
	knownDetails,
	storedOrigin,
	visitorConversation,
	visitorConversationSchema,
	visitorConversations,
} from '../domain/visitor-sessions';
import { assertPrechatFields, loadWidgetSettings } from '../domain/widget-settings';
import { releaseEvents } from '../events/outbox';
import { errorResponses, jsonBody, jsonResponse, visitorSession } from '../lib/openapi';
import { visitorConversationExample, visitorMessageExample } from '../lib/openapi-examples';
import { createRouter } from '../lib/router';
import { startBody, startResponse } from '../protocol/widget-api';
import { sessionHeaders, visitor, workspaceParam } from './public-widget-params';

export const publicConversations = createRouter()
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
	);
