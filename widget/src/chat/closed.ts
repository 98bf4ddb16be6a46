/**
 * A closed conversation in the chat, as the workspace's `closedConversationReply` says: with "reopen" (the
 * Worker's default) the visitor writes on and the Worker reopens it, as Intercom and Chatwoot do; with "new"
 * the Worker refuses (409) and the visitor starts another conversation.
 */
import type { Conversation } from '../api-types';
import type { Translate } from '../i18n';
import type { ChatWord } from './words';

/** The note under a closed conversation: that writing reopens it, or a button that starts a new one. */
export function closedNote(t: Translate<ChatWord>, reopens: boolean, startNew: () => void): HTMLElement {
	const note = document.createElement('p');
	note.className = 'note-box';
	note.textContent = `${t('closed')} `;
	if (reopens) {
		note.append(t('reopenHint'));
		return note;
	}
	const start = document.createElement('button');
	start.type = 'button';
	start.className = 'discard';
	start.textContent = `+ ${t('newConversation')}`;
	start.addEventListener('click', startNew);
	note.append(start);
	return note;
}

/**
 * The Worker stored a visitor's message on conversation `id`: if it was closed, it is open now (a refused one
 * would have been a 409). Marks every copy given (the listed one, the one on screen); true if one was closed.
 */
export function markReopened(copies: (Conversation | null)[], id: string): boolean {
	let changed = false;
	for (const conversation of copies) {
		if (conversation?.id !== id || conversation.status !== 'closed') continue;
		conversation.status = 'open';
		changed = true;
	}
	return changed;
}
