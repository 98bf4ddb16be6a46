import { describe, expect, it } from 'vitest';
import {
	type FormatNode,
	formatTokens,
	type MakeElement,
	plainText,
	renderFormatted,
} from '../../src/model/formatting';

const text = (value: string): FormatNode => ({ kind: 'text', text: value });
const bold = (...children: FormatNode[]): FormatNode => ({ kind: 'bold', children });
const italic = (...children: FormatNode[]): FormatNode => ({ kind: 'italic', children });
const link = (value: string, href = value): FormatNode => ({ kind: 'link', text: value, href });

describe('formatTokens', () => {
	const cases: Array<[string, FormatNode[]]> = [
		['plain', [text('plain')]],
		['*Hi* there', [bold(text('Hi')), text(' there')]],
		['a _soft_ word', [text('a '), italic(text('soft')), text(' word')]],
		// Markers inside words are text: identifiers and arithmetic stay as written.
		['snake_case_name and 2*3*4', [text('snake_case_name and 2*3*4')]],
		// …and so is a marker with a space just inside it.
		['5 * 3 * 2 and _ x _', [text('5 * 3 * 2 and _ x _')]],
		// A marker never spans lines; line breaks are kept as text.
		['*not\nbold*', [text('*not\nbold*')]],
		['*one*\n_two_', [bold(text('one')), text('\n'), italic(text('two'))]],
		// Nesting: either marker inside the other, and links inside both.
		['*bold _and italic_*', [bold(text('bold '), italic(text('and italic')))]],
		['_*both*_', [italic(bold(text('both')))]],
		['*see https://x.io/a*', [bold(text('see '), link('https://x.io/a'))]],
		// Unbalanced or empty markers are text; a marker closes at its first partner.
		['*bold and _open', [text('*bold and _open')]],
		['**', [text('**')]],
		['*a* b*', [bold(text('a')), text(' b*')]],
		['*a _b* c_', [bold(text('a _b')), text(' c_')]],
		['see https://example.com/a?b=1.', [text('see '), link('https://example.com/a?b=1'), text('.')]],
		['(http://x.io/path)', [text('('), link('http://x.io/path'), text(')')]],
		// The sentence's punctuation is not the link's; a link's own brackets are.
		['Read https://x.io/a?q=1&r=2!), ok', [text('Read '), link('https://x.io/a?q=1&r=2'), text('!), ok')]],
		['https://en.wikipedia.org/wiki/Cat_(animal).', [link('https://en.wikipedia.org/wiki/Cat_(animal)'), text('.')]],
		['"https://x.io/q",', [text('"'), link('https://x.io/q'), text('",')]],
		// A URL's own underscores and stars are the URL's.
		['https://x.io/a_b_c and _it_', [link('https://x.io/a_b_c'), text(' and '), italic(text('it'))]],
		// Mail links: written with mailto: or as a bare address.
		['mailto:ana@x.io?subject=Hi.', [link('mailto:ana@x.io?subject=Hi'), text('.')]],
		[
			'Write to help_desk@acme.com.br.',
			[text('Write to '), link('help_desk@acme.com.br', 'mailto:help_desk@acme.com.br'), text('.')],
		],
		// Only web and mail links: other schemes, and a scheme with no host, are text.
		['javascript:alert(1) and http://. too', [text('javascript:alert(1) and http://. too')]],
		[
			'JavaScript://x.io/%0aalert(1) data:text/html,hi vbscript:x',
			[text('JavaScript://x.io/%0aalert(1) data:text/html,hi vbscript:x')],
		],
		['mailto:nobody', [text('mailto:nobody')]],
		// Markup is text like any other: the renderers never parse it.
		['<b>x</b> <a href="javascript:x">y</a>', [text('<b>x</b> <a href="javascript:x">y</a>')]],
		// Right-to-left text: letters of any script are word characters, markers work around them.
		['שלום *עולם* ו_טוב_', [text('שלום '), bold(text('עולם')), text(' ו_טוב_')]],
		['مرحبا _بك_ في https://x.io/ar', [text('مرحبا '), italic(text('بك')), text(' في '), link('https://x.io/ar')]],
	];
	it.each(cases)('%j', (value, nodes) => {
		expect(formatTokens(value)).toEqual(nodes);
	});

	it('gives back the text as written, less the markers', () => {
		const value = 'Order *42* is _on its *way*_: https://track.example/42, thanks!';
		expect(plainText(formatTokens(value))).toBe('Order 42 is on its way: https://track.example/42, thanks!');
	});
});

describe('renderFormatted', () => {
	// An element factory printing what it is asked for: the renderer decides tags and attributes, not the client.
	const make: MakeElement<string> = (tag, attributes, children) =>
		`<${[tag, ...Object.entries(attributes).map(([k, v]) => `${k}="${v}"`)].join(' ')}>${children.join('')}</${tag}>`;

	it('makes bold, italic and safe links, and leaves everything else as strings', () => {
		expect(renderFormatted('*Hi _you_*, see https://x.io. <i>', make)).toEqual([
			'<strong>Hi <em>you</em></strong>',
			', see ',
			'<a href="https://x.io" target="_blank" rel="noopener noreferrer nofollow">https://x.io</a>',
			'. <i>',
		]);
	});
});
