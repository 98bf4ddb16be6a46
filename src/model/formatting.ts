/**
 * The one message formatting, written once: `*bold*`, `_italic_` and web links, read out of a message's text
 * as tokens. The widget turns the tokens into DOM nodes, mail into escaped HTML (src/engines/mail/), and the
 * console can do the same: no renderer parses HTML from anyone, so a message can never carry markup, only
 * these three. Pure and dependency-free: the widget bundles it.
 */

/** A piece of a message's text and how it is shown. */
export type FormatToken =
	| { kind: 'text'; text: string }
	| { kind: 'bold'; text: string }
	| { kind: 'italic'; text: string }
	/** A web link: `href` is the text itself, always `http:` or `https:`. */
	| { kind: 'link'; text: string; href: string };

// A marker opens after a non-word character (or the start) and closes before one (or the end), on one line,
// so `snake_case_name` and `2*3*4` stay plain text. A link is http(s) up to the next space.
const PATTERN = /(^|[^\p{L}\p{N}])(\*([^*\n]+)\*|_([^_\n]+)_)(?=$|[^\p{L}\p{N}])|\bhttps?:\/\/[^\s<>"]+/giu;

/** Punctuation that ends a sentence rather than a link: "see https://example.com." keeps its full stop. */
const TRAILING = /[.,;:!?'")\]]+$/;

/**
 * The tokens of `text`, in order; concatenating their `text` gives back the message as written, less the
 * `*` and `_` markers. Example: `formatTokens('*Hi* see https://x.io.')` is bold "Hi", text " see ", link
 * "https://x.io", text ".".
 */
export function formatTokens(text: string): FormatToken[] {
	const tokens: FormatToken[] = [];
	const plain = (piece: string) => {
		if (piece === '') return;
		const last = tokens.at(-1);
		if (last?.kind === 'text') last.text += piece;
		else tokens.push({ kind: 'text', text: piece });
	};
	let at = 0;
	for (const match of text.matchAll(PATTERN)) {
		const index = match.index ?? 0;
		if (match[2] === undefined) {
			const href = match[0].replace(TRAILING, '');
			// A scheme with no host after it ("http://.") is no link.
			if (!/^https?:\/\/[\p{L}\p{N}]/iu.test(href)) continue;
			plain(text.slice(at, index));
			tokens.push({ kind: 'link', text: href, href });
			at = index + href.length;
			continue;
		}
		const start = index + (match[1]?.length ?? 0);
		plain(text.slice(at, start));
		if (match[3] !== undefined) tokens.push({ kind: 'bold', text: match[3] });
		else tokens.push({ kind: 'italic', text: match[4] ?? '' });
		at = start + match[2].length;
	}
	plain(text.slice(at));
	return tokens;
}
