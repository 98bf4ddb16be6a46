/**
 * Values a visitor types, read the way people write them: amounts with either decimal separator (a bot's
 * `create_deal` value "1.500,00" or "1,500.00"), and the formats a Data Entry step validates (e-mail, phone,
 * Brazilian CPF and CNPJ through cpf-cnpj-validator, which knows the alphanumeric CNPJ in force since 2026).
 * Pure functions, no I/O.
 */
import { cnpj, cpf } from 'cpf-cnpj-validator';

/** The locales whose amounts the parser knows: those that write `,` for decimals and those that write `.`. */
export type AmountLocale = 'pt' | 'en';

/**
 * An amount in minor units (cents) from text: `1.500,00`, `1,500.00`, `1500`, `R$ 1.500`, `-3,5`. With both
 * separators, the last one is the decimal. With one separator occurring once and followed by one or two
 * digits, it is the decimal ("12,5", "12.50"). Followed by three, the locale decides: its own decimal
 * separator is a decimal ("1,500" is 1.50 in Portuguese, "1.500" 1.50 in English), the other one groups
 * thousands ("1.500" is 1500 in Portuguese).
 * Null when the text is no amount, or has a non-zero digit past the cents.
 */
export function parseAmount(raw: string, locale: AmountLocale): number | null {
	// A currency and spaces around the number, not inside it ("12 34" is no amount).
	const cleaned = raw
		.trim()
		.replace(/^(R\$|US\$|\$|€|BRL|USD|EUR)\s*/i, '')
		.replace(/\s*(R\$|US\$|\$|€|BRL|USD|EUR)$/i, '')
		.trim();
	if (!/^-?[\d.,]+$/.test(cleaned) || !/\d/.test(cleaned)) return null;
	const negative = cleaned.startsWith('-');
	const body = negative ? cleaned.slice(1) : cleaned;
	const lastDot = body.lastIndexOf('.');
	const lastComma = body.lastIndexOf(',');
	let decimal: '.' | ',' | null = null;
	if (lastDot >= 0 && lastComma >= 0) decimal = lastDot > lastComma ? '.' : ',';
	else {
		const sep = lastDot >= 0 ? '.' : lastComma >= 0 ? ',' : null;
		if (sep) {
			const count = body.split(sep).length - 1;
			const after = body.length - body.lastIndexOf(sep) - 1;
			if (count === 1 && after > 0 && after <= 2) decimal = sep;
			// One separator then three digits: the locale's decimal separator is a decimal ("1,500" is 1.50 in
			// Portuguese as "1.500" is in English); the other one groups thousands.
			else if (count === 1 && after === 3) decimal = (locale === 'en' ? '.' : ',') === sep ? sep : null;
			else if (count === 1 && after > 3) decimal = sep;
			else decimal = null;
		}
	}
	const group = decimal === ',' ? '.' : decimal === '.' ? ',' : null;
	let [whole = '', fraction = ''] = decimal ? body.split(decimal) : [body];
	if (decimal && body.split(decimal).length !== 2) return null;
	// Grouping separators: either kind when there is no decimal; otherwise only the other one, in threes.
	const groupChars = group ? [group] : ['.', ','];
	for (const g of groupChars) {
		if (whole.includes(g)) {
			const parts = whole.split(g);
			// Groups of three after a first group of one to three digits that does not start with 0 ("0,001" is no
			// thousand-separated number).
			if (parts.slice(1).some((p) => p.length !== 3) || !/^[1-9]\d{0,2}$/.test(parts[0] ?? '')) return null;
			whole = parts.join('');
		}
	}
	// Decimals past the cents are accepted only as zeros ("1.500" in English is 1.50); otherwise not exact.
	if (!/^\d+$/.test(whole) || !/^\d*$/.test(fraction) || /[1-9]/.test(fraction.slice(2))) return null;
	fraction = fraction.slice(0, 2);
	const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0') || '0');
	if (!Number.isSafeInteger(cents)) return null;
	return negative ? -cents : cents;
}

/** The formats a Data Entry step checks an answer against. */
export const ANSWER_FORMATS = ['email', 'phone', 'cpf', 'cnpj', 'number', 'date', 'datetime'] as const;
export type AnswerFormat = (typeof ANSWER_FORMATS)[number];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

/**
 * Whether an answer has the format, and its normalised form: an e-mail lower-cased, a phone as `+` and
 * digits (typed with `+` and its country code), a CPF as 11 digits, a CNPJ as its 14 characters (digits, or
 * capital letters then two digits), a number as a number, a date as YYYY-MM-DD (typed DD/MM/YYYY or ISO), a
 * date and time as YYYY-MM-DDTHH:MM, local to the visitor (typed DD/MM/YYYY HH:MM, or as a browser's
 * date-time input sends it).
 */
export function checkAnswer(format: AnswerFormat, raw: string): { ok: true; value: string | number } | { ok: false } {
	const text = raw.trim();
	switch (format) {
		case 'email':
			return EMAIL.test(text) && text.length <= 254 ? { ok: true, value: text.toLowerCase() } : { ok: false };
		case 'phone': {
			// With its country code, written with `+`: "(11) 98765-4321" alone cannot tell Brazil from elsewhere.
			const digits = text.replace(/[\s().-]/g, '');
			return /^\+[1-9]\d{9,14}$/.test(digits) ? { ok: true, value: digits } : { ok: false };
		}
		case 'cpf':
			return cpf.isValid(text) ? { ok: true, value: cpf.strip(text) } : { ok: false };
		case 'cnpj':
			return cnpj.isValid(text) ? { ok: true, value: cnpj.strip(text) } : { ok: false };
		case 'number': {
			const value = Number(text.replace(',', '.'));
			return text !== '' && /^-?\d+([.,]\d+)?$/.test(text) && Number.isFinite(value)
				? { ok: true, value }
				: { ok: false };
		}
		case 'datetime': {
			const m = /^(.+?)[T ](\d{1,2}):(\d{2})(?::\d{2})?$/.exec(text);
			const day = m ? checkAnswer('date', m[1] ?? '') : { ok: false as const };
			const hours = Number(m?.[2]);
			const minutes = Number(m?.[3]);
			if (!day.ok || !(hours >= 0 && hours <= 23) || !(minutes >= 0 && minutes <= 59)) return { ok: false };
			return { ok: true, value: `${day.value}T${String(hours).padStart(2, '0')}:${m?.[3]}` };
		}
		case 'date': {
			const br = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
			const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
			const [y, m, d] = br ? [br[3], br[2], br[1]] : iso ? [iso[1], iso[2], iso[3]] : [];
			if (!y || !m || !d) return { ok: false };
			const day = `${y}-${m}-${d}`;
			const at = new Date(`${day}T00:00:00Z`);
			return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(day) ? { ok: true, value: day } : { ok: false };
		}
	}
}
