/**
 * The one message formatting, written once: `*bold*`, `_italic_` (either inside the other), web and mail links,
 * read out of a message's text as a small tree. The widget and the console build their elements from it
 * through `renderFormatted` (DOM calls in the one, Preact elements in the other), mail turns it into escaped
 * HTML (src/engines/mail/) and WhatsApp into its own markers: no client parses HTML from anyone, so a message
 * can never carry markup, only these. Line breaks are the text's own, kept by each client's CSS
 * (`white-space: pre-wrap`). Pure and dependency-free: the widget's chat file bundles it.
 */

/** A piece of a message's text and how it is shown. */
export type FormatNode =
	| { kind: 'text'; text: string }
	| { kind: 'bold'; children: FormatNode[] }
	| { kind: 'italic'; children: FormatNode[] }
	/** A link: `href` is `http:`, `https:` or `mailto:`, never anything else; `text` is as written. */
	| { kind: 'link'; text: string; href: string };

/**
 * A marker opens after a non-word character (or the start) and closes before one (or the end), on one line,
 * with no space just inside it, so `snake_case_name`, `2*3*4` and `5 * 3 * 2` stay plain text. A link is
 * an http(s) URL up to the next space, a `mailto:` address, or a bare e-mail address.
 */
const PATTERN =
	/(^|[^\p{L}\p{N}])(\*([^*\s](?:[^*\n]*[^*\s])?)\*|_([^_\s](?:[^_\n]*[^_\s])?)_)(?=$|[^\p{L}\p{N}])|\bhttps?:\/\/[^\s<>"]+|\bmailto:[^\s<>"@]+@[^\s<>"]+|(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/giu;

/** Punctuation that ends a sentence rather than a link: "see https://example.com." keeps its full stop. */
const TRAILING = /[.,;:!?'"*_]$/;

/** A link with the sentence's punctuation after it taken off; a `)` or `]` only when it opens nowhere in it. */
function trimLink(link: string): string {
	let end = link.length;
	for (;;) {
		const last = link[end - 1] ?? '';
		const body = link.slice(0, end - 1);
		const unbalanced =
			(last === ')' && body.split('(').length <= body.split(')').length) ||
			(last === ']' && body.split('[').length <= body.split(']').length);
		if (!TRAILING.test(last) && !unbalanced) return link.slice(0, end);
		end--;
	}
}

/** The `href` a matched link stands for, or null when it is no link (a scheme with no host after it). */
function linkHref(link: string): string | null {
	if (/^https?:\/\//i.test(link)) return /^https?:\/\/[\p{L}\p{N}]/iu.test(link) ? link : null;
	if (/^mailto:/i.test(link)) return /^mailto:[^@]+@[\p{L}\p{N}]/iu.test(link) ? link : null;
	return `mailto:${link}`;
}

/**
 * The formatting of `text`, in order; the text of its leaves, concatenated, gives back the message as
 * written less the `*` and `_` markers. Example: `formatTokens('*Hi _you_* see https://x.io.')` is bold
 * ["Hi ", italic ["you"]], text " see ", link "https://x.io", text ".". An unbalanced marker is text.
 */
export function formatTokens(text: string): FormatNode[] {
	const nodes: FormatNode[] = [];
	const plain = (piece: string) => {
		if (piece === '') return;
		const last = nodes.at(-1);
		if (last?.kind === 'text') last.text += piece;
		else nodes.push({ kind: 'text', text: piece });
	};
	let at = 0;
	for (const match of text.matchAll(PATTERN)) {
		const index = match.index ?? 0;
		if (index < at) continue;
		if (match[2] === undefined) {
			const link = trimLink(match[0]);
			const href = linkHref(link);
			if (href === null) continue;
			plain(text.slice(at, index));
			nodes.push({ kind: 'link', text: link, href });
			at = index + link.length;
			continue;
		}
		const start = index + (match[1]?.length ?? 0);
		plain(text.slice(at, start));
		// What a marker holds is formatted too: `*bold _and italic_*`, `_see https://x.io_`.
		if (match[3] !== undefined) nodes.push({ kind: 'bold', children: formatTokens(match[3]) });
		else nodes.push({ kind: 'italic', children: formatTokens(match[4] ?? '') });
		at = start + match[2].length;
	}
	plain(text.slice(at));
	return nodes;
}

/** The text of `nodes` as written, less the markers: a preview, a notification, a search snippet. */
export function plainText(nodes: FormatNode[]): string {
	return nodes.map((node) => ('children' in node ? plainText(node.children) : node.text)).join('');
}

/** The attributes every link in a message gets: a new tab, no opener, no referrer, no endorsement. */
export const LINK_ATTRIBUTES = { target: '_blank', rel: 'noopener noreferrer nofollow' } as const;

/** How a client makes an element: the widget's DOM calls, the console's Preact `h`. */
export type MakeElement<E> = (
	tag: 'strong' | 'em' | 'a',
	attributes: Record<string, string>,
	children: (E | string)[],
) => E;

/**
 * The message `text` as the children of its bubble, for every client alike: bold as <strong>, italic as
 * <em>, links as <a> with LINK_ATTRIBUTES, everything else as strings (which both clients add as text, never
 * as HTML).
 */
export function renderFormatted<E>(text: string, make: MakeElement<E>): (E | string)[] {
	const render = (nodes: FormatNode[]): (E | string)[] =>
		nodes.map((node) => {
			if (node.kind === 'text') return node.text;
			if (node.kind === 'link') return make('a', { href: node.href, ...LINK_ATTRIBUTES }, [node.text]);
			return make(node.kind === 'bold' ? 'strong' : 'em', {}, render(node.children));
		});
	return render(formatTokens(text));
}
