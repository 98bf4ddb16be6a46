import { describe, expect, it } from 'vitest';
import { foldText, matchedKeyword } from '../../src/engines/keywords';

describe('keyword triggers', () => {
	it('match whole words, ignoring case and accents', () => {
		expect(matchedKeyword('Qual o PREÇO?', ['preco'])).toBe('preco');
		expect(matchedKeyword('qual o preco', ['Preço'])).toBe('Preço');
		expect(matchedKeyword('Price, please', ['price'])).toBe('price');
		expect(matchedKeyword('I want to talk about pricing', ['price'])).toBeNull();
		expect(matchedKeyword('reprice it', ['price'])).toBeNull();
		expect(matchedKeyword('ação', ['acao'])).toBe('acao');
		expect(matchedKeyword('promoção', ['promo'])).toBeNull();
	});

	it('match phrases across any spacing, and the first keyword that matches', () => {
		expect(matchedKeyword('I need   a   Demo today', ['talk to sales', 'a demo'])).toBe('a demo');
		expect(matchedKeyword('a demo, please', ['demo', 'a demo'])).toBe('demo');
		expect(matchedKeyword('a demo, please', ['a demo', 'demo'])).toBe('a demo');
		expect(matchedKeyword('hello', ['', ' '])).toBeNull();
		expect(matchedKeyword('(a+)+ is no pattern here', ['(a+)+'])).toBe('(a+)+');
		expect(foldText('  Ünïcode  Text ')).toBe('unicode text');
	});
});
