/**
 * Parley messages as WhatsApp Cloud API request bodies (POST /{phone_number_id}/messages), pure: the text
 * with Parley's formatting in WhatsApp's markup, the files, the buttons as interactive messages within Meta's
 * limits (docs: WhatsApp's reference, WHATSAPP_LIMITS), and approved templates. One Parley message may become
 * several bodies, sent in order: its text (split when longer than WhatsApp takes), then each file.
 *
 * Button replies: each option goes out with the reply id `opt:<index>` (0-based, the option's place in the
 * message's `interactive.buttons`; a rating's option `n` has index `n - 1`). Parley's options have no ids of
 * their own (the answer is the label), and a title is never cut: over Meta's limits the options go out as
 * numbered text instead, so an inbound `button_reply`/`list_reply` carries the label itself as its title and
 * `parseReplyId` recovers the option's index from its id.
 */
import { type FormatNode, formatTokens } from '../../model/formatting';
import type { AttachmentMeta, Interactive } from '../../model/messages';
import { WHATSAPP_LIMITS } from '../../model/whatsapp';

/** A file Meta fetches itself (`link`, https) or one uploaded to it (`id`): exactly one of them. */
export type MediaRef = { link: string } | { id: string };

type Body<T extends string, P> = {
	messaging_product: 'whatsapp';
	recipient_type: 'individual';
	to: string;
	type: T;
} & { [K in T]: P };

export interface ReplyButton {
	type: 'reply';
	reply: { id: string; title: string };
}
export interface ListRow {
	id: string;
	title: string;
	description?: string;
}

export type InteractiveContent =
	| { type: 'button'; body: { text: string }; action: { buttons: ReplyButton[] } }
	| {
			type: 'list';
			body: { text: string };
			action: { button: string; sections: Array<{ title: string; rows: ListRow[] }> };
	  };

export interface TemplateParameter {
	type: 'text';
	text: string;
	parameter_name?: string;
}
export interface TemplateContent {
	name: string;
	language: { code: string };
	components?: Array<{ type: 'body'; parameters: TemplateParameter[] }>;
}

/** A Cloud API message body, as sent. */
export type OutgoingBody =
	| Body<'text', { body: string; preview_url?: boolean }>
	| Body<'image', MediaRef & { caption?: string }>
	| Body<'video', MediaRef & { caption?: string }>
	| Body<'audio', MediaRef>
	| Body<'document', MediaRef & { caption?: string; filename?: string }>
	| Body<'interactive', InteractiveContent>
	| Body<'template', TemplateContent>;

/** What of a Parley message goes to WhatsApp. */
export interface OutgoingMessage {
	text: string;
	attachments: readonly AttachmentMeta[];
	interactive: Interactive | null;
}

/** Labels of the list a list message opens and of its one section (Meta requires both). */
export const LIST_BUTTON = 'Choose';
export const LIST_SECTION = 'Options';

const REPLY_ID = /^opt:(\d{1,2})$/;

/** The reply id of the option at `index` (see the file's comment). */
export function replyId(index: number): string {
	return `opt:${index}`;
}

/** The option index a `button_reply`/`list_reply` id names, or null when it is not one of Parley's. */
export function parseReplyId(id: string): number | null {
	const match = REPLY_ID.exec(id);
	return match ? Number(match[1]) : null;
}

/**
 * Parley's text in WhatsApp's markup: bold as `*…*`, italic as `_…_` (the same markers, so a token's text
 * is wrapped again exactly where Parley saw formatting), links as written. Returns whether there is a link,
 * for WhatsApp's preview.
 */
export function whatsappText(text: string): { text: string; hasLink: boolean } {
	let hasLink = false;
	const markup = (nodes: FormatNode[]): string =>
		nodes
			.map((node) => {
				if (node.kind === 'bold') return `*${markup(node.children)}*`;
				if (node.kind === 'italic') return `_${markup(node.children)}_`;
				if (node.kind === 'link' && node.href.startsWith('http')) hasLink = true;
				return node.text;
			})
			.join('');
	const out = markup(formatTokens(text));
	return { text: out, hasLink };
}

/**
 * `text` in pieces of at most `max` characters, cut at the last line break (else space) of each piece when
 * there is one in its second half, so a long message reads as consecutive bubbles.
 */
export function splitText(text: string, max: number = WHATSAPP_LIMITS.textBody): string[] {
	const pieces: string[] = [];
	let rest = text;
	while (rest.length > max) {
		const window = rest.slice(0, max);
		let cut = window.lastIndexOf('\n');
		if (cut < max / 2) cut = window.lastIndexOf(' ');
		if (cut < max / 2) cut = max;
		pieces.push(rest.slice(0, cut).trimEnd());
		rest = rest.slice(cut).trimStart();
	}
	if (rest.trim() !== '') pieces.push(rest);
	return pieces;
}

function envelope(to: string) {
	return { messaging_product: 'whatsapp', recipient_type: 'individual', to } as const;
}

function textBodies(to: string, text: string): OutgoingBody[] {
	const formatted = whatsappText(text);
	return splitText(formatted.text).map((body) => ({
		...envelope(to),
		type: 'text',
		text: formatted.hasLink ? { body, preview_url: true } : { body },
	}));
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png']);
const VIDEO_TYPES = new Set(['video/mp4', 'video/3gpp']);
const AUDIO_TYPES = new Set(['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg']);
const MB = 1024 * 1024;

/**
 * A file as the message type WhatsApp shows it as: an image, video or audio Meta accepts as such (its types,
 * within its sizes), anything else as a document with its name (so the icon matches the extension).
 */
export function attachmentBody(to: string, file: AttachmentMeta, media: MediaRef): OutgoingBody {
	const type = file.contentType.toLowerCase().split(';')[0]?.trim() ?? '';
	if (IMAGE_TYPES.has(type) && file.size <= 5 * MB) return { ...envelope(to), type: 'image', image: { ...media } };
	if (VIDEO_TYPES.has(type) && file.size <= 16 * MB) return { ...envelope(to), type: 'video', video: { ...media } };
	if (AUDIO_TYPES.has(type) && file.size <= 16 * MB) return { ...envelope(to), type: 'audio', audio: { ...media } };
	return { ...envelope(to), type: 'document', document: { ...media, filename: file.name } };
}

/** The options a message offers, as labels in order (a rating's are its digits). */
function optionsOf(interactive: Interactive | null): string[] | null {
	if (interactive?.type === 'buttons') return interactive.buttons.map((b) => b.label);
	if (interactive?.type === 'rating') return Array.from({ length: interactive.max }, (_, i) => String(i + 1));
	return null;
}

/** Numbered options under the question: what goes out when buttons and lists cannot carry them. */
export function numberedFallback(text: string, options: readonly string[]): string {
	return `${text}\n\n${options.map((label, i) => `${i + 1}. ${label}`).join('\n')}`;
}

/**
 * The question and its options as one interactive message: reply buttons (up to 3, titles up to 20, body up
 * to 1024), else a list (up to 10 rows, titles up to 24, body up to 4096); null when neither fits.
 */
export function interactiveBody(to: string, body: string, options: readonly string[]): OutgoingBody | null {
	const L = WHATSAPP_LIMITS;
	const fits = (max: number) => options.every((label) => label.length <= max);
	if (options.length <= L.buttons && fits(L.buttonTitle) && body.length <= L.buttonBody) {
		const buttons = options.map((title, i): ReplyButton => ({ type: 'reply', reply: { id: replyId(i), title } }));
		return {
			...envelope(to),
			type: 'interactive',
			interactive: { type: 'button', body: { text: body }, action: { buttons } },
		};
	}
	if (options.length <= L.listRows && fits(L.listRowTitle) && body.length <= L.listBody) {
		const rows = options.map((title, i): ListRow => ({ id: replyId(i), title }));
		return {
			...envelope(to),
			type: 'interactive',
			interactive: {
				type: 'list',
				body: { text: body },
				action: { button: LIST_BUTTON, sections: [{ title: LIST_SECTION, rows }] },
			},
		};
	}
	return null;
}

/**
 * The bodies of one Parley message to `to` (E.164), in the order they are sent: its text (as an
 * interactive message when it offers options that fit Meta's limits, with numbered options otherwise), then
 * each file, each given by `media`. A data-entry prompt is plain text: the customer types the answer.
 */
export function messageBodies(
	to: string,
	message: OutgoingMessage,
	media: (file: AttachmentMeta) => MediaRef,
): OutgoingBody[] {
	const bodies: OutgoingBody[] = [];
	const options = optionsOf(message.interactive);
	if (options !== null) {
		const formatted = whatsappText(message.text).text;
		const built = interactiveBody(to, formatted, options);
		bodies.push(...(built ? [built] : textBodies(to, numberedFallback(message.text, options))));
	} else if (message.text.trim() !== '') {
		bodies.push(...textBodies(to, message.text));
	}
	for (const file of message.attachments) bodies.push(attachmentBody(to, file, media(file)));
	return bodies;
}

/** How a template names its variables: `{{1}}`, `{{2}}` in order, or `{{first_name}}` by name. */
export type ParameterFormat = 'POSITIONAL' | 'NAMED';

/** A template to send: its name and language, and its body's variables already filled. */
export interface TemplateToSend {
	name: string;
	language: string;
	/** Positional values in order, or (NAMED) values in the order of `parameterNames`. */
	variables: readonly string[];
	parameterNames?: readonly string[];
}

/** The body of an approved template message (allowed outside the 24-hour window). */
export function templateBody(to: string, template: TemplateToSend): OutgoingBody {
	const parameters = template.variables.map((text, i): TemplateParameter => {
		const name = template.parameterNames?.[i];
		return name === undefined ? { type: 'text', text } : { type: 'text', parameter_name: name, text };
	});
	return {
		...envelope(to),
		type: 'template',
		template: {
			name: template.name,
			language: { code: template.language },
			...(parameters.length > 0 ? { components: [{ type: 'body' as const, parameters }] } : {}),
		},
	};
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** The placeholders of a template's text, in order of first appearance (`1`, `2` or `first_name`). */
export function templatePlaceholders(text: string): string[] {
	return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1] ?? ''))];
}

/**
 * A template's text with its placeholders filled: what Parley stores as the message the customer received.
 * `values` by placeholder (`1`, `first_name`); a placeholder without one stays as written.
 */
export function fillTemplateText(text: string, values: Readonly<Record<string, string>>): string {
	return text.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}
