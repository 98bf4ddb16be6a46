import { describe, expect, it } from 'vitest';
import { hadControlCharacters, messageIds, singleLine, splitAddress } from '../../src/engines/mail/headers';

describe('messageIds', () => {
	const cases: [string, string | null, string[]][] = [
		['one bracketed id', '<abc@mail.gmail.com>', ['abc@mail.gmail.com']],
		[
			'References, folded and in order',
			'<a@x.example>\t<b@y.example> <c@z.example>',
			['a@x.example', 'b@y.example', 'c@z.example'],
		],
		['comments and junk around ids', '(first) <a@x.example> garbage <b@y.example>', ['a@x.example', 'b@y.example']],
		['an id written without brackets', 'a@x.example', ['a@x.example']],
		['nothing', null, []],
		['a word that is no id', 'hello', []],
		['an id too long to be real', `<${'a'.repeat(300)}@x.example>`, []],
	];
	it.each(cases)('%s', (_name, value, ids) => {
		expect(messageIds(value)).toEqual(ids);
	});
});

describe('singleLine', () => {
	const cases: [string, string, string][] = [
		['a CRLF and a header after it', 'Hi\r\nBcc: victim@example.com', 'Hi Bcc: victim@example.com'],
		['a bare LF, tabs and NUL', 'a\n\tb\u0000c', 'a b c'],
		['Unicode line separators', 'a\u2028b\u2029c', 'a b c'],
		['spaces collapsed and trimmed', '  Order   #4411  ', 'Order #4411'],
	];
	it.each(cases)('%s', (_name, value, line) => {
		expect(singleLine(value)).toBe(line);
		expect(hadControlCharacters(line)).toBe(false);
	});
	it('cuts to the length asked', () => {
		expect(singleLine('x'.repeat(50), 10)).toBe('x'.repeat(10));
	});
	it('tells a value that carried a line break', () => {
		expect(hadControlCharacters('Hi\r\nBcc: x')).toBe(true);
		expect(hadControlCharacters('Hi\tthere')).toBe(false);
	});
});

describe('splitAddress', () => {
	it('splits at the last @, and refuses what is no address', () => {
		expect(splitAddress('"a@b"@x.example')).toEqual({ local: '"a@b"', domain: 'x.example' });
		expect(splitAddress('support')).toBeNull();
		expect(splitAddress('@x.example')).toBeNull();
	});
});
