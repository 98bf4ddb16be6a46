import { describe, expect, it } from 'vitest';
import { type AmountLocale, checkAnswer, parseAmount } from '../../src/engines/values';

describe('parseAmount', () => {
	it('reads amounts with either separator, in cents', () => {
		const cases: [string, AmountLocale, number | null][] = [
			['1.500,00', 'pt', 150000],
			['1,500.00', 'pt', 150000],
			['1,500.00', 'en', 150000],
			['1.500,00', 'en', 150000],
			['R$ 1.234.567,89', 'pt', 123456789],
			['1500', 'pt', 150000],
			['12,5', 'en', 1250],
			['12.50', 'pt', 1250],
			['-3,5', 'pt', -350],
			// One separator followed by three digits: the locale decides.
			['1.500', 'pt', 150000],
			['1.500', 'en', 150],
			['1,500', 'en', 150000],
			['1,500', 'pt', 150],
			['US$ 2,000', 'en', 200000],
			// Not amounts.
			['', 'pt', null],
			['abc', 'pt', null],
			['1,2,3', 'pt', null],
			['1.50.0', 'pt', null],
			['12.345', 'pt', 1234500],
			['1.5000', 'en', 150],
			['12 34', 'pt', null],
			['1$2', 'pt', null],
			['0,001', 'pt', null],
			['1.5.00,00', 'pt', null],
		];
		for (const [raw, locale, expected] of cases) expect(parseAmount(raw, locale), `${raw} (${locale})`).toBe(expected);
	});
});

describe('checkAnswer', () => {
	it('accepts and normalises each format, and refuses what is not one', () => {
		const ok: [Parameters<typeof checkAnswer>[0], string, string | number][] = [
			['email', ' Ana@Example.com ', 'ana@example.com'],
			['phone', '+55 (11) 99999-8888', '+5511999998888'],
			['cpf', '529.982.247-25', '52998224725'],
			['cpf', '52998224725', '52998224725'],
			['cnpj', '54.550.752/0001-55', '54550752000155'],
			// The alphanumeric CNPJ in force since 2026.
			['cnpj', '12.ABC.345/01DE-35', '12ABC34501DE35'],
			['number', '42', 42],
			['number', '2,5', 2.5],
			['date', '23/11/2026', '2026-11-23'],
			['date', '2026-11-23', '2026-11-23'],
			['datetime', '23/11/2026 14:30', '2026-11-23T14:30'],
			['datetime', '2026-11-23T09:05', '2026-11-23T09:05'],
			['datetime', '2026-11-23 9:05', '2026-11-23T09:05'],
		];
		for (const [format, raw, value] of ok)
			expect(checkAnswer(format, raw), `${format} ${raw}`).toEqual({ ok: true, value });
		const bad: [Parameters<typeof checkAnswer>[0], string][] = [
			['email', 'ana@'],
			['phone', '99999-8888'],
			['phone', '(11) 98765-4321'],
			['cpf', '529.982.247-24'],
			['cpf', '111.111.111-11'],
			['cnpj', '54.550.752/0001-56'],
			['number', '4 2'],
			['date', '31/02/2026'],
			['datetime', '2026-11-23'],
			['datetime', '2026-11-23T24:00'],
			['datetime', '30/02/2026 10:00'],
		];
		for (const [format, raw] of bad) expect(checkAnswer(format, raw), `${format} ${raw}`).toEqual({ ok: false });
	});
});
