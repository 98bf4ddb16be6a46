/**
 * Token V3 format: `prly_` + 43 random base62 characters (256 bits) + a 6-character base62 CRC32 checksum
 * of the random part. The prefix lets secret scanners find leaked tokens; the checksum lets us reject a
 * mistyped or made-up token without touching the database. Only the SHA-256 hash is ever stored.
 */
const PREFIX = 'prly_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const TOKEN_PATTERN = new RegExp(`^${PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

const CRC_TABLE = (() => {
	const table = new Uint32Array(256);
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		table[n] = c >>> 0;
	}
	return table;
})();

/** CRC32 of an ASCII string (the base62 random part, checked by TOKEN_PATTERN first): its bytes are its char codes. */
function crc32(ascii: string): number {
	let crc = 0xffffffff;
	for (let i = 0; i < ascii.length; i++) {
		crc = (CRC_TABLE[(crc ^ ascii.charCodeAt(i)) & 0xff] as number) ^ (crc >>> 8);
	}
	return (crc ^ 0xffffffff) >>> 0;
}

function checksum(random: string): string {
	let value = crc32(random);
	let out = '';
	for (let i = 0; i < CHECKSUM_LENGTH; i++) {
		out = BASE62[value % 62] + out;
		value = Math.floor(value / 62);
	}
	return out;
}

/** Uniform base62 characters by rejection sampling (bytes >= 248 would bias the modulo). */
export function randomBase62(length: number): string {
	let out = '';
	while (out.length < length) {
		for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
			if (byte < 248 && out.length < length) out += BASE62[byte % 62];
		}
	}
	return out;
}

/** A new plaintext token. Show it once; store `hashToken(token)`. */
export function generateToken(): string {
	const random = randomBase62(RANDOM_LENGTH);
	return `${PREFIX}${random}${checksum(random)}`;
}

/** Shape and checksum only: true means the token may exist, false means it certainly does not. */
export function isWellFormedToken(token: string): boolean {
	if (!TOKEN_PATTERN.test(token)) return false;
	const random = token.slice(PREFIX.length, PREFIX.length + RANDOM_LENGTH);
	return token.slice(PREFIX.length + RANDOM_LENGTH) === checksum(random);
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Lower-case hex SHA-256 of a text (its UTF-8) or of bytes. */
export async function sha256Hex(input: string | Uint8Array): Promise<string> {
	const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
	const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
	let hex = '';
	for (const byte of digest) hex += HEX[byte];
	return hex;
}

/** Lower-case hex SHA-256 of the token: the only form that reaches storage. */
export function hashToken(token: string): Promise<string> {
	return sha256Hex(token);
}

/** Constant-time equality of two equal-length hex digests. */
export function digestsEqual(a: string, b: string): boolean {
	const left = new TextEncoder().encode(a);
	const right = new TextEncoder().encode(b);
	if (left.byteLength !== right.byteLength) return false;
	return crypto.subtle.timingSafeEqual(left, right);
}

/** The last characters, safe to show in a console next to a token's creation date. */
export function tokenHint(token: string): string {
	return `${PREFIX}…${token.slice(-4)}`;
}
