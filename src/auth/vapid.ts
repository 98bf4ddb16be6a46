/**
 * The deployment's VAPID key pair (RFC 8292): the P-256 key a push service checks Parley's pushes against.
 * Derived from the one deployment secret (`PARLEY_SECRET`, through `deriveKey(secret, 'vapid')`), so a deploy
 * has nothing more to configure and every isolate holds the same pair. Rotating the secret changes the pair:
 * push services then refuse the old subscriptions, and each console subscribes again with the new key when it
 * next loads (docs/console.md, Alerts).
 */
import { decodeBase64url, deriveKey, encodeBase64url } from './secrets';

/** The pair as @block65/webcrypto-web-push takes it: the public key uncompressed (65 bytes) and `d`, base64url. */
export interface VapidKeys {
	publicKey: string;
	privateKey: string;
}

/** PKCS #8 for a P-256 private key without its public half (RFC 5915): the runtime computes that half. */
const PKCS8_P256_PREFIX = Uint8Array.from([
	0x30, 0x41, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
	0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x04, 0x27, 0x30, 0x25, 0x02, 0x01, 0x01, 0x04, 0x20,
]);

const known = new Map<string, Promise<VapidKeys>>();

/** The pair for `secret`, derived once per isolate. */
export function vapidKeys(secret: string): Promise<VapidKeys> {
	let keys = known.get(secret);
	if (!keys) {
		keys = derive(secret);
		keys.catch(() => known.delete(secret));
		known.set(secret, keys);
	}
	return keys;
}

async function derive(secret: string): Promise<VapidKeys> {
	const seed = await deriveKey(secret, 'vapid');
	// A 32-byte value is a valid P-256 scalar unless it is 0 or ≥ the group order (odds about 2^-32): the next
	// counter's value is taken then, which the import's refusal tells.
	for (let counter = 0; counter < 8; counter++) {
		const d = new Uint8Array(await crypto.subtle.sign('HMAC', seed, new TextEncoder().encode(`p256:${counter}`)));
		const der = new Uint8Array(PKCS8_P256_PREFIX.length + d.length);
		der.set(PKCS8_P256_PREFIX);
		der.set(d, PKCS8_P256_PREFIX.length);
		let key: CryptoKey;
		try {
			key = await crypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']);
		} catch {
			continue;
		}
		const jwk = (await crypto.subtle.exportKey('jwk', key)) as JsonWebKey;
		const point = new Uint8Array(65);
		point[0] = 0x04;
		point.set(decodeBase64url(jwk.x ?? '') ?? new Uint8Array(32), 1);
		point.set(decodeBase64url(jwk.y ?? '') ?? new Uint8Array(32), 33);
		return { publicKey: encodeBase64url(point), privateKey: jwk.d ?? '' };
	}
	throw new Error('no P-256 key derives from this secret');
}
