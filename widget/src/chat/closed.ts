/**
 * A closed conversation in the chat, as the workspace's `closedConversationReply` says: with "reopen" (the
 * Worker's default) the visitor writes on and the Worker reopens it, as Intercom and Chatwoot do; with "new"
 * the Worker refuses (409) and the visitor starts another conversation. What the Worker's answers say of a
 * conversation's status is kept by the store (state.ts).
 */
import type { Translate } from '../i18n';
import { node } from './render';
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
