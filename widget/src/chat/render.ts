/**
 * Safe rendering of messages: text only ever becomes text nodes. `*bold*`, `_italic_` and web links are the
 * only formatting (the bots' and the spec's, shared with mail and the console), line breaks are kept by CSS,
 * and no HTML from anyone is ever parsed.
 */
import { namesItsFile } from '../../../src/model/files';
import { formatTokens } from '../../../src/model/formatting';
import type { Message } from '../api-types';
import { attachmentElement, type OpenFile } from './attachments';

/** An element with its class and its text (as a text node). */
export function node<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text?: string) {
	const element = document.createElement(tag);
	if (className) element.className = className;
	if (text !== undefined) element.textContent = text;
	return element;
}

/**
 * Adds `text` to `parent` formatted as every Parley client formats it (src/model/formatting.ts): *bold* and
 * _italic_ as <strong>/<em>, web links as links opening in a new tab, everything else as plain text.
 */
export function appendFormatted(parent: HTMLElement, text: string): void {
	for (const token of formatTokens(text)) {
		if (token.kind === 'text') {
			parent.append(token.text);
			continue;
		}
		const element = document.createElement(token.kind === 'bold' ? 'strong' : token.kind === 'italic' ? 'em' : 'a');
		element.textContent = token.text;
		if (token.kind === 'link') {
			element.setAttribute('href', token.href);
			element.setAttribute('target', '_blank');
			element.setAttribute('rel', 'noopener noreferrer nofollow');
		}
		parent.append(element);
	}
}

export type Delivery = 'sent' | 'pending' | 'failed';

/**
 * One message bubble; `label` names the author for the team's messages, `open` reads the conversation's
 * stored files (attachments.ts).
 */
export function messageElement(
	message: Pick<Message, 'text' | 'attachments' | 'authorKind'>,
	label: string | null,
	delivery: Delivery = 'sent',
	note?: string,
	open?: OpenFile,
): HTMLElement {
	const mine = message.authorKind === 'contact';
	const item = document.createElement('div');
	item.className = `msg ${mine ? 'mine' : 'team'} ${delivery}`;
	if (label) {
		const author = document.createElement('span');
		author.className = 'author';
		author.textContent = label;
		item.append(author);
	}
	const body = document.createElement('div');
	body.className = 'body';
	if (!namesItsFile(message)) appendFormatted(body, message.text);
	for (const file of message.attachments) body.append(attachmentElement(file, open));
	item.append(body);
	if (note) {
		const small = document.createElement('span');
		small.className = 'note';
		small.textContent = note;
		item.append(small);
	}
	return item;
}
