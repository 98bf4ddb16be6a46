import { and, eq, inArray, sql } from 'drizzle-orm';
import {
	batchGuard,
	brokeGuard,
	brokeVersionGuard,
	type Database,
	nextVersion,
	type Statement,
	versionGuard,
	violatesForeignKey,
} from '../../db/client';
import { contacts, contactTags, conversations, deals, notes, tasks, visitorSessions } from '../../db/schema';
import { rowsLinkedTo } from '../../db/scoped';
import { commit, IF_CHANGED, release } from '../../events/commit';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { assertVersion, changedSince, type ExpectedVersion, expectsVersion } from '../../lib/expected-version';
import type { Actor } from '../../model/actor';
import { changesOf, type DomainEvent, newEvent } from '../../model/events';
import { conversationsMoved } from '../conversations/conversations';
import { type ContactRow, inWorkspace, uniqueConflict } from './contact-records';
import { contactEventView } from './contacts';
import { dealsMoved } from './deal-events';

/**
 * Deletes a contact that has no conversation (a 409 says to delete or merge those first), with a
 * `contact.deleted` event: its tags go, its widget sessions end (a browser no longer speaks as it) and its
 * deals and tasks stay, without a contact; its notes go. The batch is all or nothing: a conversation started meanwhile makes the
 * delete fail on its foreign key, and nothing else of it applies.
 */
export async function deleteContact(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	actor: Actor,
	/** The version the caller read (If-Match): deleted only while it is current, else a 412. */
	expected?: ExpectedVersion,
	now = Date.now(),
): Promise<void> {
	const current = await db.select().from(contacts).where(inWorkspace(workspaceId, id)).get();
	if (!current) throw new NotFound(`Contact ${id} not found.`);
	assertVersion(expected, current.updatedAt, `Contact ${id}`);
	const hasConversations = () =>
		new Conflict(
			`Contact ${id} has conversations: a contact is deleted with none left (merge it into another contact instead).`,
		);
	const conversation = await db
		.select({ id: conversations.id })
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.contactId, id)))
		.get();
	if (conversation) throw hasConversations();
	const atVersion = sql`EXISTS (SELECT 1 FROM ${contacts} WHERE ${and(inWorkspace(workspaceId, id), eq(contacts.updatedAt, current.updatedAt))})`;
	const statements: Statement[] = [
		...(expectsVersion(expected) ? [versionGuard(atVersion)] : []),
		db.delete(contactTags).where(and(eq(contactTags.workspaceId, workspaceId), eq(contactTags.contactId, id))),
		db
			.update(visitorSessions)
			.set({ contactId: null, endedAt: sql`coalesce(${visitorSessions.endedAt}, ${now})` })
			.where(and(eq(visitorSessions.workspaceId, workspaceId), eq(visitorSessions.contactId, id))),
		db
			.update(deals)
			.set({ contactId: null, updatedAt: nextVersion(deals.updatedAt, now) })
			.where(and(eq(deals.workspaceId, workspaceId), eq(deals.contactId, id))),
		db
			.delete(notes)
			.where(and(eq(notes.workspaceId, workspaceId), eq(notes.subjectKind, 'contact'), eq(notes.subjectId, id))),
		db
			.update(tasks)
			.set({ contactId: null, updatedAt: now })
			.where(and(eq(tasks.workspaceId, workspaceId), eq(tasks.contactId, id))),
		db.delete(contacts).where(inWorkspace(workspaceId, id)),
	];
	const event = newEvent('contact.deleted', workspaceId, actor, { contact: contactEventView(current) }, now);
	const committed = await commit(db, { statements, events: [{ event, onlyIf: IF_CHANGED }] }, (error) => {
		if (brokeVersionGuard(error)) throw changedSince(`Contact ${id}`);
		if (violatesForeignKey(error)) throw hasConversations();
		throw error;
	});
	await release(env, committed.events);
}

/** The fields a merge fills on the surviving contact from the duplicate, when the survivor has none. */
const FILLED = ['name', 'email', 'phone', 'externalId', 'claimedEmail', 'claimedPhone'] as const;

/**
 * What the surviving contact becomes: its own values first, the duplicate's where it has none; the custom
 * values likewise key by key; the first campaign touch of whichever was created first and the latest touch of
 * whichever changed last; verified and opted out when either was (withdrawn consent is never undone by a
 * merge); created when the older was.
 */
function mergedRow(survivor: ContactRow, duplicate: ContactRow, now: number): ContactRow {
	const older = duplicate.createdAt < survivor.createdAt ? duplicate : survivor;
	const newer = duplicate.updatedAt > survivor.updatedAt ? duplicate : survivor;
	const optedOut = [survivor, duplicate]
		.filter((c) => c.optedOutAt !== null)
		.sort((a, b) => (a.optedOutAt ?? 0) - (b.optedOutAt ?? 0))[0];
	const verified = [survivor.verifiedAt, duplicate.verifiedAt].filter((at): at is number => at !== null);
	return {
		...survivor,
		...Object.fromEntries(FILLED.map((field) => [field, survivor[field] ?? duplicate[field]])),
		customFields: { ...duplicate.customFields, ...survivor.customFields },
		firstOrigin: older.firstOrigin ?? (older === survivor ? duplicate : survivor).firstOrigin,
		lastOrigin: newer.lastOrigin ?? (newer === survivor ? duplicate : survivor).lastOrigin,
		verifiedAt: verified.length > 0 ? Math.min(...verified) : null,
		optedOutAt: optedOut?.optedOutAt ?? null,
		optedOutSource: optedOut?.optedOutSource ?? null,
		createdAt: older.createdAt,
		updatedAt: Math.max(now, survivor.updatedAt + 1),
	};
}

/**
 * Merges the contact `duplicateId` into `id` and deletes it, with a `contact.merged` event: its conversations,
 * tags, deals, notes, tasks and widget sessions move to the survivor, which takes the values it lacked (see `mergedRow`).
 * Each moved conversation and deal is announced (`conversation.updated`, `deal.updated`). One batch, guarded
 * on both contacts and the moving conversations and deals being as read, so a concurrent change makes the
 * merge a 409 (retry) rather than losing it or moving something unannounced. Two contacts the
 * site verified as different users (two external ids) are never merged (409).
 */
export async function mergeContacts(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	duplicateId: string,
	actor: Actor,
	now = Date.now(),
): Promise<void> {
	if (duplicateId === id)
		throw new Invalid('must be another contact than the one merged into', { field: ['duplicateId'] });
	const rows = await db
		.select()
		.from(contacts)
		.where(and(eq(contacts.workspaceId, workspaceId), inArray(contacts.id, [id, duplicateId])));
	const survivor = rows.find((row) => row.id === id);
	const duplicate = rows.find((row) => row.id === duplicateId);
	if (!survivor) throw new NotFound(`Contact ${id} not found.`);
	if (!duplicate) throw new NotFound(`Contact ${duplicateId} not found.`);
	if (survivor.externalId !== null && duplicate.externalId !== null && survivor.externalId !== duplicate.externalId) {
		throw new Conflict(
			`Contacts ${id} and ${duplicateId} were verified as different users of the site (two external ids): they are not merged.`,
		);
	}
	const merged = mergedRow(survivor, duplicate, now);
	// The short id is generated by D1 from the id: never written.
	const { id: _id, workspaceId: _ws, shortId: _short, ...values } = merged;
	const ws = workspaceId;
	// What moves, read to announce each move; the batch is guarded on these being all that moves.
	const [movingConversations, movingDeals] = await Promise.all([
		rowsLinkedTo(db, conversations, conversations.contactId, ws, duplicateId),
		rowsLinkedTo(db, deals, deals.contactId, ws, duplicateId),
	]);
	const statements: Statement[] = [
		batchGuard(
			sql`(SELECT count(*) FROM contacts WHERE workspace_id = ${ws} AND ((id = ${id} AND updated_at = ${survivor.updatedAt}) OR (id = ${duplicateId} AND updated_at = ${duplicate.updatedAt}))) = 2
				AND ${movingConversations.unchanged} AND ${movingDeals.unchanged}`,
		),
		// The duplicate lets go of its unique values first, so the survivor can take them in the same batch.
		db.update(contacts).set({ email: null, phone: null, externalId: null }).where(inWorkspace(ws, duplicateId)),
		db.update(contacts).set(values).where(inWorkspace(ws, id)),
		db.update(conversations).set({ contactId: id }).where(movingConversations.where),
		sql`INSERT OR IGNORE INTO contact_tags (workspace_id, contact_id, tag_id)
			SELECT workspace_id, ${id}, tag_id FROM contact_tags WHERE workspace_id = ${ws} AND contact_id = ${duplicateId}`,
		db.delete(contactTags).where(and(eq(contactTags.workspaceId, ws), eq(contactTags.contactId, duplicateId))),
		db
			.update(deals)
			.set({ contactId: id, updatedAt: nextVersion(deals.updatedAt, now) })
			.where(movingDeals.where),
		db
			.update(visitorSessions)
			.set({ contactId: id })
			.where(and(eq(visitorSessions.workspaceId, ws), eq(visitorSessions.contactId, duplicateId))),
		db
			.update(notes)
			.set({ subjectId: id })
			.where(and(eq(notes.workspaceId, ws), eq(notes.subjectKind, 'contact'), eq(notes.subjectId, duplicateId))),
		db
			.update(tasks)
			.set({ contactId: id, updatedAt: now })
			.where(and(eq(tasks.workspaceId, ws), eq(tasks.contactId, duplicateId))),
		db.delete(contacts).where(inWorkspace(ws, duplicateId)),
	];
	const filled: Record<string, { from: unknown; to: unknown }> = {};
	for (const field of FILLED) {
		if (survivor[field] !== merged[field]) filled[field] = { from: survivor[field], to: merged[field] };
	}
	if (survivor.verifiedAt === null && merged.verifiedAt !== null) filled.verified = { from: false, to: true };
	if (survivor.optedOutAt === null && merged.optedOutAt !== null) filled.optedOut = { from: false, to: true };
	for (const [key, value] of Object.entries(duplicate.customFields)) {
		if (survivor.customFields[key] === undefined) filled[`customFields.${key}`] = { from: null, to: value };
	}
	const payload = {
		contact: contactEventView(merged),
		duplicate: contactEventView(duplicate),
		...changesOf(filled),
	};
	const events: DomainEvent[] = [
		newEvent('contact.merged', ws, actor, payload, now),
		...conversationsMoved(ws, actor, movingConversations.rows, 'contactId', id, now),
		...dealsMoved(ws, actor, movingDeals.rows, 'contactId', id, now),
	];
	const committed = await commit(db, { statements, events }, (error) => {
		if (brokeGuard(error)) {
			throw new Conflict(`Contact ${id} or ${duplicateId} changed while they were merged; retry.`, { cause: error });
		}
		return uniqueConflict(error);
	});
	await release(env, committed.events);
}
