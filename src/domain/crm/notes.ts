/**
 * Notes on contacts and deals: what an operator wrote after a call, or a conversation's transcript a rule
 * saved to the CRM. One function to add (for the routes, bots and rules alike) and one to list.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq } from 'drizzle-orm';
import { brokeGuard, type Database } from '../../db/client';
import { contacts, deals, notes } from '../../db/schema';
import { existsInWorkspace, linksGuard } from '../../db/scoped';
import { commit, release } from '../../events/commit';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../lib/cursor';
import { NotFound } from '../../lib/errors';
import { iso, newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { newEvent } from '../../model/events';

export const noteSchema = z
	.object({
		id: z.string().openapi({ description: 'The note id.', example: 'note_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		text: z.string().openapi({ description: 'What it says.' }),
		author: z
			.object({
				kind: z.string().openapi({ description: 'operator, bot, scenario, rule or system.' }),
				id: z.string().nullable().openapi({ description: 'Its id; null for the system.' }),
			})
			.openapi({ description: 'Who wrote it.' }),
		createdAt: z.string().openapi({ description: 'When it was written (ISO 8601).' }),
	})
	.openapi('Note');

export type NoteView = z.infer<typeof noteSchema>;

export const newNoteSchema = z
	.strictObject({
		text: z.string().trim().min(1).max(20_000).openapi({ description: 'Up to 20 000 characters (a transcript fits).' }),
	})
	.openapi('NewNote');

export interface NoteSubject {
	kind: 'contact' | 'deal';
	id: string;
}

type NoteRow = typeof notes.$inferSelect;

function noteView(row: NoteRow): NoteView {
	return {
		id: row.id,
		text: row.text,
		author: { kind: row.authorKind, id: row.authorId },
		createdAt: iso(row.createdAt),
	};
}

async function assertSubject(db: Database, workspaceId: string, subject: NoteSubject) {
	if (!(await existsInWorkspace(db, subject.kind === 'deal' ? deals : contacts, workspaceId, subject.id))) {
		throw new NotFound(`${subject.kind === 'deal' ? 'Deal' : 'Contact'} ${subject.id} not found.`);
	}
}

/** Adds a note to a contact or a deal, written by `actor`, with a `note.created` event. */
export async function addNote(
	env: Env,
	db: Database,
	workspaceId: string,
	subject: NoteSubject,
	text: string,
	actor: Actor,
	now = Date.now(),
): Promise<NoteView> {
	await assertSubject(db, workspaceId, subject);
	const row: NoteRow = {
		id: newId('note', now),
		workspaceId,
		subjectKind: subject.kind,
		subjectId: subject.id,
		authorKind: actor.kind,
		authorId: actor.id,
		text,
		createdAt: now,
	};
	const event = newEvent('note.created', workspaceId, actor, { note: { id: row.id, subject, text } }, now);
	const guard = linksGuard(workspaceId, [[subject.kind === 'deal' ? 'deals' : 'contacts', subject.id]]);
	const statements = [...(guard ? [guard] : []), db.insert(notes).values(row)];
	const committed = await commit(db, { statements, events: [event] }, (error) => {
		if (brokeGuard(error))
			throw new NotFound(`${subject.kind === 'deal' ? 'Deal' : 'Contact'} ${subject.id} not found.`);
		throw error;
	});
	await release(env, committed.events);
	return noteView(row);
}

/** One page of a contact's or a deal's notes, newest first (one statement after the subject's check). */
export async function listNotes(
	db: Database,
	workspaceId: string,
	subject: NoteSubject,
	after: NewestFirstCursor | null,
	limit: number,
) {
	await assertSubject(db, workspaceId, subject);
	const rows = await db
		.select()
		.from(notes)
		.where(
			and(
				eq(notes.workspaceId, workspaceId),
				eq(notes.subjectKind, subject.kind),
				eq(notes.subjectId, subject.id),
				afterNewestFirst(notes.createdAt, notes.id, after),
			),
		)
		.orderBy(desc(notes.createdAt), desc(notes.id))
		.limit(limit + 1);
	return pageOf(rows, limit, noteView, (row) => ({ at: row.createdAt, id: row.id }));
}
