import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { hasPermission } from '../../auth/permissions';
import {
	type CannedReplyCaller,
	cannedReplyChangesSchema,
	cannedReplyCursor,
	cannedReplyFiltersSchema,
	cannedReplySchema,
	createCannedReply,
	deleteCannedReply,
	getCannedReply,
	listCannedReplies,
	MAX_CANNED_REPLIES,
	newCannedReplySchema,
	renderCannedReply,
	renderedReplySchema,
	renderRequestSchema,
	updateCannedReply,
} from '../../domain/conversations/canned-replies';
import { errorResponses, forbiddenResponse, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { operatorActor } from '../../model/actor';

const at = '2026-11-23T12:00:00.000Z';
const replyExample: z.input<typeof cannedReplySchema> = {
	id: 'cr_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	shortcut: 'refund',
	title: 'Refund policy',
	text: 'Hi {{ contact.name | default: "there" }}, refunds take 5 business days.',
	authorId: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	createdAt: at,
	updatedAt: at,
};
const idParams = z.object({ id: idParam('id', replyExample.id, 'The canned reply id.') });

/** The caller as the reply functions see it: its author and admins manage a reply. */
function replyCaller(c: Context<AppEnv>): CannedReplyCaller {
	const { operatorId, permissions } = c.var.caller;
	return { actor: operatorActor(operatorId), operatorId, admin: hasPermission(permissions, 'admin') };
}

const authorOrAdmin = 'Its author or an admin only (403 for anyone else, who still reads and uses it).';

/** What `authorOrAdmin` refuses: the domain's rule, besides the permission the route names. */
const notTheAuthor = forbiddenResponse(
	'The caller is neither the reply’s author nor an admin: they may read and use it, not change or delete it.',
	'Only the author of this canned reply or an admin may change or delete it.',
);

export const cannedRepliesRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listCannedReplies',
			summary: 'List the workspace’s canned replies by shortcut',
			description:
				'Every reply of the workspace in shortcut order, filtered by `q` (what the composer typed after `/`), paged with an opaque cursor.',
			...requires('conversations:read'),
			request: { query: cannedReplyFiltersSchema.extend(pageQuery(100)) },
			responses: {
				200: jsonResponse(
					'A page of canned replies.',
					pageSchema('CannedReplyPage', cannedReplySchema, 'This page, by shortcut.'),
					{ data: [replyExample], nextCursor: null },
				),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor, ...filters } = c.req.valid('query');
			const after = readCursor(cursor, cannedReplyCursor);
			return c.json(await listCannedReplies(c.var.db, c.var.caller.workspaceId, filters, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createCannedReply',
			summary: 'Save a canned reply',
			description: `By the caller, who may then change or delete it. A shortcut taken in the workspace is a 409, as is a workspace that has ${MAX_CANNED_REPLIES} already; a text that is not a valid Liquid template a 422.`,
			...requires('messages:send'),
			request: {
				body: jsonBody(newCannedReplySchema, {
					shortcut: 'refund',
					title: 'Refund policy',
					text: 'Hi {{ contact.name | default: "there" }}, refunds take 5 business days.',
				}),
			},
			responses: {
				201: jsonResponse('The new canned reply.', cannedReplySchema, replyExample),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const reply = await createCannedReply(c.env, c.var.db, workspaceId, c.req.valid('json'), replyCaller(c));
			return c.json(reply, 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getCannedReply',
			summary: 'One canned reply',
			description: 'The reply, by id.',
			...requires('conversations:read'),
			request: { params: idParams },
			responses: {
				200: jsonResponse('The canned reply.', cannedReplySchema, replyExample),
				...errorResponses(403, 404),
			},
		}),
		async (c) => c.json(await getCannedReply(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateCannedReply',
			summary: 'Change a canned reply',
			description: `Its shortcut (409 when taken), title (null clears it) or text (422 when not a valid template). ${authorOrAdmin}`,
			...requires('messages:send'),
			request: { params: idParams, body: jsonBody(cannedReplyChangesSchema, { title: 'Refunds' }) },
			responses: {
				200: jsonResponse('The canned reply as it now is.', cannedReplySchema, { ...replyExample, title: 'Refunds' }),
				...errorResponses(400, 404, 409, 413, 415, 422),
				...notTheAuthor,
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const { workspaceId } = c.var.caller;
			const reply = await updateCannedReply(c.env, c.var.db, workspaceId, id, c.req.valid('json'), replyCaller(c));
			return c.json(reply, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteCannedReply',
			summary: 'Delete a canned reply',
			description: authorOrAdmin,
			...requires('messages:send'),
			request: { params: idParams },
			responses: {
				204: { description: 'The canned reply is deleted.' },
				...errorResponses(404),
				...notTheAuthor,
			},
		}),
		async (c) => {
			await deleteCannedReply(c.env, c.var.db, c.var.caller.workspaceId, c.req.valid('param').id, replyCaller(c));
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/render',
			operationId: 'renderCannedReply',
			summary: 'A canned reply’s text for one conversation',
			description:
				'Renders the template for the conversation’s contact (`contact.name`, `contact.email`, `contact.custom_fields.…`), the conversation, and the calling operator as `agent`: what the composer inserts. Sends nothing. A conversation not in the workspace is a 422 on `conversationId`.',
			...requires('conversations:read'),
			request: {
				params: idParams,
				body: jsonBody(renderRequestSchema, { conversationId: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
			},
			responses: {
				200: jsonResponse('The rendered text.', renderedReplySchema, {
					text: 'Hi Ana, refunds take 5 business days.',
				}),
				...errorResponses(400, 403, 404, 413, 415, 422),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const { workspaceId, operatorId } = c.var.caller;
			const { conversationId } = c.req.valid('json');
			return c.json(await renderCannedReply(c.var.db, workspaceId, id, conversationId, operatorId), 200);
		},
	);
