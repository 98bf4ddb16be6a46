import { describe, expect, it } from 'vitest';
import { canonicalJson, jsonDepth } from '../../src/lib/canonical-json';

describe('canonicalJson', () => {
	it.each([
		{ value: { b: 1, a: 2 }, text: '{"a":2,"b":1}' },
		{ value: { z: { y: [3, { d: null, c: true }] }, a: 'x' }, text: '{"a":"x","z":{"y":[3,{"c":true,"d":null}]}}' },
		{ value: [2, 1], text: '[2,1]' },
		{ value: {}, text: '{}' },
		{ value: [], text: '[]' },
		{ value: { '': 0, é: 1, Z: 2, a: 3 }, text: '{"":0,"Z":2,"a":3,"é":1}' },
		{ value: 'a"b', text: '"a\\"b"' },
		{ value: 1.5, text: '1.5' },
		{ value: null, text: 'null' },
	])('writes $text', ({ value, text }) => {
		expect(canonicalJson(value)).toBe(text);
		expect(JSON.parse(canonicalJson(value))).toStrictEqual(value);
	});

	it('gives the same text for the same members in any order, and another for another array order', () => {
		const one = JSON.parse('{"a":1,"b":{"x":[1,{"p":true,"q":null}],"y":"z"}}');
		const two = JSON.parse('{"b":{"y":"z","x":[1,{"q":null,"p":true}]},"a":1}');
		const three = JSON.parse('{"a":1,"b":{"x":[{"p":true,"q":null},1],"y":"z"}}');
		expect(canonicalJson(one)).toBe(canonicalJson(two));
		expect(canonicalJson(one)).not.toBe(canonicalJson(three));
	});

	it('walks 100,000 levels without overflowing the stack', () => {
		const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
		expect(canonicalJson(deep)).toHaveLength(200_000);
	});
});

describe('jsonDepth', () => {
	it.each([
		{ value: 1, depth: 0 },
		{ value: null, depth: 0 },
		{ value: {}, depth: 1 },
		{ value: [1, 2], depth: 1 },
		{ value: { a: {} }, depth: 2 },
		{ value: { a: [1, [2, { b: 3 }]], c: {} }, depth: 4 },
	])('is $depth for $value', ({ value, depth }) => {
		expect(jsonDepth(value)).toBe(depth);
	});

	it('stops past the limit, and walks 100,000 levels without overflowing the stack', () => {
		const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
		expect(jsonDepth(deep, 32)).toBe(33);
		expect(jsonDepth(deep)).toBe(100_000);
	});
});
