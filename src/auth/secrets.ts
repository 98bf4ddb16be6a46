/**
 * Every signing key is derived from the one deployment secret (`PARLEY_SECRET`) and a label naming its
 * purpose, so a single secret to configure still gives each purpose its own key: a leaked identity secret
 * says nothing about visitor sessions or another workspace. The base64url helpers at the end are the
 * encoding every token signed with these keys shares.
 */
import { ConfigurationError } from '../lib/errors';

const HMAC_SHA256 = { name: 'HMAC', hash: 'SHA-256' } as const;

/**
 * At least as many bytes as SHA-256's output, the key size HMAC-SHA256 is meant for (RFC 2104 §3): every
 * visitor session and every workspace's identity secret derives from this one value.
 */
export const MIN_SECRET_BYTES = 32;

/** The last value `deploymentSecret` accepted: checked once per isolate, not on every request. */
let acceptedSecret: string | undefined;

/**
 * `env.PARLEY_SECRET`, refused with a ConfigurationError (a generic 500 for the caller, a log line naming
 * the fix for the operator) when it is shorter than 32 bytes. Every reader of the secret goes through here.
 */
export function deploymentSecret(env: Pick<Env, 'PARLEY_SECRET'>): string {
	const secret = env.PARLEY_SECRET ?? '';
	if (secret === acceptedSecret) return secret;
	if (new TextEncoder().encode(secret).byteLength < MIN_SECRET_BYTES) {
		throw new ConfigurationError(
			`PARLEY_SECRET is ${secret === '' ? 'not set' : 'too short'}: it needs at least ${MIN_SECRET_BYTES} bytes, since ` +
				'every visitor session and identity secret derives from it. Set a random one with ' +
				'`openssl rand -base64 32 | npx wrangler secret put PARLEY_SECRET` (locally: PARLEY_SECRET=... in .dev.vars).',
		);
	}
	acceptedSecret = secret;
	return secret;
}

async function hmac(keyBytes: Uint8Array, message: string): Promise<Uint8Array> {
	if (keyBytes.byteLength === 0) throw new Error('Refusing to sign with an empty secret: is PARLEY_SECRET set?');
	const key = await crypto.subtle.importKey('raw', keyBytes, HMAC_SHA256, false, ['sign']);
	return new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(message)));
}

/** Keys already derived in this isolate, by label, with the secret they came from. */
const derived = new Map<string, { secret: string; key: Promise<CryptoKey> }>();

/**
 * An HMAC-SHA256 key for one purpose, e.g. `deriveKey(env.PARLEY_SECRET, 'visitor-session')`.
 * Its raw bytes are HMAC-SHA256(secret, label); the key itself is not extractable. Derived once per isolate
 * and label (two imports and an HMAC that every visitor session and console request would otherwise repeat).
 */
export function deriveKey(secret: string, label: string): Promise<CryptoKey> {
	const known = derived.get(label);
	if (known?.secret === secret) return known.key;
	const key = hmac(new TextEncoder().encode(secret), label).then((raw) =>
		crypto.subtle.importKey('raw', raw, HMAC_SHA256, false, ['sign', 'verify']),
	);
	// A failure is not kept: the next call derives again.
	key.catch(() => derived.delete(label));
	derived.set(label, { secret, key });
	return key;
}

/**
 * The secret a site owner's backend signs identity JWTs with: `pis_` + base64url of
 * HMAC-SHA256(secret, `identity:<workspaceId>:<version>`). It is derived on demand and never stored;
 * rotating it means bumping `version`, which makes every token signed with the old one fail.
 */
export async function identitySecret(secret: string, workspaceId: string, version: number): Promise<string> {
	// The version is the last segment and holds no colon, so a workspace id containing one cannot collide.
	if (!Number.isSafeInteger(version) || version < 0) throw new RangeError(`Invalid identity secret version ${version}`);
	const raw = await hmac(new TextEncoder().encode(secret), `identity:${workspaceId}:${version}`);
	return `pis_${encodeBase64url(raw)}`;
}

/**
 * A Standard Webhooks secret (`whsec_` + base64 of 32 key bytes) for one webhook: HMAC-SHA256(secret, label),
 * e.g. `outbound-webhook:<id>:<version>`. Derived on demand and never stored; a new version is a new secret.
 */
export async function webhookSecret(secret: string, label: string): Promise<string> {
	return `whsec_${encodeBase64(await hmac(new TextEncoder().encode(secret), label))}`;
}

/** Base64 (RFC 4648 §4), as HTTP basic authentication writes its credentials. */
export function encodeBase64(bytes: Uint8Array): string {
	let binary = '';
	for (const byte of bytes) binary += String.fromCharCode(byte);
	return btoa(binary);
}

/** Base64url without padding (RFC 4648 §5), as JWTs and Parley's signed tokens use it. */
export function encodeBase64url(bytes: Uint8Array): string {
	return encodeBase64(bytes).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/**
 * The bytes of an unpadded base64url string, or null. Only the canonical spelling is accepted: `atob`
 * ignores whitespace and the unused low bits of the last character, which would let several strings
 * stand for one signature.
 */
export function decodeBase64url(text: string): Uint8Array | null {
	let binary: string;
	try {
		binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
	} catch {
		return null;
	}
	const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
	return encodeBase64url(bytes) === text ? bytes : null;
}

/** The JSON object in a base64url token part (a JWT header, a session payload), or null for anything else. */
export function decodeBase64urlJson(part: string): Record<string, unknown> | null {
	const bytes = decodeBase64url(part);
	if (bytes === null) return null;
	try {
		// A byte-order mark is kept, and so fails JSON.parse: nothing we sign starts with one.
		const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
		return typeof value === 'object' && value !== null && !Array.isArray(value)
			? (value as Record<string, unknown>)
			: null;
	} catch {
		return null;
	}
}
