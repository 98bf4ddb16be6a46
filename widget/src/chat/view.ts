/**
 * What the panel shows: one conversation (its welcome, the pre-chat form of a new one, the messages still on
 * their way, a closed conversation's note and the composer's mode) or the list of the visitor's
 * conversations; and where the keyboard focus goes when that changes.
 */
import type { Conversation } from '../api-types';
import type { ChatPanel } from './chat';
import { closedNote } from './closed';
import { PrechatForm } from './fields';
import { conversationList } from './list';
import { connect } from './live';
import type { Pending } from './outbox';
import { send } from './sending';

export function node<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text?: string) {
	const element = document.createElement(tag);
	if (className) element.className = className;
	if (text !== undefined) element.textContent = text;
	return element;
}

/** The item is on screen: in the conversation shown, or moved from it to a new one not shown yet. */
export function isShown(chat: ChatPanel, item: Pending): boolean {
	return (
		item.conversationId === (chat.current?.id ?? null) || (!!item.movedFrom && item.movedFrom === chat.current?.id)
	);
}

/** Shows `conversation` (null: a new one) and keeps its socket; the previous socket is closed. */
export function showConversation(chat: ChatPanel, conversation: Conversation | null) {
	const t = chat.t;
	// Redrawing removes the focused field: the focus must not fall out of the panel to the page.
	const hadFocus = hasFocus(chat);
	showList(chat, false);
	// The log is drawn anew from the socket's backlog, so the socket starts anew too.
	chat.live?.stop();
	chat.live = undefined;
	chat.liveSynced = false;
	chat.current = conversation;
	chat.readSent = 0;
	chat.typing.textContent = '';
	chat.log.clear();
	const config = chat.host.config();
	if (config.welcomeMessage) chat.log.greet(config.welcomeMessage);
	chat.form = undefined;
	chat.shownOffline = chat.offline;
	if (!conversation) {
		chat.log.element.removeAttribute('aria-busy');
		const form = new PrechatForm(config, chat.offline, chat.known, t);
		if (!form.empty) {
			if (chat.offline) form.element.prepend(node('strong', '', t('offlineTitle')));
			chat.form = form;
			chat.log.append(form.element);
		}
	} else {
		// Announced as one block once the history is in, not message by message.
		chat.log.element.setAttribute('aria-busy', 'true');
		chat.live = connect(chat, conversation);
	}
	for (const item of chat.outbox.items) {
		if (isShown(chat, item)) chat.log.showPending(item, chat.discard);
	}
	chat.composer.prompt(null, (answer) => send(chat, answer), chat.log.element);
	showStatus(chat);
	chat.header.listButton.hidden = chat.conversations.length === 0;
	if (hadFocus) focusInside(chat);
	scroll(chat);
}

/**
 * A closed conversation's note and composer: writing reopens it (so the composer stays, and the note says
 * so), or the visitor starts a new one (no composer, and a button for it right in the note).
 */
export function showStatus(chat: ChatPanel) {
	const closed = chat.current?.status === 'closed';
	chat.log.note(closed ? closedNote(chat.t, chat.reopens, chat.startNew) : null);
	chat.composer.setMode(composerMode(chat));
}

export function composerMode(chat: ChatPanel) {
	if (chat.current?.status === 'closed' && !chat.reopens) return 'closed';
	return chat.offline && !chat.current ? 'offline' : 'chat';
}

/** The new conversation on screen was started by its first message: keep the view, go live. */
export function follow(chat: ChatPanel, conversation: Conversation) {
	chat.current = conversation;
	if (chat.offline) chat.log.append(node('p', 'note-box', chat.t('offlineSent')));
	chat.form?.element.remove();
	chat.form = undefined;
	chat.composer.setMode('chat');
	chat.header.listButton.hidden = false;
	chat.live = connect(chat, conversation);
}

export function showList(chat: ChatPanel, show: boolean) {
	chat.view = show ? 'list' : 'conversation';
	chat.list.hidden = !show;
	chat.log.element.hidden = show;
	chat.composer.element.hidden = show || composerMode(chat) === 'closed';
	chat.header.listButton.setAttribute('aria-pressed', String(show));
	if (!show) return;
	chat.list.replaceChildren(
		...conversationList(chat.conversations, chat.unread.byConversation, chat.host.locale, chat.t, (conversation) => {
			chat.chosen = true;
			showConversation(chat, conversation);
			focusInside(chat);
		}),
	);
	chat.list.querySelector('button')?.focus();
}

/** Focus on what the visitor does next: the list, the form's first field, the composer, or the log. */
export function focusInside(chat: ChatPanel) {
	if (chat.view === 'list') return chat.list.querySelector('button')?.focus();
	const target = chat.form?.element.querySelector<HTMLElement>('input,select') ?? chat.composer.field;
	if (chat.composer.element.hidden) chat.log.element.focus();
	else target.focus();
}

function hasFocus(chat: ChatPanel): boolean {
	const root = chat.panel.getRootNode() as ShadowRoot;
	return root.activeElement !== null && chat.panel.contains(root.activeElement);
}

export function scroll(chat: ChatPanel) {
	chat.log.element.scrollTop = chat.log.element.scrollHeight;
}
