/**
 * A closed conversation in the chat, as the workspace's `closedConversationReply` says: with "reopen" (the
 * Worker's default) the visitor writes on and the Worker reopens it, as Intercom and Chatwoot do; with "new"
 * the Worker refuses (409) and the visitor starts another conversation.
 */
import type { Conversation } from '../api-types';
import type { Translate } from '../i18n';
import { node } from './view';
import type { ChatWord } from './words';

/** The note under a closed conversation: that writing reopens it, or a button that starts a new one. */
export function closedNote(t: Translate<ChatWord>, reopens: boolean, startNew: () => void): HTMLElement {
	const note = node('p', 'note-box', `${t('closed')} `);
	if (reopens) {
		note.append(t('reopenHint'));
		return note;
	}
	const start = node('button', 'discard', `+ ${t('newConversation')}`);
	start.type = 'button';
	start.addEventListener('click', startNew);
	note.append(start);
	return note;
}

/**
 * What the Worker's answer says of conversation `id`'s status: open after it stored a visitor's message (one
 * on a closed conversation reopened it, or it would have been a 409), closed after a 409. Sets every copy
 * given (the listed one, the one on screen); true if one changed.
 */
export function markStatus(copies: (Conversation | null)[], id: string, status: 'open' | 'closed'): boolean {
	let changed = false;
	for (const conversation of copies) {
		// Only closed <-> open: a stored message leaves a pending or snoozed conversation as it is.
		if (
			conversation?.id !== id ||
			(status === 'open' ? conversation.status !== 'closed' : conversation.status === 'closed')
		)
			continue;
		conversation.status = status;
		changed = true;
	}
	return changed;
}
