/**
 * The socket of the conversation on screen: its messages shown once each and counted if unseen, what a bot
 * asks offered in the composer, the team's typing, and one read receipt up to what the visitor has seen.
 */
import type { Conversation, Message, ServerFrame } from '../api-types';
import type { ChatPanel } from './chat';
import { LiveConversation } from './client';
import { send } from './sending';
import { probe } from './session';
import { scroll } from './view';

/** Opens the socket of `conversation`, from its first message (the log is drawn anew from the backlog). */
export function connect(chat: ChatPanel, conversation: Conversation): LiveConversation {
	return new LiveConversation(chat.client, conversation.id, 0, {
		message: (message) => received(chat, message),
		frame: (frame) => onFrame(chat, frame),
		status: (live) => {
			chat.liveSynced = live;
			if (live) chat.log.element.removeAttribute('aria-busy');
		},
		trouble: () => probe(chat),
	});
}

/** A stored message (from the socket or an HTTP answer): shown once, by seq, counted if unseen. */
export function received(chat: ChatPanel, message: Message) {
	const id = message.conversationId;
	if (id !== chat.current?.id || !chat.log.add(message)) return;
	if (message.authorKind !== 'contact') {
		chat.typing.textContent = '';
		chat.unread.arrived(message, visible(chat));
	}
	const last = chat.log.last;
	const asked = last && last.authorKind !== 'contact' ? last.interactive : null;
	chat.composer.prompt(asked, (answer) => send(chat, answer), chat.log.element, last?.authorKind === 'bot');
	if (chat.liveSynced) markRead(chat);
	scroll(chat);
}

function onFrame(chat: ChatPanel, frame: ServerFrame) {
	if (frame.type === 'synced') markRead(chat);
	else if (frame.type === 'typing' && frame.author === 'operator') {
		clearTimeout(chat.typingTimer);
		chat.typing.textContent = frame.typing ? chat.t('typing', chat.host.config().displayName) : '';
		if (frame.typing) chat.typingTimer = setTimeout(() => (chat.typing.textContent = ''), 6000);
	}
}

function visible(chat: ChatPanel): boolean {
	return chat.isOpen && chat.view === 'conversation' && document.visibilityState === 'visible';
}

/** The visitor sees the conversation: one read receipt up to its last message. */
export function markRead(chat: ChatPanel) {
	const conversation = chat.current;
	const seq = chat.live?.seq ?? 0;
	if (!conversation || !visible(chat) || !chat.liveSynced || seq <= chat.readSent) return;
	chat.readSent = seq;
	if (!chat.live?.send({ type: 'read', seq })) {
		chat.client.call('POST', `/conversations/${conversation.id}/read`, { seq }).catch(() => {});
	}
	chat.unread.read(conversation.id);
}
