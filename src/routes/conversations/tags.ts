import { createRoute, z } from '@hono/zod-openapi';
import type { Permission } from '../../auth/permissions';
import { tagNameSchema } from '../../domain/conversations/conversations';
import {
	applyTag,
	createTag,
	deleteTag,
	getTag,
	listTags,
	removeTag,
	renameTag,
	type TagTarget,
	tagBodySchema,
	tagCursor,
	tagSchema,
} from '../../domain/conversations/tags';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { operatorActor } from '../../model/actor';

const tagExample = { id: 'tag_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'vip', createdAt: '2026-11-21T12:00:00.000Z' };
const idParams = z.object({ id: idParam('id', 'tag_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The tag id.') });
const tagPage = pageSchema('TagPage', tagSchema, 'This page, by name.');

export const tagsRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listTags',
			summary: "List the workspace's tags by name",
			description: 'Every tag of the workspace in name order, paged with an opaque cursor.',
			...requires('conversations:read'),
			request: { query: z.object(pageQuery(100)) },
			responses: {
				200: jsonResponse('A page of tags.', tagPage, { data: [tagExample], nextCursor: null }),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor } = c.req.valid('query');
			const after = readCursor(cursor, tagCursor);
			return c.json(await listTags(c.var.db, c.var.caller.workspaceId, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createTag',
			summary: 'Create a tag',
			description:
				'A name taken in the workspace is a 409. Applying an unknown name to a contact or a conversation creates it too.',
			...requires('contacts:write'),
			request: { body: jsonBody(tagBodySchema, { name: 'vip' }) },
			responses: {
				201: jsonResponse('The new tag.', tagSchema, tagExample),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			return c.json(await createTag(c.env, c.var.db, workspaceId, c.req.valid('json').name, actor), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getTag',
			summary: 'One tag',
			description: 'The tag, by id.',
			...requires('conversations:read'),
			request: { params: idParams },
			responses: { 200: jsonResponse('The tag.', tagSchema, tagExample), ...errorResponses(403, 404) },
		}),
		async (c) => c.json(await getTag(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'renameTag',
			summary: 'Rename a tag',
			description:
				'Contacts and conversations keep the tag under its new name. A name taken in the workspace is a 409.',
			...requires('contacts:write'),
			request: { params: idParams, body: jsonBody(tagBodySchema, { name: 'priority' }) },
			responses: {
				200: jsonResponse('The renamed tag.', tagSchema, { ...tagExample, name: 'priority' }),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			const { id } = c.req.valid('param');
			return c.json(await renameTag(c.env, c.var.db, workspaceId, id, c.req.valid('json').name, actor), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteTag',
			summary: 'Delete a tag',
			description: 'The tag goes from the workspace and from every contact and conversation that carried it.',
			...requires('contacts:write'),
			request: { params: idParams },
			responses: { 204: { description: 'The tag is deleted.' }, ...errorResponses(403, 404) },
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			await deleteTag(c.env, c.var.db, workspaceId, c.req.valid('param').id, actor);
			return c.body(null, 204);
		},
	);

/**
 * `PUT` and `DELETE {prefix}/{id}/tags/{name}` for one kind of target, under the permission that writes it:
 * added to that target's router.
 */
export function tagSubresource(kind: TagTarget['kind'], permission: Permission) {
	const what = kind === 'contact' ? 'contact' : 'conversation';
	const params = z.object({
		id: idParam(
			'id',
			kind === 'contact' ? 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' : 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
			`The ${what} id.`,
		),
		name: tagNameSchema.openapi({ param: { name: 'name', in: 'path', description: 'The tag name.' }, example: 'vip' }),
	});
	const operation = kind === 'contact' ? 'Contact' : 'Conversation';
	return createRouter()
		.openapi(
			createRoute({
				method: 'put',
				path: '/{id}/tags/{name}',
				operationId: `apply${operation}Tag`,
				summary: `Apply a tag to a ${what}`,
				description: `Idempotent: a ${what} that carries the tag already is left as it is. A name the workspace has no tag of creates the tag.`,
				...requires(permission),
				request: { params },
				responses: {
					200: jsonResponse('The tag applied.', tagSchema, tagExample),
					...errorResponses(403, 404, 409, 422),
				},
			}),
			async (c) => {
				const { workspaceId, operatorId } = c.var.caller;
				const { id, name } = c.req.valid('param');
				const actor = operatorActor(operatorId);
				return c.json(await applyTag(c.env, c.var.db, workspaceId, { kind, id }, name, actor), 200);
			},
		)
		.openapi(
			createRoute({
				method: 'delete',
				path: '/{id}/tags/{name}',
				operationId: `remove${operation}Tag`,
				summary: `Take a tag off a ${what}`,
				description: `Idempotent: a ${what} without the tag is left as it is.`,
				...requires(permission),
				request: { params },
				responses: { 204: { description: `The ${what} does not carry the tag.` }, ...errorResponses(403, 404, 422) },
			}),
			async (c) => {
				const { workspaceId, operatorId } = c.var.caller;
				const { id, name } = c.req.valid('param');
				const actor = operatorActor(operatorId);
				await removeTag(c.env, c.var.db, workspaceId, { kind, id }, name, actor);
				return c.body(null, 204);
			},
		);
}
