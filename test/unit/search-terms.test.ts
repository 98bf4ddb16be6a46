import { describe, expect, it } from 'vitest';
import { inWorkspaceQuery, searchTerms, snippetParts, substringQuery } from '../../src/lib/search-terms';

describe('searchTerms', () => {
	it.each([
		['refund', ['refund']],
		['  two   words ', ['two', 'words']],
		['" * ( )', []],
		['"unbalanced', ['"unbalanced']],
		['\u0000nul', ['nul']],
		['a b c d e f g h i j', ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']],
		['ＡＢＣ', ['ABC']],
	])('%j -> %j', (query, terms) => {
		expect(searchTerms(query)).toEqual(terms);
	});
});

describe('inWorkspaceQuery and substringQuery', () => {
	it('quote every term, doubling its quotes, so no character is syntax', () => {
		expect(inWorkspaceQuery('ws_01J8', ['refund', 'say"hi', 'NEAR('])).toBe(
			'workspace_id : "01J8" AND body : "refund"* AND body : "say""hi"* AND body : "NEAR("*',
		);
		expect(substringQuery(['an', 'ana', '2PEKZ'])).toBe('"ana" "2PEKZ"');
		expect(substringQuery(['an', 'é'])).toBeNull();
	});
});

describe('snippetParts', () => {
	it('splits a marked snippet into matched and unmatched parts', () => {
		expect(snippetParts('the \uE000refund\uE001 is \uE000here\uE001')).toEqual([
			{ text: 'the ', match: false },
			{ text: 'refund', match: true },
			{ text: ' is ', match: false },
			{ text: 'here', match: true },
		]);
		expect(snippetParts('plain')).toEqual([{ text: 'plain', match: false }]);
		expect(snippetParts('\uE000open')).toEqual([{ text: 'open', match: true }]);
	});
});
