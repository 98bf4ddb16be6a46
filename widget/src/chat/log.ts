/**
 * The message list of the conversation on screen: stored messages placed by seq (each once, whether it came
 * from the socket or an HTTP answer), the visitor's own messages still on their way after them, and the
 * refused ones with why and a button to discard them.
 */
import { authorLabel } from '../../../src/model/author-label';
import type { AuthorKind, Message } from '../api-types';
import type { Translate } from '../i18n';
import type { OpenFile } from './attachments';
import { messageElement } from './render';
import type { Pending, Upload } from './state';
import type { ChatWord } from './words';

/** Why the Worker refused a message, in the visitor's words (its own message goes to the tooltip). */
function refusal(status: number | undefined): ChatWord {
	if (status === 404 || status === 410) return 'refusedGone';
	if (status === 413 || status === 422 || status === 400) return 'refusedInvalid';
	return 'refusedOther';
}

export class MessageLog {
	readonly element = document.createElement('div');
	/** Notices that stay after the messages (a closed conversation), whatever arrives later. */
	private readonly trailer = document.createElement('div');
	private readonly shown = new Map<number, HTMLElement>();
	/** The visitor's messages not stored yet (sending or refused), by clientMessageId. */
	private readonly pending = new Map<string, HTMLElement>();

	/** `files`: reads a conversation's stored files (attachments.ts). */
	constructor(
		private readonly t: Translate<ChatWord>,
		private readonly teamName: () => string,
		private readonly files: (conversationId: string) => OpenFile,
	) {
		this.element.className = 'log';
		this.element.setAttribute('role', 'log');
		this.element.setAttribute('aria-live', 'polite');
		this.element.tabIndex = 0;
	}

	clear(): void {
		this.shown.clear();
		this.pending.clear();
		this.trailer.replaceChildren();
		this.element.replaceChildren(this.trailer);
	}

	/**
	 * A message's label by the one rule every client follows (src/model/author-label.ts): to a visitor the team
	 * speaks as one, by its display name, whoever of it wrote; the visitor's own messages carry none.
	 */
	private label(authorKind: AuthorKind, authorId: string | null): string | null {
		const team = this.teamName();
		return authorLabel({ authorKind, authorId }, { contact: null, operator: () => team, bot: team, system: team });
	}

	/** A line that is not a message (the greeting, the form), after what is there. */
	append(node: Node): void {
		this.trailer.before(node);
	}

	/** A notice kept below every message, even those still to come; null removes the one shown. */
	note(node: Node | null): void {
		this.trailer.replaceChildren(...(node ? [node] : []));
	}

	greet(text: string): void {
		this.append(messageElement({ text, attachments: [], authorKind: 'operator' }, this.label('operator', null)));
	}

	/** Shows a message of the visitor's not stored yet: sending, or refused (with a discard button). */
	showPending(item: Pending, discard: (item: Pending) => void): void {
		const t = this.t;
		const message = { text: item.text, attachments: [], authorKind: 'contact' as const };
		const element = item.failed
			? messageElement(message, null, 'failed', t('failed', t(refusal(item.failedStatus))))
			: messageElement(message, null, 'pending', t('sending'));
		if (item.failed) element.title = item.failed;
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
		else this.trailer.before(element);
		this.pending.set(item.clientMessageId, element);
	}

	/**
	 * Shows a file of the visitor's being sent, with its progress; its stored message takes its place, as a
	 * pending message's does.
	 */
	showUpload(upload: Upload): void {
		const shown = this.pending.get(upload.clientMessageId)?.querySelector('progress');
		if (shown) {
			shown.value = upload.progress;
			return;
		}
		const progress = document.createElement('progress');
		progress.max = 1;
		progress.value = upload.progress;
		progress.setAttribute('aria-label', this.t('uploading', upload.name));
		const element = messageElement({ text: upload.name, attachments: [], authorKind: 'contact' }, null, 'pending');
		element.classList.add('upload');
		element.querySelector('.body')?.append(progress);
		const before = this.pending.get(upload.clientMessageId);
		if (before) before.replaceWith(element);
		else this.trailer.before(element);
		this.pending.set(upload.clientMessageId, element);
	}

	/** An upload that ended without a message (refused): its line goes. */
	dropUpload(clientMessageId: string): void {
		const element = this.pending.get(clientMessageId);
		if (!element?.classList.contains('upload')) return;
		element.remove();
		this.pending.delete(clientMessageId);
	}

	/**
	 * Places a stored message by seq: right after the stored one before it, so the visitor's messages not stored
	 * yet stay where they were typed; the visitor's own, when newest, takes its pending copy's place. False
	 * when it was already shown (the socket and the HTTP answer both bring the visitor's messages).
	 */
	add(message: Message): boolean {
		if (this.shown.has(message.seq)) return false;
		const element = messageElement(
			message,
			this.label(message.authorKind, message.authorId),
			'sent',
			undefined,
			this.files(message.conversationId),
		);
		element.dataset.seq = String(message.seq);
		const own = message.clientMessageId ? this.pending.get(message.clientMessageId) : undefined;
		let before: HTMLElement | undefined;
		let after: HTMLElement | undefined;
		for (const [seq, shown] of [...this.shown.entries()].sort(([a], [b]) => a - b)) {
			if (seq < message.seq) before = shown;
			else if (!after) after = shown;
		}
		if (own && !after) {
			own.replaceWith(element);
		} else {
			own?.remove();
			if (before) before.after(element);
			else (after ?? this.pending.values().next().value ?? this.trailer).before(element);
		}
		if (message.clientMessageId) this.pending.delete(message.clientMessageId);
		this.shown.set(message.seq, element);
		return true;
	}
}
