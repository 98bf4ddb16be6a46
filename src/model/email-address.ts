/**
 * The one rule for an e-mail address the API takes: a contact's, a member's, a sign-in's, a visitor's (identify,
 * the pre-chat form), an inbound address and the mail sender. JSON Schema's `format: email` admits addresses no
 * mail reaches (`0@com`, `ana@localhost`); Parley keeps to what can be delivered and sent safely: a local part
 * of letters, digits and `_'+-` in dot-separated runs (64 characters at most, not ending in `'`), then a domain
 * of dotted labels (63 characters at most, no hyphen at either end) ending in a top-level domain of letters.
 * Every such address is also one the mail layer puts in a header as it is (`isMailAddress`).
 */
import { z } from '@hono/zod-openapi';

// A mail domain: 253 characters at most, in dotted labels of 63, ending in a top-level domain of letters.
const DOMAIN = String.raw`(?=[^@]{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}`;

/**
 * The rule as one regular expression: ASCII, no flags, valid ECMA-262 whichever mode a validator compiles it
 * in, because the API document publishes its source as the fields' `pattern`.
 */
export const EMAIL_ADDRESS = new RegExp(
	String.raw`^(?=[^@]{1,64}@)(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@${DOMAIN}$`,
);

/** A domain an address may have (the reply domain of mail settings), by the same rule. */
export const MAIL_DOMAIN = new RegExp(`^${DOMAIN}$`);

/** The longest address (RFC 5321's path limit less its angle brackets). */
export const MAX_EMAIL_ADDRESS = 254;

/**
 * An e-mail address field: checked by `EMAIL_ADDRESS`, and documented with it as `pattern` beside
 * `format: email`, so the document refuses what the server refuses. Describe the field with `.openapi()`.
 */
export const emailAddress = () =>
	z
		.email({ pattern: EMAIL_ADDRESS, message: 'must be an address such as ana@example.com' })
		.max(MAX_EMAIL_ADDRESS)
		.openapi({ pattern: EMAIL_ADDRESS.source });
