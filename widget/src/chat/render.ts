/**
 * Safe rendering of messages: text only ever becomes text nodes. `*bold*`, `_italic_` and web links are the
 * only formatting (the bots' and the spec's, shared with mail and the console), line breaks are kept by CSS,
 * and no HTML from anyone is ever parsed.
 */
import { namesItsFile } from '../../../src/model/files';
import { type MakeElement, renderFormatted } from '../../../src/model/formatting';
import type { Message } from '../api-types';
import { attachmentElement, type OpenFile } from './attachments';

/** An element with its class and its text (as a text node). */
export function node<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text?: string) {
	const element = document.createElement(tag);
	if (className) element.className = className;
	if (text !== undefined) element.textContent = text;
	return element;
}

/** The widget's element factory for the shared renderer: DOM calls, text only ever as text nodes. */
const makeElement: MakeElement<HTMLElement> = (tag, attributes, children) => {
	const element = document.createElement(tag);
	for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
	element.append(...children);
	return element;
};

/**
 * Adds `text` to `parent` formatted as every Parley client formats it (src/model/formatting.ts): *bold* and
 * _italic_ as <strong>/<em>, web and mail links opening in a new tab, everything else as plain text.
 */
export function appendFormatted(parent: HTMLElement, text: string): void {
	parent.append(...renderFormatted(text, makeElement));
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
	// Each message takes the direction of its first strong character: Hebrew right to left beside English.
	body.dir = 'auto';
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
