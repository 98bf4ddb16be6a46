import { createRoute, z } from '@hono/zod-openapi';
import type { Permission } from '../../auth/permissions';
import { addNote, listNotes, type NoteSubject, newNoteSchema, noteSchema } from '../../domain/crm/notes';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { operatorActor } from '../../model/actor';

const noteExample: z.input<typeof noteSchema> = {
	id: 'note_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	text: 'Called: wants the proposal by Friday.',
	author: { kind: 'operator', id: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' },
	createdAt: '2026-11-23T12:00:00.000Z',
};
const notePage = pageSchema('NotePage', noteSchema, 'This page, newest first.');

/**
 * `GET` and `POST {prefix}/{id}/notes` for one kind of subject, under the permissions that read and write
 * its notes: added to that subject's router, as `tagSubresource` is.
 */
export function noteSubresource(
	kind: NoteSubject['kind'],
	read: Permission,
	write: Permission,
	texts: { listDescription: string; example: string },
) {
	const Kind = kind === 'contact' ? 'Contact' : 'Deal';
	const params = z.object({
		id: idParam(
			'id',
			kind === 'contact' ? 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' : 'deal_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
			`The ${kind} id.`,
		),
	});
	return createRouter()
		.openapi(
			createRoute({
				method: 'get',
				path: '/{id}/notes',
				operationId: `list${Kind}Notes`,
				summary: `A ${kind}'s notes, newest first`,
				description: texts.listDescription,
				...requires(read),
				request: { params, query: z.object(pageQuery(25)) },
				responses: {
					200: jsonResponse('A page of notes.', notePage, { data: [noteExample], nextCursor: null }),
					...errorResponses(403, 404, 422),
				},
			}),
			async (c) => {
				const { limit, cursor } = c.req.valid('query');
				const after = readCursor(cursor, newestFirstCursor);
				const subject = { kind, id: c.req.valid('param').id };
				return c.json(await listNotes(c.var.db, c.var.caller.workspaceId, subject, after, limit), 200);
			},
		)
		.openapi(
			createRoute({
				method: 'post',
				path: '/{id}/notes',
				operationId: `add${Kind}Note`,
				summary: `Add a note to a ${kind}`,
				description: 'Written by the token’s operator.',
				...requires(write),
				request: { params, body: jsonBody(newNoteSchema, { text: texts.example }) },
				responses: {
					201: jsonResponse('The note.', noteSchema, noteExample),
					...errorResponses(400, 403, 404, 413, 415, 422),
				},
			}),
			async (c) => {
				const { workspaceId, operatorId } = c.var.caller;
				const subject = { kind, id: c.req.valid('param').id };
				const text = c.req.valid('json').text;
				return c.json(await addNote(c.env, c.var.db, workspaceId, subject, text, operatorActor(operatorId)), 201);
			},
		);
}
