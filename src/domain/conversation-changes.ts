/**
 * Starting and changing conversations. Checks run first; every write goes in one D1 batch together with
 * its events (the outbox), so a refused request changes nothing and a committed change always announces
 * itself. Messages are not written here: they go through the conversation's room (src/domain/live.ts).
 */
import { and, eq, or, sql } from 'drizzle-orm';
import type { PostInput } from '../../durable-objects/conversation-room';
import { type Database, runBatch, type Statement } from '../db/client';
import { contacts, conversations, conversationTags, operators, tags } from '../db/schema';
import { existsInWorkspace } from '../db/scoped';
import { type DomainEvent, newEvent } from '../events/catalogue';
import { outboxStatements } from '../events/outbox';
import { Conflict, Invalid, NotFound } from '../lib/errors';
import { newId } from '../lib/ids';
import { type ContactReference, contactEventView, normalizePhone } from './contacts';
import { type ConversationChanges, conversationSummary, type NewConversation } from './conversations';

/** Throws Invalid unless `operatorId` is an operator of the workspace. */
export async function assertOperatorInWorkspace(db: Database, workspaceId: string, operatorId: string) {
	if (!(await existsInWorkspace(db, operators, workspaceId, operatorId))) {
		throw new Invalid(`json.assigneeId: no operator ${operatorId} in this workspace`);
	}
}

/** Statements that make the conversation's tag set exactly `names` (creating unknown tags). */
function replaceTagsStatements(
	db: Database,
	workspaceId: string,
	conversationId: string,
	names: string[],
	now: number,
): Statement[] {
	const unique = [...new Set(names)];
	const statements: Statement[] = [
		db
			.delete(conversationTags)
			.where(and(eq(conversationTags.workspaceId, workspaceId), eq(conversationTags.conversationId, conversationId))),
	];
	if (unique.length === 0) return statements;
	return [
		...statements,
		db
			.insert(tags)
			.values(unique.map((name) => ({ id: newId('tag', now), workspaceId, name, createdAt: now })))
			.onConflictDoNothing(),
		sql`
			INSERT INTO conversation_tags (workspace_id, conversation_id, tag_id)
			SELECT ${workspaceId}, ${conversationId}, id FROM tags
			WHERE workspace_id = ${workspaceId} AND name IN (${sql.join(
				unique.map((n) => sql`${n}`),
				sql`, `,
			)})`,
	];
}

/**
 * Finds the referenced contact before anything is written: its id, or null when it must be created. An
 * e-mail of one contact with the phone of another is a 409; an unknown contact id is a 404.
 */
async function resolveContact(db: Database, workspaceId: string, ref: ContactReference): Promise<string | null> {
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

export interface CreatedConversation {
	id: string;
	/** False when the start key named a conversation started before: that one is returned. */
	created: boolean;
	/** Committed with the conversation; deliver them with `releaseEvents`. */
	events: DomainEvent[];
	/** The first message, to post through the conversation's room once the conversation exists. */
	firstMessage: PostInput | null;
}

export interface StartOptions {
	/** The operator the first message is from (an API start); null for a visitor's. */
	operatorId: string | null;
	/** The campaign the widget captured (the API starts conversations without one). */
	origin?: Record<string, string> | null;
	/** Makes a retried start find the first one: the widget's first client message id, an Idempotency-Key. */
	startKey?: string | null;
	now?: number;
}

/**
 * Starts a conversation with a contact named by id, e-mail or phone, creating the contact when it is
 * unknown. With a start key, a retry returns the conversation the first attempt started.
 */
export async function createConversation(
	db: Database,
	workspaceId: string,
	input: NewConversation,
	{ operatorId, origin = null, startKey = null, now = Date.now() }: StartOptions,
): Promise<CreatedConversation> {
	const existingContact = await resolveContact(db, workspaceId, input.contact);
	const firstMessage = (id: string): PostInput | null =>
		input.message
			? {
					workspaceId,
					conversationId: id,
					authorKind: input.message.author,
					authorId: input.message.author === 'operator' ? operatorId : null,
					text: input.message.text,
					attachments: [],
					// Posting it again (a retried start) finds the message instead of adding one.
					clientMessageId: 'start',
				}
			: null;
	if (startKey !== null) {
		const started = await findStarted(db, workspaceId, startKey);
		if (started && started.contactId !== existingContact) {
			throw new Invalid('This Idempotency-Key already started a conversation with another contact.');
		}
		if (started) return { id: started.id, created: false, events: [], firstMessage: firstMessage(started.id) };
	}
	if (input.assigneeId) await assertOperatorInWorkspace(db, workspaceId, input.assigneeId);

	const id = newId('conv', now);
	const contactId = existingContact ?? newId('ctc', now);
	const events: DomainEvent[] = [];
	const statements: Statement[] = [];
	if (existingContact === null) {
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
		statements.push(db.insert(contacts).values(contact));
		events.push(newEvent('contact.created', workspaceId, { contact: contactEventView(contact) }, now));
	}
	const conversation = {
		id,
		workspaceId,
		contactId,
		channel: input.channel,
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
		startKey,
		createdAt: now,
		updatedAt: now,
		statusChangedAt: now,
		lastActivityAt: now,
	};
	statements.push(db.insert(conversations).values(conversation));
	if (input.tags) statements.push(...replaceTagsStatements(db, workspaceId, id, input.tags, now));
	events.push(newEvent('conversation.created', workspaceId, { conversation: conversationSummary(conversation) }, now));
	await runBatchOrConflict(db, [...statements, ...outboxStatements(db, events)]);
	return { id, created: true, events, firstMessage: firstMessage(id) };
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
async function runBatchOrConflict(db: Database, statements: Statement[]) {
	try {
		return await runBatch(db, statements);
	} catch (error) {
		const text = String(error);
		if (text.includes('UNIQUE constraint failed: contacts.') || text.includes('conversations.start_key')) {
			throw new Conflict('Another request started this at the same moment; retry.', { cause: error });
		}
		throw error;
	}
}

/**
 * Applies status, assignment and tag changes in one batch with their event; NotFound outside the workspace.
 * The caller reads the result as its permissions allow (conversationForWriter).
 */
export async function updateConversation(
	db: Database,
	workspaceId: string,
	id: string,
	changes: ConversationChanges,
	now = Date.now(),
) {
	const current = await db
		.select()
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)))
		.get();
	if (!current) throw new NotFound(`Conversation ${id} not found.`);
	if (changes.assigneeId) await assertOperatorInWorkspace(db, workspaceId, changes.assigneeId);
	const fields = {
		...(changes.status === undefined ? {} : { status: changes.status }),
		...(changes.assigneeId === undefined ? {} : { assigneeId: changes.assigneeId }),
		...(changes.groupId === undefined ? {} : { groupId: changes.groupId }),
	};
	// Any status written (the same one too: a close after a visitor's message is the team's last word) moves
	// the time a pending reopen is ordered against; a tag or an assignment does not.
	const statusChangedAt = changes.status === undefined ? {} : { statusChangedAt: now };
	const update = db
		.update(conversations)
		.set({ ...fields, ...statusChangedAt, updatedAt: now, lastActivityAt: now })
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)));
	const tagStatements = changes.tags ? replaceTagsStatements(db, workspaceId, id, changes.tags, now) : [];
	const changed = (['status', 'assigneeId', 'groupId', 'tags'] as const).filter((k) => changes[k] !== undefined);
	const event = newEvent(
		'conversation.updated',
		workspaceId,
		{ conversation: conversationSummary({ ...current, ...fields }), changed },
		now,
	);
	await runBatch(db, [update, ...tagStatements, ...outboxStatements(db, [event])]);
	return { events: [event] };
}
