/**
 * Starting a conversation, the one sequence every starter uses: the API (`POST /v3/conversations`), the
 * widget, and later bots, scenarios and campaigns. The conversation (and a new contact) commits with its
 * events in one batch; `conversation.created` is released before the first message is posted, so every
 * consumer hears of the conversation before its messages; the messages then go through the room's one write
 * path, the workspace's automatic greeting as a bot message, exactly as a bot's will.
 */
import type { Database } from '../../db/client';
import { noteBookmark } from '../../db/sessions';
import { commit, release } from '../../events/commit';
import { Invalid } from '../../lib/errors';
import type { Actor } from '../../model/actor';
import type { ContactReference } from '../crm/contacts';
import { conversationRoom } from '../objects';
import { assertAssignment, assignmentGone, assignmentGuard } from '../team/assignees';
import { findStarted, type NewConversationInput, newConversationChange, resolveContact, startRace } from './changes';
import { posted } from './live';
import type { MessageCommand } from './message-command';
import type { MessageView } from './messages';
import { tagsNamed } from './tags';

/** A conversation to start: what `newConversationChange` takes, with the contact to find and the first messages. */
export type StartRequest = Omit<NewConversationInput, 'contactId' | 'contact' | 'actor' | 'tags'> & {
	/** Its tags, by name (created when the workspace has none of that name). */
	tags?: string[];
	/**
	 * Who it is with: a reference (found, or created when unknown), or a function that makes sure of the
	 * contact and returns its id, run only for a new start (the widget's: it counts the visitor's budget,
	 * creates the session's contact and applies the pre-chat answers, none of which a retry repeats).
	 */
	contact: ContactReference | (() => Promise<string>);
	/** Who starts it. A contact's id may be left null when `contact` creates the contact: it is filled in. */
	actor: Actor;
	/** The first message, from the contact or an operator. A retried start posts it again and finds it stored. */
	message?: Pick<MessageCommand, 'authorKind' | 'authorId' | 'text' | 'clientMessageId'> | null;
	/** The workspace's automatic greeting: a bot message after the first one, once per conversation. */
	greeting?: string | null;
};

export interface Started {
	id: string;
	/** False when the start key named a conversation started before: that one is returned. */
	created: boolean;
	/** The first message as stored; null without one. */
	message: MessageView | null;
}

/** Starts a conversation (or finds the one a retried start opened) and posts its first messages. */
export async function startConversation(
	env: Env,
	db: Database,
	start: StartRequest,
	now = Date.now(),
): Promise<Started> {
	const { workspaceId } = start;
	const started = start.startKey === null ? null : await findStarted(db, workspaceId, start.startKey);
	let id: string;
	if (started) {
		if (typeof start.contact !== 'function') {
			const contactId = await resolveContact(db, workspaceId, start.contact);
			if (started.contactId !== contactId) {
				throw new Invalid('This Idempotency-Key already started a conversation with another contact.');
			}
		}
		id = started.id;
	} else {
		let contactId: string | null;
		let reference: ContactReference;
		if (typeof start.contact === 'function') {
			contactId = await start.contact();
			reference = { id: contactId };
		} else {
			contactId = await resolveContact(db, workspaceId, start.contact);
			reference = start.contact;
		}
		await assertAssignment(db, workspaceId, start);
		const actor: Actor = start.actor.kind === 'contact' ? { kind: 'contact', id: contactId } : start.actor;
		const tags = start.tags && (await tagsNamed(db, workspaceId, start.tags, now));
		const built = newConversationChange(db, { ...start, actor, contactId, contact: reference, tags }, now);
		const guard = assignmentGuard(workspaceId, start);
		if (guard) built.change.statements.unshift(guard);
		const committed = await commit(db, built.change, assignmentGone(startRace));
		// Awaited: conversation.created goes out before the first message's message.created.
		await release(env, committed.events);
		id = built.id;
	}
	const room = conversationRoom(env, id);
	const base = { workspaceId, conversationId: id, attachments: [] };
	// The conversation exists (just committed, or found): no D1 check, and a new conversation is open, so a
	// contact's first message has no closed-conversation choice to make.
	// The room writes the messages to D1: their bookmark joins the answer's (a no-op off a request's handle).
	const firstPosted = start.message
		? posted(await room.post({ ...base, ...start.message }, { closedReply: 'reopen' }), id)
		: null;
	noteBookmark(db, firstPosted?.d1Bookmark);
	const first = firstPosted?.message ?? null;
	if (start.greeting) {
		const greeting = { ...base, authorKind: 'bot' as const, authorId: null, text: start.greeting };
		// Once per conversation: a retried start finds it by its client message id.
		noteBookmark(db, posted(await room.post({ ...greeting, clientMessageId: `auto:${id}` }, null), id).d1Bookmark);
	}
	return { id, created: started === null, message: first };
}
