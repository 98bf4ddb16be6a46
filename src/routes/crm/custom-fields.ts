import { createRoute, z } from '@hono/zod-openapi';
import type { Database } from '../../db/client';
import {
	type CustomFieldDefinition,
	createCustomField,
	customFieldChangesSchema,
	customFieldCursor,
	customFieldDefinitionSchema,
	customFieldFiltersSchema,
	deleteCustomField,
	getCustomField,
	listCustomFields,
	newCustomFieldSchema,
	updateCustomField,
} from '../../domain/crm/custom-fields';
import { loadWidgetSettings } from '../../domain/widget/settings';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { etagged, ifMatch, ifMatchHeaders, tagged } from '../../lib/etag';
import { operatorActor } from '../../model/actor';

const example: z.input<typeof customFieldDefinitionSchema> = {
	id: 'cf_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	entity: 'contact',
	key: 'plan',
	label: 'Plan',
	type: 'select',
	options: ['free', 'pro', 'enterprise'],
	required: false,
	createdAt: '2026-11-23T12:00:00.000Z',
	updatedAt: '2026-11-23T12:00:00.000Z',
};
const idParams = z.object({ id: idParam('id', example.id, 'The custom field id.') });
const definitionPage = pageSchema('CustomFieldPage', customFieldDefinitionSchema, 'This page, by entity then key.');

/**
 * Why a definition cannot change so: the widget's pre-chat form offers an option the new options refuse
 * (visitors choosing it could not start a chat).
 */
async function refusedByForm(db: Database, workspaceId: string, after: CustomFieldDefinition) {
	if (after.entity !== 'contact' || after.options === null) return null;
	const { settings } = await loadWidgetSettings(db, workspaceId);
	const field = settings.customFields.find((f) => f.name === after.key);
	const missing = (field?.options ?? []).filter((option) => !after.options?.includes(option));
	return missing.length === 0
		? null
		: `The widget's pre-chat form offers ${missing.map((o) => `"${o}"`).join(', ')} for "${after.key}": change the widget settings first.`;
}

/** Why a definition cannot go: the widget's pre-chat form asks for it (its answers would have nowhere to go). */
async function inUse(db: Database, workspaceId: string, definition: CustomFieldDefinition) {
	if (definition.entity !== 'contact') return null;
	const { settings } = await loadWidgetSettings(db, workspaceId);
	return settings.customFields.some((f) => f.name === definition.key)
		? `The widget's pre-chat form asks for "${definition.key}": take it out of the widget settings' customFields first.`
		: null;
}

export const customFieldsRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listCustomFields',
			summary: "List the workspace's custom fields",
			description: 'The definitions of contacts and deals (or one of them), by entity then key.',
			...requires('admin'),
			request: { query: customFieldFiltersSchema.extend(pageQuery(100)) },
			responses: {
				200: jsonResponse('A page of definitions.', definitionPage, { data: [example], nextCursor: null }),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor, entity } = c.req.valid('query');
			const after = readCursor(cursor, customFieldCursor);
			return c.json(await listCustomFields(c.var.db, c.var.caller.workspaceId, entity, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createCustomField',
			summary: 'Define a custom field for contacts or deals',
			description:
				'Its key is what values are written under (`customFields.<key>`); a value for a key without a definition is refused. A key the entity has already is a 409, as is a 101st definition for one entity.',
			...requires('admin'),
			request: {
				body: jsonBody(newCustomFieldSchema, {
					entity: 'contact',
					key: 'plan',
					label: 'Plan',
					type: 'select',
					options: ['free', 'pro', 'enterprise'],
				}),
			},
			responses: {
				201: etagged(jsonResponse('The new definition.', customFieldDefinitionSchema, example)),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			return c.json(tagged(c, await createCustomField(c.env, c.var.db, workspaceId, c.req.valid('json'), actor)), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getCustomField',
			summary: 'One custom field definition',
			description: 'The definition, by id.',
			...requires('admin'),
			request: { params: idParams },
			responses: {
				200: etagged(jsonResponse('The definition.', customFieldDefinitionSchema, example)),
				...errorResponses(403, 404),
			},
		}),
		async (c) =>
			c.json(tagged(c, await getCustomField(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id)), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateCustomField',
			summary: "Change a custom field's label, options or required flag",
			description:
				"The key, entity and type are fixed. New options apply to the next write: values stored under a removed option stay until then. Removing an option the widget's pre-chat form offers is a 409.",
			...requires('admin'),
			request: {
				params: idParams,
				headers: ifMatchHeaders,
				body: jsonBody(customFieldChangesSchema, { label: 'Subscription plan' }),
			},
			responses: {
				200: etagged(jsonResponse('The definition as it now is.', customFieldDefinitionSchema, example)),
				...errorResponses(400, 403, 404, 409, 412, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			const { id } = c.req.valid('param');
			const check = (after: CustomFieldDefinition) => refusedByForm(c.var.db, workspaceId, after);
			const changes = c.req.valid('json');
			const field = await updateCustomField(c.env, c.var.db, workspaceId, id, changes, actor, check, ifMatch(c));
			return c.json(tagged(c, field), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteCustomField',
			summary: 'Delete a custom field and its values',
			description:
				"The values go from every contact or deal. A field the widget's pre-chat form asks for is a 409 until it is taken out of the widget settings.",
			...requires('admin'),
			request: { params: idParams, headers: ifMatchHeaders },
			responses: {
				204: { description: 'The definition and its values are gone.' },
				...errorResponses(403, 404, 409, 412),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const check = (definition: CustomFieldDefinition) => inUse(c.var.db, workspaceId, definition);
			await deleteCustomField(c.env, c.var.db, workspaceId, id, operatorActor(operatorId), check, ifMatch(c));
			return c.body(null, 204);
		},
	);
