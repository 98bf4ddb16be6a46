import { describe, expect, it } from 'vitest';
import { type FormatToken, formatTokens } from '../../src/model/formatting';

describe('formatTokens', () => {
	const cases: Array<[string, FormatToken[]]> = [
		['plain', [{ kind: 'text', text: 'plain' }]],
		[
			'*Hi* there',
			[
				{ kind: 'bold', text: 'Hi' },
				{ kind: 'text', text: ' there' },
			],
		],
		[
			'a _soft_ word',
			[
				{ kind: 'text', text: 'a ' },
				{ kind: 'italic', text: 'soft' },
				{ kind: 'text', text: ' word' },
			],
		],
		// Markers inside words are text: identifiers and arithmetic stay as written.
		['snake_case_name and 2*3*4', [{ kind: 'text', text: 'snake_case_name and 2*3*4' }]],
		// A marker never spans lines.
		['*not\nbold*', [{ kind: 'text', text: '*not\nbold*' }]],
		[
			'see https://example.com/a?b=1.',
			[
				{ kind: 'text', text: 'see ' },
				{ kind: 'link', text: 'https://example.com/a?b=1', href: 'https://example.com/a?b=1' },
				{ kind: 'text', text: '.' },
			],
		],
		[
			'(http://x.io/path)',
			[
				{ kind: 'text', text: '(' },
				{ kind: 'link', text: 'http://x.io/path', href: 'http://x.io/path' },
				{ kind: 'text', text: ')' },
			],
		],
		// Only web links: other schemes, and a scheme with no host, are text.
		['javascript:alert(1) and http://. too', [{ kind: 'text', text: 'javascript:alert(1) and http://. too' }]],
		// Markup is text like any other: the renderers escape it.
		['<b>x</b>', [{ kind: 'text', text: '<b>x</b>' }]],
	];
	it.each(cases)('%j', (text, tokens) => {
		expect(formatTokens(text)).toEqual(tokens);
	});

	it('gives back the text as written, less the markers', () => {
		const text = 'Order *42* is _on its way_: https://track.example/42, thanks!';
		expect(
			formatTokens(text)
				.map((t) => t.text)
				.join(''),
		).toBe('Order 42 is on its way: https://track.example/42, thanks!');
	});
});
