/**
 * A visitor's conversations through the public widget endpoints (mounted at `/widget`, beside
 * public-widget.ts): the list, and starting one with its pre-chat fields and first message.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { type MessageView, visitorClientId, visitorView } from '../../domain/conversations/messages';
import { startConversation } from '../../domain/conversations/start';
import { checkedCustomValues } from '../../domain/crm/custom-values';
import { assertPrechatFields, loadWidgetSettings } from '../../domain/widget/settings';
import { applyDetails } from '../../domain/widget/visitor-identity';
import { clientIp, spendVisitorMessage } from '../../domain/widget/visitor-limits';
import {
	ensureContact,
	knownDetails,
	storedOrigin,
	visitorConversationSchema,
	visitorConversations,
	visitorConversationView,
} from '../../domain/widget/visitor-sessions';
import { errorResponses, jsonBody, jsonResponse, visitorSession } from '../../http/openapi';
import { visitorConversationExample, visitorMessageExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';
import { startBody, startResponse } from './contract';
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
			// Checked before anything is spent or written: a refused answer changes nothing.
			const custom = await checkedCustomValues(c.var.db, workspaceId, 'contact', body.customFields ?? {});
			const sender = { workspaceId, visitorId: session.id, ip: clientIp(c.req.raw.headers) };
			const clientMessageId = visitorClientId(session.id, body.message.clientMessageId);
			// Only a new start (not a retry: same first clientMessageId) spends the visitor's message budget and
			// writes the pre-chat answers on the contact.
			const contact = async () => {
				await spendVisitorMessage(c.var.db, c.env, sender);
				const contactId = await ensureContact(c.var.db, c.env, session);
				if (body.details || Object.keys(custom).length > 0) {
					await applyDetails(c.var.db, c.env, workspaceId, contactId, body.details ?? {}, custom, Date.now());
				}
				return contactId;
			};
			const started = await startConversation(c.env, c.var.db, {
				workspaceId,
				contact,
				channel: 'widget',
				origin: storedOrigin(body.origin) ?? session.origin,
				startKey: clientMessageId,
				actor: { kind: 'contact', id: null },
				message: { authorKind: 'contact', authorId: null, text: body.message.text, clientMessageId },
				greeting: settings.autoMessage,
			});
			const conversation = await visitorConversationView(c.var.db, session, started.id);
			return c.json({ conversation, message: visitorView(started.message as MessageView) }, 201);
		},
	);
