/**
 * Who an event alerts, and as what kind (src/model/alerts.ts). Pure: the event, the workspace's enabled
 * members and the conversation it concerns in; the kind, the conversation and the members out, before each
 * member's own choice (its notification settings) is applied. The member who caused the event is never
 * alerted of it; a disabled member is not among `members`, so never alerted.
 */
import type { AlertKind } from '../model/alerts';
import type { DomainEvent } from '../model/events';
import { mentionedMembers } from './mail/mentions';

/** An enabled member, as an alert reaches it. */
export interface AlertMember {
	id: string;
	name: string;
	email: string;
	/** The groups it belongs to: a new conversation in a group alerts only its members. */
	groupIds: readonly string[];
}

/** The conversation an event concerns, as it is now (a message event does not say whose it is). */
export interface AlertConversation {
	assigneeId: string | null;
	groupId: string | null;
}

export interface AlertTargets {
	kind: AlertKind;
	conversationId: string | null;
	operatorIds: string[];
	/** What the alert quotes (a message, a note, a notification); empty for a conversation. */
	text: string;
}

/**
 * Whether `event` can alert anyone at all, from the event alone: the events consumer reads the team only for
 * these (most events, an operator's or a bot's message, a status or tag change, alert nobody). A campaign's
 * conversations alert nobody as they open (thousands at once, none of them waiting for the team yet): the
 * contact's answer makes one wait for an operator (auto-assignment), and its assignment alerts the assignee.
 */
export function mayAlert(event: DomainEvent): boolean {
	switch (event.type) {
		case 'conversation.created':
			return event.actor.kind !== 'campaign';
		case 'conversation.updated':
			return Boolean(event.payload.changes.assigneeId?.to);
		case 'message.created': {
			const { message } = event.payload;
			return message.private
				? message.authorKind === 'operator' && message.text.includes('@')
				: message.authorKind === 'contact';
		}
		case 'rule.notification':
		case 'bot.notification':
			return true;
		default:
			return false;
	}
}

/** The conversation an event needs read before `alertTargets` can decide, or null when it needs none. */
export function conversationToRead(event: DomainEvent): string | null {
	if (event.type !== 'message.created') return null;
	const { message } = event.payload;
	return message.authorKind === 'contact' && !message.private ? message.conversationId : null;
}

/**
 * The members `event` alerts, or null when it alerts nobody. `conversation` is the one `conversationToRead`
 * named (null when it named none or it is gone).
 *
 * @example alertTargets(messageFromTheCustomer, team, { assigneeId: 'op_1', groupId: null })
 *   // { kind: 'message', conversationId, operatorIds: ['op_1'], text }
 */
export function alertTargets(
	event: DomainEvent,
	members: readonly AlertMember[],
	conversation: AlertConversation | null,
): AlertTargets | null {
	const causedBy = event.actor.kind === 'operator' ? event.actor.id : null;
	const result = (kind: AlertKind, conversationId: string | null, ids: Iterable<string>, text = '') => {
		const wanted = new Set(ids);
		const operatorIds = members.filter((m) => wanted.has(m.id) && m.id !== causedBy).map((m) => m.id);
		return operatorIds.length === 0 ? null : { kind, conversationId, operatorIds, text };
	};
	switch (event.type) {
		case 'conversation.created': {
			if (!mayAlert(event)) return null;
			const { conversation: created } = event.payload;
			// One assigned from the start concerns its assignee; an open one, whoever could take it.
			if (created.assigneeId) return result('assigned', created.id, [created.assigneeId]);
			const takers = members.filter((m) => created.groupId === null || m.groupIds.includes(created.groupId));
			return result(
				'new_conversation',
				created.id,
				takers.map((m) => m.id),
			);
		}
		case 'conversation.updated': {
			const to = event.payload.changes.assigneeId?.to;
			return to ? result('assigned', event.payload.conversation.id, [to]) : null;
		}
		case 'message.created': {
			const { message } = event.payload;
			if (message.private) {
				if (message.authorKind !== 'operator' || !message.text.includes('@')) return null;
				const named = mentionedMembers(message.text, members).filter((id) => id !== message.authorId);
				return result('mention', message.conversationId, named, message.text);
			}
			if (message.authorKind !== 'contact' || !conversation?.assigneeId) return null;
			return result('message', message.conversationId, [conversation.assigneeId], message.text);
		}
		// A bot's notify step alerts as a rule's notify action does: one kind, one member choice for both.
		case 'rule.notification':
		case 'bot.notification': {
			const { operatorIds, conversationId, text } = event.payload;
			return result('rule', conversationId, operatorIds.length === 0 ? members.map((m) => m.id) : operatorIds, text);
		}
		default:
			return null;
	}
}
