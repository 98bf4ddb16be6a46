import { describe, expect, it } from 'vitest';
import { searchText } from '../../console/src/data/search-text';

describe('searchText', () => {
	it.each([
		['Visitor 2PEKZ', '2PEKZ'],
		['visitante 2pekz', '2pekz'],
		['  Visitor   AB12C ', 'AB12C'],
		['Visitor', 'Visitor'],
		['visitor parking', 'visitor parking'],
		['Visitor 2PEKZ refund', 'Visitor 2PEKZ refund'],
		[' refund ', 'refund'],
	])('%j is searched as %j', (typed, sent) => {
		expect(searchText(typed)).toBe(sent);
	});
});
