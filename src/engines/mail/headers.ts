/**
 * Reading a received mail's headers: the list a MIME parser gives (lower-case names, values unfolded, in the
 * order the message carries them, the newest hop first), the Message-IDs of `In-Reply-To` and `References`,
 * and header text made safe to store and to ever write into another mail.
 */

import { headerText } from './header-safety';

/** One header as the parser reads it: `key` lower-case, `value` unfolded and otherwise as written. */
export interface MailHeader {
	key: string;
	value: string;
}

/** Every value of a header, in the message's order (the top-most, added last, first). */
export function headerValues(headers: readonly MailHeader[], name: string): string[] {
	const key = name.toLowerCase();
	return headers.filter((h) => h.key === key).map((h) => h.value);
}

/** The first (top-most) value of a header, trimmed, or null. */
export function headerValue(headers: readonly MailHeader[], name: string): string | null {
	return headerValues(headers, name)[0]?.trim() ?? null;
}

/** A Message-ID's longest accepted length: RFC 5322 sets none, and a longer one is no one's real mail. */
const MAX_MESSAGE_ID = 250;

/**
 * The Message-IDs of a `Message-ID`, `In-Reply-To` or `References` value, without their angle brackets, in
 * order. Values written without brackets (some clients do) count as one id each when they look like one.
 *
 * @example messageIds('<a@x.com> <b@y.com>') // ['a@x.com', 'b@y.com']
 */
export function messageIds(value: string | null | undefined): string[] {
	if (!value) return [];
	const bracketed = [...value.matchAll(/<([^<>\s]+)>/g)].map((m) => m[1] ?? '');
	const ids = bracketed.length > 0 ? bracketed : value.split(/[\s,]+/).filter((part) => part.includes('@'));
	// biome-ignore lint/suspicious/noControlCharactersInRegex: an id with a control character is no id
	return ids.filter((id) => id.length > 0 && id.length <= MAX_MESSAGE_ID && !/[\u0000-\u0020\u007f]/.test(id));
}

/**
 * Header text made one safe line, by the one cleaner every header Parley writes goes through (`headerText`):
 * line breaks and other control characters (which a decoded encoded-word can carry, e.g. `=?UTF-8?B?...?=` for
 * "Hi\r\nBcc: x") become spaces, and the result is cut to `max` characters. What Parley stores from a header
 * can then never break a header of a mail it sends.
 */
export function singleLine(value: string | null | undefined, max = 998): string {
	return value ? headerText(value, max) : '';
}

/** Whether a value carried a line break or another control character that `singleLine` takes out. */
export function hadControlCharacters(value: string | null | undefined): boolean {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
	return !!value && /[\u0000-\u0008\u000a-\u001f\u007f\u2028\u2029]/.test(value);
}

/** An address as Parley keys it: trimmed and lower-case (mail systems treat the domain, and in practice the local part, so). */
export function normalAddress(address: string): string {
	return address.trim().toLowerCase();
}

/** The local part and the domain of an address, or null when it has no `@`. */
export function splitAddress(address: string): { local: string; domain: string } | null {
	const at = address.lastIndexOf('@');
	if (at <= 0 || at === address.length - 1) return null;
	return { local: address.slice(0, at), domain: address.slice(at + 1) };
}
