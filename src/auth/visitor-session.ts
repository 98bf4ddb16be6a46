import { decodeBase64url, decodeBase64urlJson, deriveKey, encodeBase64url } from './secrets';

/**
 * Visitor session tokens for the public widget endpoints: `pvs1.<payload>.<signature>`, where the payload
 * is base64url JSON `{ w: workspaceId, v: visitorId, iat: seconds }` and the signature is HMAC-SHA256 of
 * `pvs1.<payload>` under the key derived for 'visitor-session'. The version sits inside the signed text,
 * so a later format cannot be passed off as this one.
 */
const PREFIX = 'pvs1';
const KEY_LABEL = 'visitor-session';
// Far above any real token (two ids and a timestamp); refusing longer input first bounds the work a
// stranger can make us do with a forged one.
const MAX_TOKEN_LENGTH = 1024;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const VISITOR_ID_LENGTH = 26;

export type VisitorSession = { workspaceId: string; visitorId: string; issuedAt: number };

/** A signed token naming the visitor; `now` is in milliseconds and is stored to the second. */
export async function signVisitorSession(
	secret: string,
	claims: { workspaceId: string; visitorId: string },
	now = Date.now(),
): Promise<string> {
	const json = JSON.stringify({ w: claims.workspaceId, v: claims.visitorId, iat: Math.floor(now / 1000) });
	const signed = `${PREFIX}.${encodeBase64url(new TextEncoder().encode(json))}`;
	const key = await deriveKey(secret, KEY_LABEL);
	const signature = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(signed));
	return `${signed}.${encodeBase64url(new Uint8Array(signature))}`;
}

/**
 * The session a token carries, or null when it is not one we signed. It does not expire here: callers
 * that want a maximum age compare `issuedAt` (milliseconds) with their own clock.
 */
export async function verifyVisitorSession(secret: string, token: string): Promise<VisitorSession | null> {
	if (token.length > MAX_TOKEN_LENGTH) return null;
	const [prefix, payload, signaturePart, ...rest] = token.split('.');
	if (prefix !== PREFIX || payload === undefined || signaturePart === undefined || rest.length > 0) return null;
	const signature = decodeBase64url(signaturePart);
	if (signature === null) return null;
	// Nothing in the payload is read until the signature holds, so the JSON parser only ever sees our own output.
	const key = await deriveKey(secret, KEY_LABEL);
	const valid = await crypto.subtle.verify('HMAC', key, signature, new TextEncoder().encode(`${prefix}.${payload}`));
	if (!valid) return null;
	const claims = decodeBase64urlJson(payload);
	if (claims === null) return null;
	const { w, v, iat } = claims;
	if (typeof w !== 'string' || w === '' || typeof v !== 'string' || v === '') return null;
	if (typeof iat !== 'number' || !Number.isSafeInteger(iat) || iat < 0) return null;
	return { workspaceId: w, visitorId: v, issuedAt: iat * 1000 };
}

/** A new visitor id: `vis_` + 26 base62 characters (about 154 random bits). */
export function newVisitorId(): string {
	let out = '';
	while (out.length < VISITOR_ID_LENGTH) {
		for (const byte of crypto.getRandomValues(new Uint8Array(VISITOR_ID_LENGTH * 2))) {
			// 248 = 4 * 62: larger bytes would make the first characters of the alphabet more likely.
			if (byte < 248 && out.length < VISITOR_ID_LENGTH) out += BASE62[byte % 62];
		}
	}
	return `vis_${out}`;
}
