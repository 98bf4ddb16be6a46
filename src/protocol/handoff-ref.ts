/**
 * The reference that ties a conversation in an external messaging app to the widget visit it came from.
 * The widget makes one up when the visitor clicks the messaging-app bubble, appends it to the pre-filled
 * text (so the link is built synchronously) and posts it with the campaign origin to
 * `POST /widget/{workspaceId}/handoffs`; when the app's first message arrives carrying "ref XXXXXXXX", a
 * channel integration looks it up with `GET /v3/widget/handoffs/{ref}`.
 *
 * No zod here: the widget imports these as values.
 */

/** Crockford's base32 without I, L, O and U: nothing a visitor or an operator can misread or mistype. */
export const HANDOFF_REF_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Eight characters, 40 random bits. */
export const HANDOFF_REF_PATTERN = /^[0-9A-HJKMNP-TV-Z]{8}$/;

/** A fresh reference, e.g. `7KQ2M9XD`. 256 is a multiple of 32, so every character is equally likely. */
export function newHandoffRef(): string {
	let ref = '';
	for (const byte of crypto.getRandomValues(new Uint8Array(8))) ref += HANDOFF_REF_ALPHABET[byte % 32];
	return ref;
}

/**
 * The pre-filled text with its reference: `handoffText('Hi!', '7KQ2M9XD')` is `'Hi! (ref 7KQ2M9XD)'`.
 * The visitor may edit the text in the app; the reference at the end usually survives.
 */
export function handoffText(prefilled: string, ref: string): string {
	const text = prefilled.trim();
	return text ? `${text} (ref ${ref})` : `(ref ${ref})`;
}

/**
 * The reference in a message that arrived in the messaging app, or null. Read the way Crockford's base32
 * is read (any case; I and L as 1, O as 0), since the visitor may have retyped it.
 */
export function handoffRefIn(text: string): string | null {
	const found = /\bref\s+([0-9a-z]{8})\b/i.exec(text)?.[1];
	return found === undefined ? null : normalizeHandoffRef(found);
}

/** A reference as stored (upper case, I and L as 1, O as 0), or null when it cannot be one. */
export function normalizeHandoffRef(ref: string): string | null {
	const normal = ref.toUpperCase().replace(/[IL]/g, '1').replace(/O/g, '0');
	return HANDOFF_REF_PATTERN.test(normal) ? normal : null;
}
