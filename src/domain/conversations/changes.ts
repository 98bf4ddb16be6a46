/**
 * Starting and changing conversations. Checks run first; every write goes in one D1 batch together with
 * its events (`commit`), so a refused request changes nothing and a committed change always announces
 * itself. Messages are not written here: they go through the conversation's room (src/domain/conversations/live.ts);
 * starting a conversation with its first messages is src/domain/conversations/start.ts.
 */
import { and, eq, or, sql } from 'drizzle-orm';
import { type Database, type Statement, violatesForeignKey, violatesUnique } from '../../db/client';
import { contacts, conversations, conversationTags } from '../../db/schema';
import { existsInWorkspace } from '../../db/scoped';
import { type Change, commit, release } from '../../events/commit';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { changesOf, newEvent } from '../../model/events';
import type { WhatsappReferral } from '../../model/whatsapp';
import { type ContactReference, contactEventView, normalizePhone } from '../crm/contacts';
import { assertAssignment, assignmentGone, assignmentGuard } from '../team/assignees';
import { type ConversationChanges, conversationSummary } from './conversations';
import { MAX_SNOOZE_MS, snoozeRoom } from './snooze';
import { ensureTags } from './tags';

/** A tag by id and name, as `ensureTags` found or created it. */
type TagRef = { id: string; name: string };

/** The conversation's tags as `[{ id, name }]` JSON, in the row's own select. */
const tagRefs = sql<string>`(SELECT json_group_array(json_object('id', t.id, 'name', t.name)) FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.workspace_id = conversations.workspace_id AND ct.conversation_id = conversations.id)`;

/** Statements that make the conversation's tag set exactly `tagged` (tags that exist: see `ensureTags`). */
function replaceTagsStatements(
	db: Database,
	workspaceId: string,
	conversationId: string,
	tagged: TagRef[],
): Statement[] {
	const statements: Statement[] = [
		db
			.delete(conversationTags)
			.where(and(eq(conversationTags.workspaceId, workspaceId), eq(conversationTags.conversationId, conversationId))),
	];
	if (tagged.length === 0) return statements;
	return [
		...statements,
		db.insert(conversationTags).values(tagged.map((tag) => ({ workspaceId, conversationId, tagId: tag.id }))),
	];
}

/** The `tag.applied` or `tag.removed` events of a conversation's tag change. */
function tagEvents(
	type: 'tag.applied' | 'tag.removed',
	workspaceId: string,
	conversationId: string,
	tagged: TagRef[],
	actor: Actor,
	now: number,
) {
	const target = { kind: 'conversation' as const, id: conversationId };
	return tagged.map((tag) => newEvent(type, workspaceId, actor, { tag: { id: tag.id, name: tag.name }, target }, now));
}

/**
 * Finds the referenced contact before anything is written: its id, or null when it must be created. An
 * e-mail of one contact with the phone of another is a 409; an unknown contact id is a 404.
 */
export async function resolveContact(db: Database, workspaceId: string, ref: ContactReference): Promise<string | null> {
	if (ref.id !== undefined) {
		if (!(await existsInWorkspace(db, contacts, workspaceId, ref.id)))
			throw new NotFound(`Contact ${ref.id} not found.`);
		return ref.id;
	}
	const email = ref.email?.toLowerCase();
	const phone = ref.phone === undefined ? undefined : normalizePhone(ref.phone);
	const matches = await db
		.select({ id: contacts.id, email: contacts.email, phone: contacts.phone })
		.from(contacts)
		.where(
			and(
				eq(contacts.workspaceId, workspaceId),
				or(
					email === undefined ? undefined : eq(contacts.email, email),
					phone === undefined ? undefined : eq(contacts.phone, phone),
				),
			),
		);
	const byEmail = email === undefined ? undefined : matches.find((m) => m.email === email);
	const byPhone = phone === undefined ? undefined : matches.find((m) => m.phone === phone);
	if (byEmail && byPhone && byPhone.id !== byEmail.id) {
		throw new Conflict(
			`The phone ${phone} belongs to another contact than the e-mail ${email}; name the contact by id.`,
		);
	}
	return byEmail?.id ?? byPhone?.id ?? null;
}

export interface NewConversationInput {
	workspaceId: string;
	/** The contact, found by `resolveContact`; null to create one from `contact`. */
	contactId: string | null;
	contact: ContactReference;
	channel: string;
	/** What it is about, for a channel with subjects (an e-mail's subject). */
	subject?: string | null;
	assigneeId?: string | null;
	groupId?: string | null;
	/** Its tags, found or created by `ensureTags` before the change is built. */
	tags?: TagRef[];
	/** The campaign the widget captured (the API starts conversations without one). */
	origin?: Record<string, string> | null;
	/** The Click-to-WhatsApp ad a WhatsApp conversation came from (its `ctwa_clid` is kept beside it). */
	adReferral?: WhatsappReferral | null;
	/** Makes a retried start find the first one: the widget's first client message id, an Idempotency-Key. */
	startKey: string | null;
	actor: Actor;
}

/** The statements and events that create a conversation (and its contact when it is new). */
export function newConversationChange(
	db: Database,
	input: NewConversationInput,
	now: number,
): { id: string; change: Change } {
	const { workspaceId, origin, actor } = input;
	const id = newId('conv', now);
	const contactId = input.contactId ?? newId('ctc', now);
	const change: Change = { statements: [], events: [] };
	if (input.contactId === null) {
		const contact = {
			id: contactId,
			workspaceId,
			name: input.contact.name ?? null,
			email: input.contact.email?.toLowerCase() ?? null,
			phone: input.contact.phone === undefined ? null : normalizePhone(input.contact.phone),
			customFields: {},
			createdAt: now,
			updatedAt: now,
		};
		change.statements.push(db.insert(contacts).values(contact));
		change.events.push(newEvent('contact.created', workspaceId, actor, { contact: contactEventView(contact) }, now));
	}
	const conversation = {
		id,
		workspaceId,
		contactId,
		channel: input.channel,
		subject: input.subject ?? null,
		status: 'open' as const,
		assigneeId: input.assigneeId ?? null,
		groupId: input.groupId ?? null,
		utmSource: origin?.utmSource ?? null,
		utmMedium: origin?.utmMedium ?? null,
		utmCampaign: origin?.utmCampaign ?? null,
		utmContent: origin?.utmContent ?? null,
		utmTerm: origin?.utmTerm ?? null,
		gclid: origin?.gclid ?? null,
		fbclid: origin?.fbclid ?? null,
		landingUrl: origin?.landingUrl ?? null,
		referrer: origin?.referrer ?? null,
		ctwaClid: input.adReferral?.ctwaClid ?? null,
		adReferral: input.adReferral ?? null,
		startKey: input.startKey,
		createdAt: now,
		updatedAt: now,
		statusChangedAt: now,
		lastActivityAt: now,
	};
	change.statements.push(db.insert(conversations).values(conversation));
	if (input.tags) change.statements.push(...replaceTagsStatements(db, workspaceId, id, input.tags));
	change.events.push(
		newEvent('conversation.created', workspaceId, actor, { conversation: conversationSummary(conversation) }, now),
		...tagEvents('tag.applied', workspaceId, id, input.tags ?? [], actor, now),
	);
	return { id, change };
}

/** The conversation a start key already opened, if any (a retried start finds it). */
export async function findStarted(db: Database, workspaceId: string, startKey: string) {
	const row = await db
		.select({ id: conversations.id, contactId: conversations.contactId })
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.startKey, startKey)))
		.get();
	return row ?? null;
}

/**
 * A batch that creates a contact (or uses a start key) can lose a race with another request doing the same:
 * a 409, and the retry finds what the winner created.
 */
export function startRace(error: unknown): never {
	if (violatesUnique(error, 'contacts.') || violatesUnique(error, 'conversations.start_key')) {
		throw new Conflict('Another request started this at the same moment; retry.', { cause: error });
	}
	tagDeleted(error);
}

/**
 * Applies status, assignment and tag changes in one batch with their event, which says each changed field's
 * value before and after; NotFound outside the workspace. A field given with the value it already has is
 * written (a status written again still orders a pending reopen) but is no change: with nothing changed, no
 * event. The caller reads the result as its permissions allow (conversationForWriter).
 */
export async function updateConversation(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: ConversationChanges,
	actor: Actor,
	now = Date.now(),
): Promise<void> {
	const row = await db
		.select({ conversation: conversations, tags: tagRefs })
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)))
		.get();
	if (!row) throw new NotFound(`Conversation ${id} not found.`);
	const current = row.conversation;
	await assertAssignment(db, workspaceId, changes);
	const snoozing = typeof changes.snoozedUntil === 'number';
	if (snoozing && (changes.snoozedUntil as number) <= now) {
		throw new Invalid('snoozedUntil must be in the future', { field: ['snoozedUntil'] });
	}
	if (snoozing && (changes.snoozedUntil as number) > now + MAX_SNOOZE_MS) {
		throw new Invalid('snoozedUntil may be at most a year ahead', { field: ['snoozedUntil'] });
	}
	const status = snoozing ? 'pending' : changes.status;
	const fields = {
		...(status === undefined ? {} : { status }),
		// A snooze given sets it; any other status written, or null, ends it.
		...(snoozing
			? { snoozedUntil: changes.snoozedUntil }
			: status !== undefined || changes.snoozedUntil === null
				? { snoozedUntil: null }
				: {}),
		...(changes.assigneeId === undefined ? {} : { assigneeId: changes.assigneeId }),
		...(changes.groupId === undefined ? {} : { groupId: changes.groupId }),
	};
	// Any status written (the same one too: a close after a visitor's message is the team's last word) moves
	// the time a pending reopen is ordered against; a tag or an assignment does not.
	const statusChangedAt = status === undefined ? {} : { statusChangedAt: now };
	// The room's timer first: one left behind by a batch that then failed finds no snooze of its time, and does nothing.
	if (snoozing) await snoozeRoom(env, workspaceId, id, changes.snoozedUntil as number);
	const update = db
		.update(conversations)
		.set({ ...fields, ...statusChangedAt, updatedAt: now, lastActivityAt: now })
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)));
	const carried = JSON.parse(row.tags ?? '[]') as TagRef[];
	const tagsBefore = carried.map((tag) => tag.name).sort();
	// Only the names asked for are found or created: a tag deleted since the read above stays deleted.
	const tagged = changes.tags ? await ensureTags(db, workspaceId, changes.tags, now) : new Map<string, TagRef>();
	for (const tag of carried) if (!tagged.has(tag.name)) tagged.set(tag.name, tag);
	const refs = (names: string[]) =>
		names.map((name) => {
			const tag = tagged.get(name);
			if (!tag) throw new Conflict(`The tag "${name}" was deleted at the same moment; retry.`);
			return tag;
		});
	const tagStatements = changes.tags
		? replaceTagsStatements(db, workspaceId, id, refs([...new Set(changes.tags)]))
		: [];
	const moved = fieldChanges(current, tagsBefore, { ...changes, status });
	const added = moved.tags ? moved.tags.to.filter((name) => !moved.tags?.from.includes(name)) : [];
	const removed = moved.tags ? moved.tags.from.filter((name) => !moved.tags?.to.includes(name)) : [];
	const events =
		Object.keys(moved).length === 0
			? []
			: [
					newEvent(
						'conversation.updated',
						workspaceId,
						actor,
						{ conversation: conversationSummary({ ...current, ...fields }), ...changesOf(moved) },
						now,
					),
					...tagEvents('tag.applied', workspaceId, id, refs(added), actor, now),
					...tagEvents('tag.removed', workspaceId, id, refs(removed), actor, now),
				];
	const guard = assignmentGuard(workspaceId, changes);
	const statements = [...(guard ? [guard] : []), update, ...tagStatements];
	const committed = await commit(db, { statements, events }, assignmentGone(tagDeleted));
	await release(env, committed.events);
}

/** A tag deleted between its lookup and the batch that links it fails the link's foreign key: a 409. */
function tagDeleted(error: unknown): never {
	if (violatesForeignKey(error)) {
		throw new Conflict('A tag of this change was deleted at the same moment; retry.', { cause: error });
	}
	throw error;
}

/** Each field whose value the change moves, with its value before and after. */
function fieldChanges(current: typeof conversations.$inferSelect, tagsBefore: string[], changes: ConversationChanges) {
	const moved: {
		status?: { from: typeof current.status; to: typeof current.status };
		assigneeId?: { from: string | null; to: string | null };
		groupId?: { from: string | null; to: string | null };
		tags?: { from: string[]; to: string[] };
	} = {};
	if (changes.status !== undefined && changes.status !== current.status) {
		moved.status = { from: current.status, to: changes.status };
	}
	if (changes.assigneeId !== undefined && changes.assigneeId !== current.assigneeId) {
		moved.assigneeId = { from: current.assigneeId, to: changes.assigneeId };
	}
	if (changes.groupId !== undefined && changes.groupId !== current.groupId) {
		moved.groupId = { from: current.groupId, to: changes.groupId };
	}
	const tagsAfter = changes.tags === undefined ? undefined : [...new Set(changes.tags)].sort();
	if (tagsAfter !== undefined && tagsAfter.join('\n') !== tagsBefore.join('\n')) {
		moved.tags = { from: tagsBefore, to: tagsAfter };
	}
	return moved;
}
