/**
 * What may go into a mail header. Every header value Parley builds passes through here: a name, a subject or
 * a file name written by anyone (a contact, an operator, an imported CRM record) becomes one line of
 * printable text, so no value can end a header and start another (header injection) or hide its meaning
 * with invisible characters. Addresses are checked, never repaired: an address that is not plainly one is
 * refused.
 */

// Line breaks, tabs and every other C0/C1 control character, DEL, the Unicode line and paragraph
// separators, and format characters (a right-to-left override would show a name backwards).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]+/gu;

/** The longest display name or subject line Parley writes (the provider's limit is 2,048 bytes a value). */
export const MAX_HEADER_TEXT = 200;

/**
 * `value` as one safe header line: each run of control characters (CR and LF included) becomes one space,
 * spaces are collapsed and trimmed, and the result is cut to `max` characters (never inside a surrogate
 * pair). Example: `headerText('Ada\r\nBcc: all@x')` is `'Ada Bcc: all@x'`: harmless text, no new header.
 */
export function headerText(value: string, max = MAX_HEADER_TEXT): string {
	const line = value.replace(UNSAFE, ' ').replace(/ {2,}/g, ' ').trim();
	return [...line].slice(0, max).join('').trim();
}

// A plain `local@domain` address: printable ASCII without spaces, quotes, angle brackets, commas or
// semicolons (which would make it a list or a display form), a dotted domain of letters, digits and hyphens.
const ADDRESS =
	/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}@(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** Whether `address` is a plain mail address that is safe in a header as it is. */
export function isMailAddress(address: string): boolean {
	return ADDRESS.test(address) && !address.startsWith('.') && !address.includes('..');
}

/** The domain part of an address the caller has checked with `isMailAddress`, lower-case. */
export function domainOf(address: string): string {
	return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/** A host name (a reply domain): dotted labels of letters, digits and hyphens. */
export function isDomain(domain: string): boolean {
	return isMailAddress(`x@${domain}`);
}

/** Whether a finished header value is safe to hand over: one line, no control characters, not empty. */
export function isSafeHeaderValue(value: string): boolean {
	return value.length > 0 && value.length <= 2048 && !new RegExp(UNSAFE.source, 'u').test(value);
}
