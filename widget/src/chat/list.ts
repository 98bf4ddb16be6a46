/** The list of the visitor's conversations: a new one first, then each earlier one with its unread count. */
import type { Conversation } from '../api-types';
import type { Translate } from '../i18n';
import type { ChatWord } from './words';

export function conversationList(
	conversations: Conversation[],
	unread: Record<string, number>,
	locale: string,
	t: Translate<ChatWord>,
	pick: (conversation: Conversation | null) => void,
): HTMLLIElement[] {
	const item = (label: string, count: number, conversation: Conversation | null) => {
		const li = document.createElement('li');
		const button = document.createElement('button');
		button.type = 'button';
		const text = document.createElement('span');
		text.textContent = label;
		button.append(text);
		if (count > 0) {
			const badge = document.createElement('span');
			badge.className = 'count';
			badge.textContent = String(count);
			button.append(badge);
		}
		button.addEventListener('click', () => pick(conversation));
		li.append(button);
		return li;
	};
	return [
		item(`+ ${t('newConversation')}`, 0, null),
		...conversations.map((c) => {
			const when = new Date(c.lastMessageAt ?? c.createdAt);
			const time = when.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });
			const closed = c.status === 'closed' ? ` · ${t('closed')}` : '';
			return item(`${when.toLocaleDateString(locale)} ${time}${closed}`, unread[c.id] ?? 0, c);
		}),
	];
}
