/**
 * The message list of the conversation on screen: stored messages placed by seq (each once, whether it came
 * from the socket or an HTTP answer), the visitor's own messages still on their way after them, and the
 * refused ones with why and a button to discard them.
 */
import type { Message } from '../api-types';
import type { Translate } from '../i18n';
import type { Pending } from './outbox';
import { messageElement } from './render';
import type { ChatWord } from './words';

export class MessageLog {
	readonly element = document.createElement('div');
	private readonly shown = new Map<number, HTMLElement>();
	private readonly messages = new Map<number, Message>();
	/** The visitor's messages not stored yet (sending or refused), by clientMessageId. */
	private readonly pending = new Map<string, HTMLElement>();

	constructor(
		private readonly t: Translate<ChatWord>,
		private readonly teamName: () => string,
	) {
		this.element.className = 'log';
		this.element.setAttribute('role', 'log');
		this.element.setAttribute('aria-live', 'polite');
		this.element.tabIndex = 0;
	}

	clear(): void {
		this.shown.clear();
		this.messages.clear();
		this.pending.clear();
		this.element.replaceChildren();
	}

	/** A line that is not a message: the greeting, a notice. */
	append(node: Node): void {
		this.element.append(node);
	}

	greet(text: string): void {
		this.append(messageElement({ text, attachments: [], authorKind: 'operator' }, this.teamName()));
	}

	has(seq: number): boolean {
		return this.shown.has(seq);
	}

	/** The latest stored message. */
	get last(): Message | undefined {
		return this.messages.get(Math.max(0, ...this.messages.keys()));
	}

	/** Shows a message of the visitor's not stored yet: sending, or refused (with a discard button). */
	showPending(item: Pending, discard: (item: Pending) => void): void {
		const t = this.t;
		const message = { text: item.text, attachments: [], authorKind: 'contact' as const };
		const element = item.failed
			? messageElement(message, null, 'failed', t('failed', item.failed))
			: messageElement(message, null, 'pending', t('sending'));
		if (item.failed) {
			const remove = document.createElement('button');
			remove.type = 'button';
			remove.className = 'discard';
			remove.textContent = t('discard');
			remove.addEventListener('click', () => {
				this.pending.get(item.clientMessageId)?.remove();
				this.pending.delete(item.clientMessageId);
				discard(item);
			});
			element.append(remove);
		}
		const before = this.pending.get(item.clientMessageId);
		if (before) before.replaceWith(element);
		else this.element.append(element);
		this.pending.set(item.clientMessageId, element);
	}

	/**
	 * Places a stored message by seq; the visitor's own replaces its pending copy. False when it was already
	 * shown (the socket and the HTTP answer both bring the visitor's messages).
	 */
	add(message: Message): boolean {
		if (this.shown.has(message.seq)) return false;
		const mine = message.authorKind === 'contact';
		const element = messageElement(message, mine ? null : this.teamName());
		element.dataset.seq = String(message.seq);
		const own = message.clientMessageId ? this.pending.get(message.clientMessageId) : undefined;
		const later = [...this.shown.entries()].filter(([seq]) => seq > message.seq).sort(([a], [b]) => a - b)[0];
		if (own && !later) {
			own.replaceWith(element);
		} else {
			own?.remove();
			// Before any later stored message, else before the messages still on their way, else at the end.
			const anchor = later?.[1] ?? this.firstSending();
			if (anchor) anchor.before(element);
			else this.element.append(element);
		}
		if (message.clientMessageId) this.pending.delete(message.clientMessageId);
		this.shown.set(message.seq, element);
		this.messages.set(message.seq, message);
		return true;
	}

	private firstSending(): HTMLElement | undefined {
		for (const element of this.pending.values()) if (element.classList.contains('pending')) return element;
		return undefined;
	}
}
