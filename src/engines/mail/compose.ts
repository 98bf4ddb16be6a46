/**
 * A mail built once from a conversation's messages: a plain-text part and an HTML part drawn from the same
 * tokens (src/model/formatting.ts, the widget's and the console's formatting), the threading headers, the
 * reply address and, for a continuation, the one-click stop link. Pure: what to send comes in (messages with
 * their author labels, files already sorted into attached and linked, earlier Message-IDs), the binding's
 * structured message comes out. Every piece of user text in the HTML is escaped; every header value passes
 * `headerText` or is built from checked parts only.
 */
import type { MailDeliveryKind } from '../../model/email';
import { type FormatNode, formatTokens } from '../../model/formatting';
import type { Interactive } from '../../model/messages';
import { headerText, isMailAddress, isSafeHeaderValue } from './header-safety';

/** A file a message carries: attached to the mail (its bytes added by the sender), or a link. */
export type MailFile = { name: string; attached: true } | { name: string; attached: false; url: string };

/** One message as the mail shows it. */
export interface MailMessage {
	/** Who wrote it, as the customer should read it (an operator's name, the workspace's bot). */
	author: string;
	text: string;
	interactive: Interactive | null;
	files: MailFile[];
}

export interface ComposeInput {
	kind: MailDeliveryKind;
	from: { address: string; name: string };
	/** The recipient's address (no display name: a contact's name never reaches a header). */
	to: string;
	/** The conversation's signed reply address. */
	replyTo: string;
	/** The conversation's subject (an e-mail conversation's first subject), or null for a widget conversation. */
	conversationSubject: string | null;
	workspaceName: string;
	messages: MailMessage[];
	/** Message-IDs (without brackets) of the conversation's earlier mail, oldest first. */
	threadIds: string[];
	/** A continuation's one-click stop link; null for other kinds. */
	stopUrl: string | null;
	/** Whether no person wrote it this moment: continuations, alerts, campaigns, a bot's or a rule's reply. */
	automatic: boolean;
}

/** The binding's structured message, less the attachments' bytes. */
export interface ComposedMail {
	from: { email: string; name: string };
	to: string;
	subject: string;
	text: string;
	html: string;
	replyTo: string;
	headers: Record<string, string>;
}

/** Thrown when an address to put in a header is not plainly an address: nothing is sent. */
export class UnsafeAddress extends Error {}

/** The provider's limit on one header value; References keeps the newest ids that fit. */
const MAX_HEADER_BYTES = 2048;

// What RFC 5322 allows in a msg-id, without the angle brackets it is written between; an id received in
// someone's mail that is anything else is left out of the threading headers.
const MESSAGE_ID = /^[\x21-\x3b\x3d\x3f-\x7e]{1,250}$/;

/** The subject line: the e-mail conversation's own (as `Re: …`), else the workspace's name. */
export function mailSubject(kind: MailDeliveryKind, conversationSubject: string | null, workspaceName: string): string {
	const own = headerText(conversationSubject ?? '');
	if (own !== '') return headerText(/^re:/i.test(own) ? own : `Re: ${own}`);
	const name = headerText(workspaceName) || 'us';
	return kind === 'continuation' ? `New reply from ${name}` : `A message from ${name}`;
}

/** `In-Reply-To` and `References` from the earlier Message-IDs: the newest ids that fit the provider's limit. */
export function threadingHeaders(threadIds: readonly string[]): Record<string, string> {
	const ids = threadIds.filter((id) => MESSAGE_ID.test(id) && id.includes('@'));
	const last = ids.at(-1);
	if (last === undefined) return {};
	const kept: string[] = [];
	let bytes = 0;
	for (const id of [...ids].reverse()) {
		bytes += id.length + 3;
		if (bytes > MAX_HEADER_BYTES) break;
		kept.unshift(`<${id}>`);
	}
	return { 'In-Reply-To': `<${last}>`, References: kept.join(' ') };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` safe in HTML content and in a quoted attribute. */
export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** A message text as HTML: its formatting as <strong>, <em> and links, everything else escaped text. */
export function formattedHtml(text: string): string {
	const html = (nodes: FormatNode[]): string =>
		nodes
			.map((node) => {
				if (node.kind === 'bold') return `<strong>${html(node.children)}</strong>`;
				if (node.kind === 'italic') return `<em>${html(node.children)}</em>`;
				const inner = escapeHtml(node.text).replaceAll('\n', '<br>');
				if (node.kind === 'link') return `<a href="${escapeHtml(node.href)}">${inner}</a>`;
				return inner;
			})
			.join('');
	return html(formatTokens(text));
}

/** What a message asks of the customer, as lines a mail reader can answer by replying. */
function choices(interactive: Interactive | null): { lines: string[]; hint: string } | null {
	if (interactive === null) return null;
	if (interactive.type === 'buttons') {
		return {
			lines: interactive.buttons.map((button, i) => `${i + 1}. ${button.label}`),
			hint: 'Reply with the number or the text of your choice.',
		};
	}
	if (interactive.type === 'rating') return { lines: [], hint: `Reply with a number from 1 to ${interactive.max}.` };
	return { lines: [], hint: interactive.placeholder ? `Reply with ${interactive.placeholder}.` : 'Reply to answer.' };
}

function textPart(input: ComposeInput): string {
	const blocks = input.messages.map((message) => {
		const lines = [`${message.author}:`, message.text];
		const asked = choices(message.interactive);
		if (asked) lines.push('', ...asked.lines, asked.hint);
		for (const file of message.files) {
			lines.push(file.attached ? `[attached: ${file.name}]` : `[${file.name}: ${file.url}]`);
		}
		return lines.join('\n');
	});
	const footer = ['--', 'Reply to this mail to answer; your reply goes to the same conversation.'];
	if (input.stopUrl) footer.push(`To stop receiving these mails: ${input.stopUrl}`);
	return `${blocks.join('\n\n')}\n\n${footer.join('\n')}\n`;
}

function htmlPart(input: ComposeInput): string {
	const blocks = input.messages.map((message) => {
		const parts = [
			`<p style="margin:0 0 4px;color:#555"><strong>${escapeHtml(message.author)}</strong></p>`,
			`<p style="margin:0 0 8px;white-space:pre-wrap">${formattedHtml(message.text)}</p>`,
		];
		const asked = choices(message.interactive);
		if (asked) {
			if (asked.lines.length > 0) {
				const items = asked.lines.map((line) => `<li>${escapeHtml(line.replace(/^\d+\. /, ''))}</li>`).join('');
				parts.push(`<ol style="margin:0 0 8px">${items}</ol>`);
			}
			parts.push(`<p style="margin:0 0 8px;color:#555">${escapeHtml(asked.hint)}</p>`);
		}
		for (const file of message.files) {
			parts.push(
				file.attached
					? `<p style="margin:0 0 8px">📎 ${escapeHtml(file.name)} (attached)</p>`
					: `<p style="margin:0 0 8px">📎 <a href="${escapeHtml(file.url)}">${escapeHtml(file.name)}</a></p>`,
			);
		}
		return `<div style="margin:0 0 16px">${parts.join('')}</div>`;
	});
	const footer = ['Reply to this mail to answer; your reply goes to the same conversation.'];
	if (input.stopUrl) footer.push(`<a href="${escapeHtml(input.stopUrl)}">Stop receiving these mails</a>`);
	return [
		'<!doctype html><html><body style="font-family:sans-serif;font-size:14px;line-height:1.4">',
		...blocks,
		`<p style="margin:16px 0 0;font-size:12px;color:#777">${footer.join('<br>')}</p>`,
		'</body></html>',
	].join('');
}

/** Builds the mail; throws `UnsafeAddress` when an address is not plainly one. */
export function composeMail(input: ComposeInput): ComposedMail {
	for (const address of [input.from.address, input.to, input.replyTo]) {
		if (!isMailAddress(address)) throw new UnsafeAddress(`not a plain mail address: ${JSON.stringify(address)}`);
	}
	const headers: Record<string, string> = { ...threadingHeaders(input.threadIds) };
	if (input.automatic) {
		headers['Auto-Submitted'] = 'auto-generated';
		// Asks Exchange and Outlook not to answer with an out-of-office reply (a loop's first step).
		headers['X-Auto-Response-Suppress'] = 'All';
	}
	// The provider takes only an https link here (RFC 8058 asks for one too); a local http origin gets the body link.
	if (input.stopUrl?.startsWith('https://')) {
		headers['List-Unsubscribe'] = `<${input.stopUrl}>`;
		headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
	}
	for (const [name, value] of Object.entries(headers)) {
		if (!isSafeHeaderValue(value)) throw new UnsafeAddress(`unsafe value for ${name}`);
	}
	return {
		from: { email: input.from.address, name: headerText(input.from.name) || headerText(input.workspaceName) },
		to: input.to,
		subject: mailSubject(input.kind, input.conversationSubject, input.workspaceName),
		text: textPart(input),
		html: htmlPart(input),
		replyTo: input.replyTo,
		headers,
	};
}
