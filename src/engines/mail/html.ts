/**
 * A received mail's HTML made safe for an operator's browser: an allow-list of tags, attributes, URL schemes
 * and inline styles (sanitize-html), so no script, event handler, form, frame or stylesheet survives.
 *
 * Remote images are not loaded until the operator asks: an `<img>` with an http(s) source keeps it in
 * `data-remote-src` and has no `src`, so opening the mail tells no tracker it was read; the console copies the
 * attribute back on request. Inline images (`cid:`) point at the files Parley stored from the mail's parts.
 * Styles that could fetch anything (`url(…)`, `image-set(…)`) are dropped with every other unlisted value.
 *
 * Quoted history is marked for the console to fold: `data-parley-quote="block"` on an element that is the
 * quote (Gmail's `gmail_quote`, Apple Mail's and Thunderbird's `blockquote type="cite"`, Yahoo's
 * `yahoo_quoted`), `data-parley-quote="from-here"` on a divider after which everything is the quote
 * (Outlook's `divRplyFwdMsg`/`appendonsend` and its bordered "From:" block, Thunderbird's `moz-cite-prefix`).
 */
import sanitizeHtml from 'sanitize-html';

export interface MailHtmlOptions {
	/** Inline images by Content-ID (without angle brackets, lower-case) -> the URL Parley serves them from. */
	inlineImages: Readonly<Record<string, string>>;
}

export interface SanitizedMailHtml {
	html: string;
	/** How many images wait for the operator's permission to load. */
	remoteImages: number;
	/** Whether a quote was marked for folding. */
	quoted: boolean;
}

/** The attribute the console folds on, with its two values (see the module's comment). */
export const QUOTE_ATTRIBUTE = 'data-parley-quote';
/** Where a remote image's source waits until the operator asks for it. */
export const REMOTE_SOURCE_ATTRIBUTE = 'data-remote-src';

const TAGS = [
	'a',
	'abbr',
	'b',
	'blockquote',
	'br',
	'caption',
	'center',
	'code',
	'col',
	'colgroup',
	'dd',
	'del',
	'div',
	'dl',
	'dt',
	'em',
	'font',
	'h1',
	'h2',
	'h3',
	'h4',
	'h5',
	'h6',
	'hr',
	'i',
	'img',
	'ins',
	'li',
	'ol',
	'p',
	'pre',
	'q',
	's',
	'small',
	'span',
	'strike',
	'strong',
	'sub',
	'sup',
	'table',
	'tbody',
	'td',
	'tfoot',
	'th',
	'thead',
	'tr',
	'u',
	'ul',
];

const CELL = ['align', 'valign', 'width', 'height', 'colspan', 'rowspan', 'bgcolor'];

/** A style value with no function call (no `url(`, `expression(`, `image-set(`), no markup, no escapes. */
const PLAIN_VALUE = /^[-#%,.\w\s"'!/]+$/;
const COLOR_FUNCTION = /^rgba?\(\s*[\d.%\s,/]+\)$/;
const STYLE_PROPERTIES = [
	'color',
	'background-color',
	'font',
	'font-family',
	'font-size',
	'font-style',
	'font-weight',
	'line-height',
	'text-align',
	'text-decoration',
	'text-indent',
	'white-space',
	'vertical-align',
	'direction',
	'margin',
	'margin-top',
	'margin-right',
	'margin-bottom',
	'margin-left',
	'padding',
	'padding-top',
	'padding-right',
	'padding-bottom',
	'padding-left',
	'border',
	'border-top',
	'border-right',
	'border-bottom',
	'border-left',
	'border-color',
	'border-style',
	'border-width',
	'border-collapse',
	'width',
	'max-width',
	'height',
	'display',
];
const STYLES = Object.fromEntries(STYLE_PROPERTIES.map((p) => [p, [PLAIN_VALUE, COLOR_FUNCTION]]));

/** Images safe to keep inline as they are: raster `data:` URLs (never SVG, which can carry script). */
const DATA_IMAGE = /^data:image\/(png|gif|jpeg|webp);base64,[a-z0-9+/=\s]+$/i;

/** Elements whose content is never text to show. */
const NON_TEXT = ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'head', 'template', 'iframe'];

type Attributes = Record<string, string>;

/** The quote mark an element earns, by the markers mail clients write (see the module's comment). */
function quoteMark(tag: string, attribs: Attributes): 'block' | 'from-here' | null {
	const classes = (attribs.class ?? '').split(/\s+/);
	const id = attribs.id ?? '';
	if (tag === 'blockquote' && attribs.type?.toLowerCase() === 'cite') return 'block';
	if (classes.includes('gmail_quote') || classes.includes('yahoo_quoted')) return 'block';
	if (id === 'divRplyFwdMsg' || id === 'appendonsend' || classes.includes('moz-cite-prefix')) return 'from-here';
	// Outlook for Windows: the reply header sits in a div with a thin grey top border.
	const style = (attribs.style ?? '').replace(/\s/g, '').toLowerCase();
	if (tag === 'div' && /border-top:solid#(e1e1e1|b5c4df)/.test(style)) return 'from-here';
	return null;
}

/** Sanitizes a mail's HTML (see the module's comment for what survives and what is marked). */
export function sanitizeMailHtml(html: string, options: MailHtmlOptions): SanitizedMailHtml {
	let remoteImages = 0;
	let quoted = false;
	const markQuote = (tagName: string, attribs: Attributes) => {
		const mark = quoteMark(tagName, attribs);
		const { class: _class, id: _id, ...rest } = attribs;
		if (mark) quoted = true;
		return { tagName, attribs: mark ? { ...rest, [QUOTE_ATTRIBUTE]: mark } : rest };
	};
	const clean = sanitizeHtml(html, {
		allowedTags: TAGS,
		allowedAttributes: {
			'*': ['style', 'dir', 'lang', 'title', 'align', QUOTE_ATTRIBUTE],
			a: ['href', 'name', 'target', 'rel'],
			img: ['src', 'alt', 'width', 'height', REMOTE_SOURCE_ATTRIBUTE],
			table: ['width', 'border', 'cellpadding', 'cellspacing', 'bgcolor'],
			td: CELL,
			th: CELL,
			tr: ['bgcolor'],
			col: ['span', 'width'],
			colgroup: ['span', 'width'],
			font: ['color', 'face', 'size'],
			ol: ['start', 'type'],
		},
		allowedSchemes: ['http', 'https', 'mailto', 'tel'],
		allowedSchemesByTag: { img: ['https', 'data'] },
		allowedStyles: { '*': STYLES },
		allowProtocolRelative: false,
		nonTextTags: NON_TEXT,
		transformTags: {
			div: markQuote,
			blockquote: markQuote,
			a: (tagName, attribs) => ({
				tagName,
				attribs: { ...attribs, target: '_blank', rel: 'noopener noreferrer nofollow' },
			}),
			img: (tagName, attribs) => {
				const { src = '', srcset: _srcset, ...rest } = attribs;
				const source = src.trim();
				if (/^cid:/i.test(source)) {
					const contentId = decodeURIComponent(source.slice(4)).replace(/^<|>$/g, '').toLowerCase();
					const url = options.inlineImages[contentId];
					return { tagName, attribs: url ? { ...rest, src: url } : rest };
				}
				if (/^https?:\/\//i.test(source)) {
					remoteImages++;
					return { tagName, attribs: { ...rest, [REMOTE_SOURCE_ATTRIBUTE]: source } };
				}
				return { tagName, attribs: DATA_IMAGE.test(source) ? { ...rest, src: source } : rest };
			},
		},
	});
	return { html: clean, remoteImages, quoted };
}

/**
 * The text of a mail that has only HTML: blocks' starts and ends and `<br>` become line breaks, tags and what scripts and
 * styles hold are dropped, entities decoded. What `foldPlainText` then folds like any plain text.
 */
export function mailHtmlText(html: string): string {
	const broken = html
		.replace(/<br\s*\/?>/gi, '\n')
		.replace(/<\/?(p|div|tr|li|h[1-6]|blockquote|table)\b[^>]*>/gi, (tag) => `${tag}\n`)
		.replace(/<hr\b[^>]*>/gi, '\n');
	const text = sanitizeHtml(broken, { allowedTags: [], allowedAttributes: {}, nonTextTags: NON_TEXT });
	return text
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&amp;/g, '&')
		.replace(/\u00a0/g, ' ')
		.replace(/[ \t]+\n/g, '\n')
		.replace(/\n{3,}/g, '\n\n')
		.trim();
}
