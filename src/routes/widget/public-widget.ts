/**
 * The public widget endpoints: no Bearer token; the widget names its workspace in the path and proves its
 * visitor with the `Parley-Session` header (on the WebSocket, which cannot carry headers, as a subprotocol
 * or the `session` query parameter). CORS is open: any site may embed the widget, and no cookie is ever
 * involved. The bodies are defined in src/routes/widget/contract.ts, shared with the widget.
 *
 * This file holds what comes before a conversation: the site's config, the visitor's session, identify,
 * messaging-app handoffs and reset. A visitor's conversations are in public-conversations.ts, their
 * messages, read receipts and socket in public-messages.ts; all three are mounted at `/widget`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { disconnectVisitor } from '../../domain/conversations/live';
import { publicWidgetConfig, readPublicConfig } from '../../domain/widget/config';
import { recordHandoff } from '../../domain/widget/handoffs';
import { LOGO_TYPES, logoResponse } from '../../domain/widget/logo';
import { DEFAULT_WIDGET_SETTINGS, publicWidgetConfigSchema } from '../../domain/widget/settings';
import { beginVisit, identifySchema, identifyVisitor } from '../../domain/widget/visitor-identity';
import { clientIp, spendSessionStart } from '../../domain/widget/visitor-limits';
import { contactConversationIds, endSession } from '../../domain/widget/visitor-sessions';
import {
	errorResponses,
	jsonBody,
	jsonResponse,
	noCredential,
	optionalSession,
	visitorSession,
} from '../../http/openapi';
import { contactExample, handoffExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';
import { NotFound } from '../../lib/errors';
import { handoffBody, handoffResponse, identifiedResponse, sessionBody, sessionResponse } from './contract';
import { SESSION_HEADER, sessionHeaders, visitor, workspaceParam } from './public-widget-params';

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
			path: '/{workspaceId}/logo/{file}',
			operationId: 'getWidgetLogo',
			summary: 'The widget’s uploaded logo (what `logoUrl` names after PUT /v3/widget/logo)',
			description:
				"Public and cached for a year (`immutable`): the name is the SHA-256 of the image. Served with its sniffed type, `nosniff` and a `default-src 'none'` policy, so it is only ever an image.",
			...noCredential,
			request: {
				params: workspaceParam.extend({
					file: z
						.string()
						.max(80)
						.openapi({
							param: { name: 'file', in: 'path', description: 'The SHA-256 of the image and its extension.' },
							example: `${'3f7a9c2e4b1d8f60'.repeat(4)}.png`,
						}),
				}),
			},
			responses: {
				200: {
					description: 'The image.',
					content: Object.fromEntries(
						LOGO_TYPES.map((type) => [type, { schema: z.string().openapi({ format: 'binary' }) }]),
					),
					headers: { 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } },
				},
				...errorResponses(404),
			},
		}),
		(c) => {
			const { workspaceId, file } = c.req.valid('param');
			return logoResponse(c.env, workspaceId, file);
		},
	);
