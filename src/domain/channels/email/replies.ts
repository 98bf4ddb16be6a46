/**
 * Replies in e-mail conversations: every message the team, a bot, a rule or a scenario writes for the customer
 * in a conversation on channel `email` is mailed to its contact. The trigger is the message's
 * `message.created` event on the events Queue (not the room: the room stays the widget's and knows nothing
 * of mail). Each message gets its delivery, held back a few seconds on the mail Queue; the first one claimed
 * takes the conversation's other queued replies with it, so a burst goes out as one mail.
 */
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { contacts, conversations, emailAddresses, emailSettings } from '../../../db/schema';
import { EMAIL_CHANNEL } from '../../../model/email';
import type { DomainEvent } from '../../../model/events';
import { enqueueMail } from './outbox';

/** How long a reply waits on the Queue for the rest of its burst. */
export const REPLY_GATHER_SECONDS = 5;

/** Whether an event is a message for the customer (not theirs, not a private note): what may be mailed. */
function customerMessage(event: DomainEvent) {
	if (event.type !== 'message.created') return null;
	const { message } = event.payload;
	return message.authorKind === 'contact' || message.private ? null : message;
}

/**
 * The workspaces among `workspaceIds` that have set up mail (a sender, or an inbound address): only their
 * events can need a reply mailed. Read once per batch of events, so a workspace without mail pays no read per
 * message.
 */
export async function mailingWorkspaces(db: Database, workspaceIds: readonly string[]): Promise<Set<string>> {
	if (workspaceIds.length === 0) return new Set();
	const ids = [...workspaceIds];
	const [senders, inboxes] = await Promise.all([
		db
			.select({ id: emailSettings.workspaceId })
			.from(emailSettings)
			.where(and(inArray(emailSettings.workspaceId, ids), isNotNull(emailSettings.senderAddress))),
		db
			.selectDistinct({ id: emailAddresses.workspaceId })
			.from(emailAddresses)
			.where(inArray(emailAddresses.workspaceId, ids)),
	]);
	return new Set([...senders, ...inboxes].map((row) => row.id));
}

/**
 * Whether an event may need a reply mailed, without a read: a message event names its conversation's channel
 * (a room imported before it did names none: then only a workspace among `mailing` can need one).
 */
export function mayMailReply(event: DomainEvent, mailing: ReadonlySet<string>): boolean {
	if (customerMessage(event) === null || event.type !== 'message.created') return false;
	const { channel } = event.payload;
	return channel === null ? mailing.has(event.workspaceId) : channel === EMAIL_CHANNEL;
}

/**
 * Enqueues the mail of a team message in an e-mail conversation; does nothing for any other event. The events
 * consumer calls it only for the events `mayMailReply` lets through.
 */
export async function mailReply(env: Env, db: Database, event: DomainEvent): Promise<void> {
	const message = customerMessage(event);
	if (message === null) return;
	const target = await db
		.select({ channel: conversations.channel, contactId: conversations.contactId, email: contacts.email })
		.from(conversations)
		.innerJoin(contacts, eq(contacts.id, conversations.contactId))
		.where(and(eq(conversations.id, message.conversationId), eq(conversations.workspaceId, event.workspaceId)))
		.get();
	if (target?.channel !== EMAIL_CHANNEL || !target.email) return;
	await enqueueMail(env, db, {
		workspaceId: event.workspaceId,
		kind: 'reply',
		// One delivery per message, whatever the event's redeliveries.
		dedupeKey: `reply:${message.conversationId}:${message.seq}`,
		recipient: target.email,
		conversationId: message.conversationId,
		contactId: target.contactId,
		firstSeq: message.seq,
		lastSeq: message.seq,
		delaySeconds: REPLY_GATHER_SECONDS,
	});
}
