import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { contactFiltersSchema } from '../../domain/crm/contact-filters';
import {
	type ContactKey,
	contactChangesSchema,
	contactRecordSchema,
	contactUpsertSchema,
	createContact,
	getContact,
	listContacts,
	newContactSchema,
	updateContact,
	upsertContact,
} from '../../domain/crm/contact-records';
import { deleteContact, mergeContacts } from '../../domain/crm/contact-removal';
import { normalizePhone } from '../../domain/crm/contacts';
import { phoneNumber } from '../../domain/widget/settings';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { contactRecordExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { Invalid } from '../../lib/errors';
import { etagged, ifMatch, ifMatchHeaders, tagged } from '../../lib/etag';
import { operatorActor } from '../../model/actor';
import { emailAddress } from '../../model/email-address';

const idParams = z.object({ id: idParam('id', 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The contact id.') });
const contactPage = pageSchema('ContactPage', contactRecordSchema);
const emailParams = z.object({
	email: emailAddress()
		.transform((value) => value.toLowerCase())
		.openapi({
			param: { name: 'email', in: 'path', description: 'The e-mail (any case).' },
			example: 'ada@example.com',
		}),
});
const phoneParams = z.object({
	phone: phoneNumber.transform(normalizePhone).openapi({
		param: { name: 'phone', in: 'path', description: 'The phone with the country code (`+` optional).' },
		example: '+5511999998888',
	}),
});

/**
 * Both upserts: the key (which the body may repeat but not contradict), the upsert, and the record with
 * 201 when it was created, 200 when it was found.
 */
async function upsertAnswer(c: Context<AppEnv>, key: ContactKey, body: z.infer<typeof contactUpsertSchema>) {
	const repeated = body[key.field];
	if (repeated !== undefined && repeated !== key.value) {
		throw new Invalid(`must be the ${key.field} of the path, or left out`, { field: [key.field] });
	}
	const { workspaceId, operatorId } = c.var.caller;
	const { id, created } = await upsertContact(c.env, c.var.db, workspaceId, key, body, operatorActor(operatorId));
	return { record: await getContact(c.var.db, workspaceId, id), status: created ? (201 as const) : (200 as const) };
}

const mergeBodySchema = z
	.strictObject({
		duplicateId: z.string().min(1).max(64).openapi({ description: 'The contact to merge in, then delete.' }),
	})
	.openapi('ContactMerge');

const upsertResponses = {
	200: jsonResponse('The contact existed: it now has the fields given.', contactRecordSchema, contactRecordExample),
	201: jsonResponse('The contact was created.', contactRecordSchema, contactRecordExample),
	...errorResponses(400, 403, 409, 413, 415, 422),
};

export const contactsRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listContacts',
			summary: 'List contacts, newest first',
			description:
				'The contact database, searched by name, e-mail or phone and filtered by tag, campaign origin or time, and paged with an opaque cursor.',
			...requires('conversations:read'),
			request: { query: contactFiltersSchema.extend(pageQuery(25)) },
			responses: {
				200: jsonResponse('A page of contacts.', contactPage, { data: [contactRecordExample], nextCursor: null }),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor, ...filters } = c.req.valid('query');
			const after = readCursor(cursor, newestFirstCursor);
			return c.json(await listContacts(c.var.db, c.var.caller.workspaceId, filters, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createContact',
			summary: 'Create a contact',
			description:
				'At least one of name, e-mail and phone. E-mail and phone are unique in the workspace: to find or create by one of them, use the upserts below.',
			...requires('contacts:write'),
			request: { body: jsonBody(newContactSchema, { name: 'Ada Lovelace', email: 'ada@example.com' }) },
			responses: {
				201: etagged(jsonResponse('The new contact.', contactRecordSchema, contactRecordExample)),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			const id = await createContact(c.env, c.var.db, workspaceId, c.req.valid('json'), actor);
			return c.json(tagged(c, await getContact(c.var.db, workspaceId, id)), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getContact',
			summary: 'One contact with its tags, origins and open deal count',
			description: 'The contact record: its fields, tags, first and latest campaign origin and open deals.',
			...requires('conversations:read'),
			request: { params: idParams },
			responses: {
				200: etagged(jsonResponse('The contact.', contactRecordSchema, contactRecordExample)),
				...errorResponses(403, 404),
			},
		}),
		async (c) => c.json(tagged(c, await getContact(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id)), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateContact',
			summary: "Change a contact's name, e-mail, phone or custom values",
			description:
				'Give at least one field; the others stay as they are; null clears one. Custom values are written key by key: keys left out keep their values.',
			...requires('contacts:write'),
			request: {
				params: idParams,
				headers: ifMatchHeaders,
				body: jsonBody(contactChangesSchema, { phone: '+5511999998888' }),
			},
			responses: {
				200: etagged(jsonResponse('The updated contact.', contactRecordSchema, contactRecordExample)),
				...errorResponses(400, 403, 404, 409, 412, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const actor = operatorActor(operatorId);
			await updateContact(c.env, c.var.db, workspaceId, id, c.req.valid('json'), actor, ifMatch(c));
			return c.json(tagged(c, await getContact(c.var.db, workspaceId, id)), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteContact',
			summary: 'Delete a contact that has no conversations',
			description:
				'Its tags go, its widget sessions end and its deals stay without a contact. A contact with conversations is a 409.',
			...requires('contacts:write'),
			request: { params: idParams, headers: ifMatchHeaders },
			responses: { 204: { description: 'The contact is deleted.' }, ...errorResponses(403, 404, 409, 412) },
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			await deleteContact(c.env, c.var.db, workspaceId, c.req.valid('param').id, actor, ifMatch(c));
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/merge',
			operationId: 'mergeContacts',
			summary: 'Merge a duplicate into this contact',
			description:
				"The duplicate's conversations, tags, deals and widget sessions move to this contact, which takes the name, e-mail, phone and custom values it lacked (its own win); then the duplicate is deleted. Opted out when either was. Two contacts verified as different users of the site are a 409.",
			...requires('contacts:write'),
			request: {
				params: idParams,
				body: jsonBody(mergeBodySchema, { duplicateId: 'ctc_01JD3Q9A0B1C2D3E4F5G6H7J8K' }),
			},
			responses: {
				200: jsonResponse('The contact, with everything of the duplicate.', contactRecordSchema, contactRecordExample),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const { duplicateId } = c.req.valid('json');
			await mergeContacts(c.env, c.var.db, workspaceId, id, duplicateId, operatorActor(operatorId));
			return c.json(await getContact(c.var.db, workspaceId, id), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'put',
			path: '/by-email/{email}',
			operationId: 'upsertContactByEmail',
			summary: 'Find a contact by e-mail and update it, or create it',
			description:
				'Safe to call concurrently: one contact per e-mail, whatever the number of identical calls. The body may repeat the e-mail, not change it.',
			...requires('contacts:write'),
			request: { params: emailParams, body: jsonBody(contactUpsertSchema, { name: 'Ada Lovelace' }) },
			responses: upsertResponses,
		}),
		async (c) => {
			const upserted = await upsertAnswer(
				c,
				{ field: 'email', value: c.req.valid('param').email },
				c.req.valid('json'),
			);
			return c.json(upserted.record, upserted.status);
		},
	)
	.openapi(
		createRoute({
			method: 'put',
			path: '/by-phone/{phone}',
			operationId: 'upsertContactByPhone',
			summary: 'Find a contact by phone and update it, or create it',
			description:
				'Safe to call concurrently: one contact per phone, whatever the number of identical calls. The body may repeat the phone, not change it.',
			...requires('contacts:write'),
			request: { params: phoneParams, body: jsonBody(contactUpsertSchema, { name: 'Ada Lovelace' }) },
			responses: upsertResponses,
		}),
		async (c) => {
			const upserted = await upsertAnswer(
				c,
				{ field: 'phone', value: c.req.valid('param').phone },
				c.req.valid('json'),
			);
			return c.json(upserted.record, upserted.status);
		},
	);
