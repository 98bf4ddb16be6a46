/**
 * Replies in WhatsApp conversations: every message the team, a bot, a rule or a scenario writes for the
 * customer in a conversation on channel `whatsapp` is sent to the customer through the Cloud API. The trigger
 * is the message's `message.created` event on the events Queue (the room knows nothing of WhatsApp), which
 * names its conversation's channel: no read for a message of any other channel.
 */
import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import {
	contacts,
	conversations,
	messages,
	whatsappDeliveries,
	whatsappInbound,
	whatsappNumbers,
} from '../../../db/schema';
import type { DomainEvent } from '../../../model/events';
import { WHATSAPP_CHANNEL } from '../../../model/whatsapp';
import { enqueueWhatsapp } from './outbox';

/**
 * The client message id of a message the team sent as a template (POST /v3/whatsapp/conversations/{id}/
 * template): its delivery is the template's, made by that route, so the reply path leaves it alone.
 */
export const TEMPLATE_CLIENT_PREFIX = 'whatsapp-template:';

/** A campaign's messages name the campaign as author: they go out through the campaign's own path. */
const CAMPAIGN_AUTHOR = /^cmp_/;

/** The team's message for the customer in a WhatsApp conversation (not theirs, not a note, not a campaign's). */
function replyMessage(event: DomainEvent) {
	if (event.type !== 'message.created' || event.payload.channel !== WHATSAPP_CHANNEL) return null;
	const { message } = event.payload;
	if (message.authorKind === 'contact' || message.private) return null;
	if (message.authorId !== null && CAMPAIGN_AUTHOR.test(message.authorId)) return null;
	return message;
}

/**
 * Whether an event may need a WhatsApp message sent, without a read. A room imported before events named
 * their channel names none: no WhatsApp conversation is that old.
 */
export function mayWhatsappReply(event: DomainEvent): boolean {
	return replyMessage(event) !== null;
}

/**
 * Which number a conversation is on, and the customer's WhatsApp id: the number its customer last wrote to
 * (and the id they wrote from); for a conversation without an inbound message yet, the number and id Parley
 * last sent into it from (a campaign's template), else the contact's WhatsApp id (else their phone) and the
 * workspace's number when it has exactly one.
 */
export async function conversationLine(
	db: Database,
	workspaceId: string,
	conversationId: string,
): Promise<WhatsappLine | null> {
	return (await lineFacts(db, workspaceId, conversationId)).line;
}

export interface WhatsappLine {
	numberId: string;
	waId: string;
	contactId: string;
}

/**
 * What `conversationLine` finds out, read in one round trip: whether the conversation exists in the workspace
 * and is on WhatsApp, whether the workspace has a number connected at all, and the line when there is one.
 */
export async function lineFacts(
	db: Database,
	workspaceId: string,
	conversationId: string,
): Promise<{ found: boolean; whatsapp: boolean; connected: boolean; line: WhatsappLine | null }> {
	const [target, inbound, sent, numbers] = await Promise.all([
		db
			.select({
				channel: conversations.channel,
				contactId: conversations.contactId,
				whatsappId: contacts.whatsappId,
				phone: contacts.phone,
			})
			.from(conversations)
			.innerJoin(contacts, eq(contacts.id, conversations.contactId))
			.where(and(eq(conversations.id, conversationId), eq(conversations.workspaceId, workspaceId)))
			.get(),
		db
			.select({ numberId: whatsappInbound.numberId, waId: whatsappInbound.fromWaId })
			.from(whatsappInbound)
			.where(and(eq(whatsappInbound.workspaceId, workspaceId), eq(whatsappInbound.conversationId, conversationId)))
			.orderBy(desc(whatsappInbound.receivedAt))
			.limit(1)
			.get(),
		db
			.select({ numberId: whatsappDeliveries.numberId, waId: whatsappDeliveries.recipient })
			.from(whatsappDeliveries)
			.where(
				and(eq(whatsappDeliveries.workspaceId, workspaceId), eq(whatsappDeliveries.conversationId, conversationId)),
			)
			.orderBy(desc(whatsappDeliveries.createdAt))
			.limit(1)
			.get(),
		db
			.select({ id: whatsappNumbers.id })
			.from(whatsappNumbers)
			.where(eq(whatsappNumbers.workspaceId, workspaceId))
			.limit(2),
	]);
	const facts = {
		found: target !== undefined,
		whatsapp: target?.channel === WHATSAPP_CHANNEL,
		connected: numbers.length > 0,
	};
	if (target === undefined || !facts.whatsapp) return { ...facts, line: null };
	if (inbound) return { ...facts, line: { ...inbound, contactId: target.contactId } };
	if (sent) return { ...facts, line: { ...sent, contactId: target.contactId } };
	const waId = target.whatsappId ?? target.phone?.replace(/\D/g, '') ?? '';
	const only = numbers.length === 1 ? numbers[0] : undefined;
	if (waId === '' || !only) return { ...facts, line: null };
	return { ...facts, line: { numberId: only.id, waId, contactId: target.contactId } };
}

/**
 * Enqueues the WhatsApp delivery of a team message in a WhatsApp conversation; does nothing for any other
 * event. The events consumer calls it only for the events `mayWhatsappReply` lets through.
 */
export async function whatsappReply(env: Env, db: Database, event: DomainEvent): Promise<void> {
	const message = replyMessage(event);
	if (message === null) return;
	const [line, stored] = await Promise.all([
		conversationLine(db, event.workspaceId, message.conversationId),
		db
			.select({ clientMessageId: messages.clientMessageId })
			.from(messages)
			.where(and(eq(messages.conversationId, message.conversationId), eq(messages.seq, message.seq)))
			.get(),
	]);
	if (line === null) {
		console.warn('a WhatsApp conversation without a number or a customer id; not sent', message.conversationId);
		return;
	}
	if (stored?.clientMessageId?.startsWith(TEMPLATE_CLIENT_PREFIX)) return;
	await enqueueWhatsapp(env, db, {
		workspaceId: event.workspaceId,
		numberId: line.numberId,
		kind: 'reply',
		// One delivery per message, whatever the event's redeliveries.
		dedupeKey: `reply:${message.conversationId}:${message.seq}`,
		recipient: line.waId,
		conversationId: message.conversationId,
		messageSeq: message.seq,
		contactId: line.contactId,
	});
}
