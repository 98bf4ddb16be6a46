// The note composer's `@` picker (console/src/data/mentions.ts): what it looks up, what it offers,
// and that what it writes is what the server reads as a mention (src/engines/mail/mentions.ts).
import { describe, expect, it } from 'vitest';
import { insertMention, mentionMatches, mentionQuery, mentionText } from '../../console/src/data/mentions';
import { mentionedMembers } from '../../src/engines/mail/mentions';

const team = [
	{ id: 'op_ada', name: 'Ada Lovelace', email: 'ada.l@acme.test' },
	{ id: 'op_bob', name: 'Bob', email: 'robert@acme.test' },
	{ id: 'op_jose', name: 'José María', email: 'jm@acme.test' },
	{ id: 'op_q', name: 'Quote "Q" Person', email: 'q@acme.test' },
];

describe('mentionQuery', () => {
	it('finds the @word before the caret, at the start or after a space', () => {
		expect(mentionQuery('@', 1)).toEqual({ start: 0, word: '' });
		expect(mentionQuery('ask @ad', 7)).toEqual({ start: 4, word: 'ad' });
		expect(mentionQuery('ask @ad and more', 7)).toEqual({ start: 4, word: 'ad' });
		expect(mentionQuery('line\n@jo', 8)).toEqual({ start: 5, word: 'jo' });
	});

	it('is null for an e-mail address, a finished word, or a caret elsewhere', () => {
		expect(mentionQuery('mail ada@acme', 13)).toBeNull();
		expect(mentionQuery('@ada done', 9)).toBeNull();
		expect(mentionQuery('@ada', 0)).toBeNull();
	});
});

describe('mentionMatches', () => {
	it('offers members whose name or a word of it starts with the word, accents and case aside', () => {
		expect(mentionMatches('', team).map((m) => m.id)).toEqual(['op_ada', 'op_bob', 'op_jose', 'op_q']);
		expect(mentionMatches('LOVE', team).map((m) => m.id)).toEqual(['op_ada']);
		expect(mentionMatches('adalov', team).map((m) => m.id)).toEqual(['op_ada']);
		expect(mentionMatches('josé', team).map((m) => m.id)).toEqual(['op_jose']);
		expect(mentionMatches('zed', team)).toEqual([]);
	});
});

describe('what the picker writes', () => {
	it('is a mention the server finds, for one-word and many-word names alike', () => {
		for (const member of team) {
			const { text } = insertMention('please look @x', 12, 14, member.name);
			expect(mentionedMembers(text, team)).toEqual([member.id]);
		}
	});

	it('replaces the word typed, keeps what follows, and puts the caret after the name', () => {
		expect(insertMention('hi @ad, thanks', 3, 6, 'Ada Lovelace')).toEqual({
			text: 'hi @"Ada Lovelace" , thanks',
			caret: 19,
		});
		expect(mentionText('Bob')).toBe('@Bob');
	});
});
