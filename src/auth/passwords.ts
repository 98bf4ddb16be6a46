/**
 * Operators' console passwords: PBKDF2-HMAC-SHA256 through WebCrypto, at OWASP's current work factor for it
 * (600,000 iterations), a random 16-byte salt per password, and a constant-time comparison of the keys.
 *
 * A stored hash names its own iteration count, so raising ITERATIONS later re-hashes nobody and breaks nobody:
 * an old hash is checked at its own count (and re-hashed at the new one on the next good sign-in).
 *
 * The Workers runtime caps PBKDF2's iteration count by the Worker's CPU limit: with the default 30 s limit of a
 * paid plan 600,000 runs (about 60 ms of CPU); a free-plan Worker (10 ms) cannot hash at this strength at all,
 * and sign-in then answers 500 with a log line saying so rather than silently storing something weaker.
 */
import { decodeBase64url, encodeBase64url } from './secrets';

export const ITERATIONS = 600_000;
const SCHEME = 'pbkdf2-sha256';
const SALT_BYTES = 16;
const KEY_BITS = 256;
/** Stored counts outside this range are refused unchecked: a tampered row must not buy a long computation. */
const MIN_ITERATIONS = 100_000;
const MAX_ITERATIONS = 2_000_000;
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
	const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, ['deriveBits']);
	const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, key, KEY_BITS);
	return new Uint8Array(bits);
}

/** The stored form of a new password: `pbkdf2-sha256$600000$<salt>$<key>`. */
export async function hashPassword(password: string): Promise<string> {
	const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
	const key = await derive(password, salt, ITERATIONS);
	return [SCHEME, ITERATIONS, encodeBase64url(salt), encodeBase64url(key)].join('$');
}

interface ParsedHash {
	iterations: number;
	salt: Uint8Array;
	key: Uint8Array;
}

function parse(stored: string): ParsedHash | null {
	const [scheme, count, salt, key, ...rest] = stored.split('$');
	const iterations = Number(count);
	if (scheme !== SCHEME || rest.length > 0 || !Number.isInteger(iterations)) return null;
	if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) return null;
	const saltBytes = decodeBase64url(salt ?? '');
	const keyBytes = decodeBase64url(key ?? '');
	if (!saltBytes || !keyBytes || keyBytes.byteLength !== KEY_BITS / 8) return null;
	return { iterations, salt: saltBytes, key: keyBytes };
}

/** A hash no password matches, checked when there is no real one so that a miss costs what a hit costs. */
const DECOY = `${SCHEME}$${ITERATIONS}$${encodeBase64url(new Uint8Array(SALT_BYTES))}$${encodeBase64url(new Uint8Array(KEY_BITS / 8))}`;

export interface PasswordCheck {
	matches: boolean;
	/** The hash was made with fewer iterations than today's: store `hashPassword(password)` after a match. */
	outdated: boolean;
}

/**
 * Whether `password` matches `stored`. With `stored` null (no such operator, or no password set yet) the same
 * work is done against a decoy, so the answer's timing says nothing about whether the e-mail exists.
 */
export async function checkPassword(password: string, stored: string | null): Promise<PasswordCheck> {
	const parsed = parse(stored ?? DECOY) ?? (parse(DECOY) as ParsedHash);
	const derived = await derive(password, parsed.salt, parsed.iterations);
	const equal = crypto.subtle.timingSafeEqual(derived, parsed.key);
	const matches = stored !== null && parse(stored) !== null && equal;
	return { matches, outdated: matches && parsed.iterations < ITERATIONS };
}
