/**
 * The signed links mail carries, which a customer opens without any credential: the one-click stop link of
 * continuation mails and the unsubscribe link of campaign mails (each names a contact, and never expires: a
 * mail read a year later must still stop them; each has its own purpose, so a continuation's stop link never
 * unsubscribes from campaigns nor the reverse) and the link of a file too large to attach (it names a file,
 * and expires). A token is `<base64url payload>.<base64url HMAC-SHA256>` with a key derived from PARLEY_SECRET
 * for this purpose alone; its payload scopes it to one workspace and one contact or file, so no token opens
 * anything else.
 */
import { decodeBase64url, decodeBase64urlJson, deploymentSecret, deriveKey, encodeBase64url } from './secrets';

/** What a link's token names. */
export type MailLink =
	| { purpose: 'stop'; workspaceId: string; contactId: string }
	| { purpose: 'unsubscribe'; workspaceId: string; contactId: string }
	| { purpose: 'file'; workspaceId: string; fileId: string; expiresAt: number };

/** How long a file link works: a month, long enough for a mail read late, short enough not to be a share link. */
export const FILE_LINK_TTL_MS = 30 * 86_400_000;

async function mac(env: Pick<Env, 'PARLEY_SECRET'>, payload: string): Promise<string> {
	const key = await deriveKey(deploymentSecret(env), 'mail-link');
	return encodeBase64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(payload))));
}

/** The token of a link (URL-safe as it is). */
export async function signMailLink(env: Pick<Env, 'PARLEY_SECRET'>, link: MailLink): Promise<string> {
	const payload = encodeBase64url(new TextEncoder().encode(JSON.stringify(link)));
	return `${payload}.${await mac(env, payload)}`;
}

/**
 * What a token names, or null when it is not one Parley signed, was altered, or (a file link) has expired.
 * The signature is compared in constant time.
 */
export async function verifyMailLink(
	env: Pick<Env, 'PARLEY_SECRET'>,
	token: string,
	now = Date.now(),
): Promise<MailLink | null> {
	const [payload, signature, extra] = token.split('.');
	if (!payload || !signature || extra !== undefined || token.length > 1024) return null;
	const given = decodeBase64url(signature);
	const expected = decodeBase64url(await mac(env, payload));
	if (!given || !expected || given.byteLength !== expected.byteLength) return null;
	if (!crypto.subtle.timingSafeEqual(given, expected)) return null;
	const body = decodeBase64urlJson(payload);
	if (body === null || typeof body.workspaceId !== 'string') return null;
	if ((body.purpose === 'stop' || body.purpose === 'unsubscribe') && typeof body.contactId === 'string') {
		return { purpose: body.purpose, workspaceId: body.workspaceId, contactId: body.contactId };
	}
	if (body.purpose === 'file' && typeof body.fileId === 'string' && typeof body.expiresAt === 'number') {
		if (body.expiresAt <= now) return null;
		return { purpose: 'file', workspaceId: body.workspaceId, fileId: body.fileId, expiresAt: body.expiresAt };
	}
	return null;
}
