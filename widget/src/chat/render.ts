/**
 * Safe rendering of messages: text only ever becomes text nodes. `*bold*`, `_italic_` and web links are the
 * only formatting (the bots' and the spec's, shared with mail and the console), line breaks are kept by CSS,
 * and no HTML from anyone is ever parsed.
 */
import { type MakeElement, renderFormatted } from '../../../src/model/formatting';
import type { Attachment, Message } from '../api-types';

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

function attachment(file: Attachment): HTMLElement {
	// A file the visitor sent is kept for the team (its URL needs an operator's token): shown by its name.
	if (/\/v3\/files\/fil_/.test(file.url)) {
		const sent = document.createElement('span');
		sent.className = 'file';
		sent.textContent = `📎 ${file.name}`;
		return sent;
	}
	// Only https files, as the Worker only stores https URLs; anything else is not shown.
	const safe = /^https:\/\//i.test(file.url);
	if (safe && file.contentType.startsWith('image/')) {
		const image = document.createElement('img');
		image.src = file.url;
		image.alt = file.name;
		image.loading = 'lazy';
		return image;
	}
	if (safe && file.contentType.startsWith('video/')) {
		const video = document.createElement('video');
		video.src = file.url;
		video.controls = true;
		video.preload = 'metadata';
		video.setAttribute('aria-label', file.name);
		return video;
	}
	const link = document.createElement('a');
	link.textContent = file.name;
	if (safe) link.href = file.url;
	link.target = '_blank';
	link.rel = 'noopener noreferrer';
	return link;
}

export type Delivery = 'sent' | 'pending' | 'failed';

/** One message bubble; `label` names the author for the team's messages. */
export function messageElement(
	message: Pick<Message, 'text' | 'attachments' | 'authorKind'>,
	label: string | null,
	delivery: Delivery = 'sent',
	note?: string,
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
	appendFormatted(body, message.text);
	for (const file of message.attachments) body.append(attachment(file));
	item.append(body);
	if (note) {
		const small = document.createElement('span');
		small.className = 'note';
		small.textContent = note;
		item.append(small);
	}
	return item;
}
