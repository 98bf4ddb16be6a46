import { describe, expect, it } from 'vitest';
import { deriveKey, encodeBase64url } from '../../src/auth/secrets';
import { newVisitorId, signVisitorSession, verifyVisitorSession } from '../../src/auth/visitor-session';

const SECRET = 'deployment-secret';
const NOW = 1_700_000_000_123;
const CLAIMS = { workspaceId: 'ws_1', visitorId: 'vis_A' };

const encodeJson = (value: unknown) => encodeBase64url(new TextEncoder().encode(JSON.stringify(value)));

async function hmacBase64url(key: CryptoKey, message: string): Promise<string> {
	return encodeBase64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(message))));
}

/** A token with a valid signature around any prefix and payload, to show what else verification refuses. */
async function signRaw(prefix: string, payload: string, secret = SECRET): Promise<string> {
	const key = await deriveKey(secret, 'visitor-session');
	return `${prefix}.${payload}.${await hmacBase64url(key, `${prefix}.${payload}`)}`;
}

function replaceAt(text: string, index: number): string {
	const char = text.at(index) === 'A' ? 'B' : 'A';
	return text.slice(0, index) + char + text.slice(index).slice(1);
}

/** The following base64url character: same high bits, so only the last character's unused bits change. */
function nextChar(char: string | undefined): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
	return alphabet[(alphabet.indexOf(char ?? 'A') + 1) % 64] ?? 'A';
}

describe('deriveKey', () => {
	it('uses HMAC-SHA256(secret, label) as the key bytes (vector from Node crypto)', async () => {
		const key = await deriveKey(SECRET, 'visitor-session');
		expect(await hmacBase64url(key, 'hello')).toBe('ZVHv0tWKuY8PqBApCvbIRBIDvEkQtBH-46Kk94uqgbU');
	});

	it('gives a different key per label and per secret, the same one for the same inputs', async () => {
		const mac = async (secret: string, label: string) => hmacBase64url(await deriveKey(secret, label), 'message');
		const base = await mac(SECRET, 'visitor-session');
		expect(await mac(SECRET, 'visitor-session')).toBe(base);
		expect(await mac(SECRET, 'identity:ws_1:1')).not.toBe(base);
		expect(await mac('other-secret', 'visitor-session')).not.toBe(base);
	});

	it('refuses an empty secret instead of signing with it', async () => {
		await expect(deriveKey('', 'visitor-session')).rejects.toThrow(/PARLEY_SECRET/);
	});
});

describe('visitor session tokens', () => {
	it('round-trips the workspace, the visitor and the issue time to the second', async () => {
		const token = await signVisitorSession(SECRET, CLAIMS, NOW);
		expect(token).toMatch(/^pvs1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
		expect(await verifyVisitorSession(SECRET, token)).toStrictEqual({
			workspaceId: 'ws_1',
			visitorId: 'vis_A',
			issuedAt: 1_700_000_000_000,
		});
	});

	it.each([
		{
			name: 'a payload swapped for another visitor',
			tamper: (t: string) => t.replace(/\.[^.]+\./, `.${encodeJson({ w: 'ws_1', v: 'vis_B', iat: 1_700_000_000 })}.`),
		},
		{ name: 'a changed payload character', tamper: (t: string) => replaceAt(t, 6) },
		{ name: 'a changed signature character', tamper: (t: string) => replaceAt(t, -43) },
		// 43 characters carry 258 bits for a 256-bit MAC: the last one has unused bits that must not be ignored.
		{ name: 'a non-canonical last signature character', tamper: (t: string) => t.slice(0, -1) + nextChar(t.at(-1)) },
		{ name: 'a truncated signature', tamper: (t: string) => t.slice(0, -2) },
		{ name: 'padding after the signature', tamper: (t: string) => `${t}=` },
		{ name: 'an extra segment', tamper: (t: string) => `${t}.AAAA` },
	])('rejects $name', async ({ tamper }) => {
		const token = await signVisitorSession(SECRET, CLAIMS, NOW);
		const tampered = tamper(token);
		expect(tampered).not.toBe(token);
		expect(await verifyVisitorSession(SECRET, token)).not.toBeNull();
		expect(await verifyVisitorSession(SECRET, tampered)).toBeNull();
	});

	it('rejects a token signed with another deployment secret', async () => {
		const token = await signVisitorSession('other-secret', CLAIMS, NOW);
		expect(await verifyVisitorSession('other-secret', token)).not.toBeNull();
		expect(await verifyVisitorSession(SECRET, token)).toBeNull();
	});

	it.each([
		{ name: 'another prefix', prefix: 'pvs2', payload: encodeJson({ w: 'ws_1', v: 'vis_A', iat: 1 }) },
		{ name: 'no prefix', prefix: '', payload: encodeJson({ w: 'ws_1', v: 'vis_A', iat: 1 }) },
		{ name: 'payload that is not base64url', prefix: 'pvs1', payload: 'e30+' },
		{ name: 'padded payload', prefix: 'pvs1', payload: `${encodeJson({ w: 'ws_1', v: 'vis_A', iat: 1 })}==` },
		{ name: 'payload that is not JSON', prefix: 'pvs1', payload: encodeBase64url(new TextEncoder().encode('{w:1')) },
		{ name: 'payload that is a JSON array', prefix: 'pvs1', payload: encodeJson(['ws_1', 'vis_A', 1]) },
		{ name: 'missing workspace', prefix: 'pvs1', payload: encodeJson({ v: 'vis_A', iat: 1 }) },
		{ name: 'empty visitor', prefix: 'pvs1', payload: encodeJson({ w: 'ws_1', v: '', iat: 1 }) },
		{ name: 'numeric visitor', prefix: 'pvs1', payload: encodeJson({ w: 'ws_1', v: 7, iat: 1 }) },
		{ name: 'iat as a string', prefix: 'pvs1', payload: encodeJson({ w: 'ws_1', v: 'vis_A', iat: '1' }) },
		{ name: 'fractional iat', prefix: 'pvs1', payload: encodeJson({ w: 'ws_1', v: 'vis_A', iat: 1.5 }) },
		{ name: 'negative iat', prefix: 'pvs1', payload: encodeJson({ w: 'ws_1', v: 'vis_A', iat: -1 }) },
	])('rejects a correctly signed token with $name', async ({ prefix, payload }) => {
		expect(await verifyVisitorSession(SECRET, await signRaw(prefix, payload))).toBeNull();
	});

	it('accepts the same hand-built token when prefix and payload are right', async () => {
		const token = await signRaw('pvs1', encodeJson({ w: 'ws_1', v: 'vis_A', iat: 1 }));
		expect(await verifyVisitorSession(SECRET, token)).toStrictEqual({
			workspaceId: 'ws_1',
			visitorId: 'vis_A',
			issuedAt: 1000,
		});
	});

	it.each(['', 'pvs1', 'pvs1.', 'pvs1..', 'pvs1.e30.', '...', 'not a token', 'pvs1.🙂.🙂', 'Bearer pvs1.a.b'])(
		'rejects garbage %j',
		async (garbage) => {
			expect(await verifyVisitorSession(SECRET, garbage)).toBeNull();
		},
	);

	it('refuses tokens longer than 1024 characters, even correctly signed ones', async () => {
		const lengths = { accepted: 0, refused: 0 };
		for (let n = 680; n <= 720; n++) {
			const token = await signVisitorSession(SECRET, { workspaceId: 'ws_1', visitorId: 'x'.repeat(n) }, NOW);
			const session = await verifyVisitorSession(SECRET, token);
			expect(session !== null).toBe(token.length <= 1024);
			if (session) lengths.accepted++;
			else lengths.refused++;
		}
		expect(lengths.accepted).toBeGreaterThan(0);
		expect(lengths.refused).toBeGreaterThan(0);
	});
});

describe('newVisitorId', () => {
	it('is vis_ and 26 base62 characters, unique over 1000 ids, drawing on the whole alphabet', () => {
		const ids = Array.from({ length: 1000 }, newVisitorId);
		for (const id of ids) expect(id).toMatch(/^vis_[0-9A-Za-z]{26}$/);
		expect(new Set(ids).size).toBe(1000);
		// 26,000 uniform draws from 62 characters miss one with probability about 62 * (61/62)^26000, i.e. never.
		expect(new Set(ids.join('').replaceAll('vis_', '')).size).toBe(62);
	});

	it('favours no characters: 0-7 are not drawn more often, as a plain byte % 62 would make them', () => {
		const chars = Array.from({ length: 1000 }, () => newVisitorId().slice(4)).join('');
		const share = chars.replaceAll(/[^0-7]/g, '').length / chars.length;
		// Unbiased: 8/62 = 0.129 (standard deviation 0.002 over 26,000 draws); modulo bias: 40/256 = 0.156.
		expect(share).toBeGreaterThan(0.115);
		expect(share).toBeLessThan(0.143);
	});
});
