/**
 * The sending path of the panel: what the visitor writes goes on screen and into the outbox at once, and the
 * Worker's answers come back here: a stored message (which may have started or reopened a conversation), a
 * refusal, or a conversation found closed.
 */
import type { Conversation, Details, Message } from '../api-types';
import type { ChatPanel } from './chat';
import { markStatus } from './closed';
import { received } from './live';
import type { OutboxEvents, Pending } from './outbox';
import { composerMode, follow, isShown, scroll, showConversation, showStatus } from './view';

/** What the panel does with the outbox's answers. */
export function outboxEvents(chat: ChatPanel): OutboxEvents {
	return {
		delivered: (item, message, started) => delivered(chat, item, message, started),
		failed: (item) => {
			if (isShown(chat, item)) chat.log.showPending(item, chat.discard);
		},
		changed: (problem) => chat.problem(problem),
		details: () => chat.known,
		closed: (id) => statusLearned(chat, id, 'closed'),
	};
}

/** The composer's (or a bot's question's) text: shown as waiting and given to the outbox; false if refused. */
export function send(chat: ChatPanel, text: string): boolean {
	if (composerMode(chat) === 'closed') return false;
	let values: { details: Details; customFields: Record<string, string> } = { details: {}, customFields: {} };
	if (!chat.current && chat.form) {
		const collected = chat.form.collect(chat.t);
		if (!collected) return false;
		values = collected;
	}
	const item: Pending = {
		clientMessageId: crypto.randomUUID(),
		text,
		conversationId: chat.current?.id ?? null,
		at: Date.now(),
		...(chat.current ? {} : values),
	};
	chat.touched = true;
	chat.known = { ...chat.known, ...values.details };
	chat.log.showPending(item, chat.discard);
	chat.outbox.add(item);
	scroll(chat);
	return true;
}

/**
 * A file the visitor picked for a bot's file question: uploaded to the conversation on screen (the Worker
 * checks what it is and stores it), then shown like any message. A failure is said under the composer.
 */
export function sendFile(chat: ChatPanel, file: File): boolean {
	const conversation = chat.current;
	if (!conversation || composerMode(chat) === 'closed') return false;
	const query = new URLSearchParams({ name: file.name, clientMessageId: crypto.randomUUID() });
	chat.client
		.call<Message>('POST', `/conversations/${encodeURIComponent(conversation.id)}/files?${query}`, file)
		.then((message) => {
			chat.host.emit('message', message);
			received(chat, message);
		})
		.catch((error: { message?: string }) => {
			const notice = document.createElement('p');
			notice.className = 'error';
			notice.setAttribute('role', 'alert');
			notice.textContent = chat.t('uploadFailed', error.message ?? '');
			chat.log.note(notice);
		});
	return true;
}

function delivered(chat: ChatPanel, item: Pending, message: Message, started: Conversation | null) {
	if (started) {
		if (!chat.conversations.some((c) => c.id === started.id)) chat.conversations.unshift(started);
		chat.unread.read(started.id);
		chat.host.emit('conversation_started', started);
		if (item.conversationId === null && !chat.current) follow(chat, started);
		// Moved from the closed conversation on screen (a 409): the visitor sees where it went.
		else if (item.conversationId === null && isShown(chat, item)) showConversation(chat, started);
	} else if (statusLearned(chat, message.conversationId, 'open')) confirmStatus(chat, message.conversationId);
	chat.host.emit('message', message);
	received(chat, message);
}

/** The Worker's answer told the conversation's status: the view and the list (drawn from `conversations`) agree. */
function statusLearned(chat: ChatPanel, id: string, status: 'open' | 'closed'): boolean {
	const changed = markStatus([...chat.conversations, chat.current], id, status);
	if (changed && chat.current?.id === id && chat.view === 'conversation') showStatus(chat);
	return changed;
}

/**
 * A message stored on a conversation shown closed is taken to have reopened it at once; the Worker has the
 * last word (the team may have closed it again after the message was written, or D1 may not have it yet).
 */
function confirmStatus(chat: ChatPanel, id: string) {
	const generation = chat.generation;
	chat.client
		.conversations()
		.then(({ data }) => {
			const stored = data.find((c) => c.id === id);
			if (generation === chat.generation && stored?.status === 'closed') statusLearned(chat, id, 'closed');
		})
		.catch(() => {});
}
