import { beforeAll, describe, expect, it } from 'vitest';
import { signIdentityJwt, verifyIdentityJwt } from '../../src/auth/identity-jwt';
import { encodeBase64url, identitySecret } from '../../src/auth/secrets';

const DEPLOYMENT_SECRET = 'deployment-secret';
const NOW = 1_700_000_000_000;
const SEC = NOW / 1000;
const EXP = SEC + 300;

let secret: string;
beforeAll(async () => {
	secret = await identitySecret(DEPLOYMENT_SECRET, 'ws_1', 1);
});

const encodeJson = (value: unknown) => encodeBase64url(new TextEncoder().encode(JSON.stringify(value)));

/** A JWT with any header and payload text, signed with HMAC under the given hash, as a careless client might. */
async function signParts(header: object, payloadPart: string, key = secret, hash = 'SHA-256'): Promise<string> {
	const signed = `${encodeJson(header)}.${payloadPart}`;
	const bytes = new TextEncoder().encode(key);
	const hmac = await crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash }, false, ['sign']);
	const signature = await crypto.subtle.sign('HMAC', hmac, new TextEncoder().encode(signed));
	return `${signed}.${encodeBase64url(new Uint8Array(signature))}`;
}

const signRaw = (header: object, payload: object, key = secret, hash = 'SHA-256') =>
	signParts(header, encodeJson(payload), key, hash);

describe('identitySecret', () => {
	it('is pis_ and base64url HMAC-SHA256(secret, identity:<workspace>:<version>) (vector from Node crypto)', async () => {
		expect(await identitySecret(DEPLOYMENT_SECRET, 'ws_1', 1)).toBe('pis_fe0KsjqZCPfSE6mwZ4GM99O6O2K6POAjOYvXq2gPspg');
	});

	it('is stable for the same inputs and differs per workspace, version and deployment secret', async () => {
		const base = await identitySecret(DEPLOYMENT_SECRET, 'ws_1', 1);
		expect(await identitySecret(DEPLOYMENT_SECRET, 'ws_1', 1)).toBe(base);
		const others = await Promise.all([
			identitySecret(DEPLOYMENT_SECRET, 'ws_2', 1),
			identitySecret(DEPLOYMENT_SECRET, 'ws_1', 2),
			identitySecret('other-deployment-secret', 'ws_1', 1),
		]);
		expect(new Set([base, ...others]).size).toBe(4);
	});

	it.each([1.5, -1, Number.NaN])('refuses version %s', async (version) => {
		await expect(identitySecret(DEPLOYMENT_SECRET, 'ws_1', version)).rejects.toThrow(RangeError);
	});
});

describe('verifyIdentityJwt', () => {
	it.each([
		{ name: 'an email, lower-cased', claims: { email: 'Ada@Example.COM' }, expected: { email: 'ada@example.com' } },
		{ name: 'an external_id', claims: { external_id: 'user-1' }, expected: { externalId: 'user-1' } },
		{ name: 'a sub', claims: { sub: 'user-2' }, expected: { externalId: 'user-2' } },
		{
			name: 'external_id over sub',
			claims: { external_id: 'user-1', sub: 'user-2' },
			expected: { externalId: 'user-1' },
		},
		{
			name: 'email, external_id and name together',
			claims: { email: 'ada@example.com', external_id: 'user-1', name: 'Ada Lovelace', iat: SEC },
			expected: { email: 'ada@example.com', externalId: 'user-1', name: 'Ada Lovelace' },
		},
		{ name: 'unknown claims, which are ignored', claims: { sub: 'u', plan: 'pro' }, expected: { externalId: 'u' } },
	])('accepts $name', async ({ claims, expected }) => {
		const jwt = await signIdentityJwt(secret, { ...claims, exp: EXP });
		expect(await verifyIdentityJwt(secret, jwt, NOW)).toStrictEqual({
			ok: true,
			claims: { ...expected, expiresAt: EXP * 1000 },
		});
	});

	it('accepts a token signed by another HS256 implementation (vector from Node crypto)', async () => {
		const jwt =
			'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwiZW1haWwiOiJHcmFjZUBFeGFtcGxlLm9yZyIsImV4cCI6MTcwMDAwMDMwMCwiaWF0IjoxNzAwMDAwMDAwfQ.fx16hqm36UQpW7mBXrQHX6bPhMCmQjwQjGCD0KPqVcw';
		expect(await verifyIdentityJwt('pis_test-secret', jwt, NOW)).toStrictEqual({
			ok: true,
			claims: { email: 'grace@example.org', externalId: 'user-42', expiresAt: 1_700_000_300_000 },
		});
	});

	it.each([
		{ name: 'exp 29 s in the past', claims: { exp: SEC - 29 } },
		{ name: 'exp one hour and 29 s ahead', claims: { exp: SEC + 3600 + 29 } },
		{ name: 'iat 29 s in the future', claims: { exp: EXP, iat: SEC + 29 } },
		{ name: 'nbf 29 s in the future', claims: { exp: EXP, nbf: SEC + 29 } },
	])('allows 30 s of clock skew: $name', async ({ claims }) => {
		const result = await verifyIdentityJwt(secret, await signIdentityJwt(secret, { sub: 'u', ...claims }), NOW);
		expect(result.ok).toBe(true);
	});

	const valid = { email: 'ada@example.com', exp: EXP };
	it.each([
		{
			name: 'alg none without a signature',
			reason: 'algorithm',
			jwt: async () => `${encodeJson({ alg: 'none' })}.${encodeJson(valid)}.`,
		},
		{ name: 'alg none with an HS256 signature', reason: 'algorithm', jwt: () => signRaw({ alg: 'none' }, valid) },
		{ name: 'alg HS512', reason: 'algorithm', jwt: () => signRaw({ alg: 'HS512' }, valid, secret, 'SHA-512') },
		{ name: 'alg hs256 in lower case', reason: 'algorithm', jwt: () => signRaw({ alg: 'hs256' }, valid) },
		{ name: 'no alg', reason: 'algorithm', jwt: () => signRaw({ typ: 'JWT' }, valid) },
		{ name: 'typ other than JWT', reason: 'malformed', jwt: () => signRaw({ alg: 'HS256', typ: 'JWE' }, valid) },
		{
			name: 'a crit header',
			reason: 'malformed',
			jwt: () => signRaw({ alg: 'HS256', crit: ['b64'], b64: false }, valid),
		},
		{
			name: 'a changed signature character',
			reason: 'signature',
			jwt: async () => {
				const jwt = await signIdentityJwt(secret, valid);
				const at = jwt.length - 43;
				return `${jwt.slice(0, at)}${jwt[at] === 'A' ? 'B' : 'A'}${jwt.slice(at + 1)}`;
			},
		},
		{
			name: 'a payload swapped for another email',
			reason: 'signature',
			jwt: async () =>
				(await signIdentityJwt(secret, valid)).replace(
					/\.[^.]+\./,
					`.${encodeJson({ ...valid, email: 'eve@example.com' })}.`,
				),
		},
		{
			name: "another workspace's secret",
			reason: 'signature',
			jwt: async () => signIdentityJwt(await identitySecret(DEPLOYMENT_SECRET, 'ws_2', 1), valid),
		},
		{
			name: 'the rotated-out secret version',
			reason: 'signature',
			jwt: async () => signIdentityJwt(await identitySecret(DEPLOYMENT_SECRET, 'ws_1', 0), valid),
		},
		{
			name: 'exp 31 s in the past',
			reason: 'expired',
			jwt: () => signIdentityJwt(secret, { ...valid, exp: SEC - 31 }),
		},
		{
			name: 'exp one hour and 31 s ahead',
			reason: 'lifetime',
			jwt: () => signIdentityJwt(secret, { ...valid, exp: SEC + 3631 }),
		},
		{
			name: 'iat 31 s in the future',
			reason: 'lifetime',
			jwt: () => signIdentityJwt(secret, { ...valid, iat: SEC + 31 }),
		},
		{
			name: 'nbf 31 s in the future',
			reason: 'lifetime',
			jwt: () => signIdentityJwt(secret, { ...valid, nbf: SEC + 31 }),
		},
		{ name: 'no exp', reason: 'claims', jwt: () => signIdentityJwt(secret, { email: 'ada@example.com' }) },
		{ name: 'exp as a string', reason: 'claims', jwt: () => signIdentityJwt(secret, { ...valid, exp: String(EXP) }) },
		{ name: 'iat as a string', reason: 'claims', jwt: () => signIdentityJwt(secret, { ...valid, iat: String(SEC) }) },
		{
			name: 'no email, external_id or sub',
			reason: 'claims',
			jwt: () => signIdentityJwt(secret, { name: 'Ada', exp: EXP }),
		},
		{ name: 'a numeric email', reason: 'claims', jwt: () => signIdentityJwt(secret, { ...valid, email: 42 }) },
		{ name: 'a null email', reason: 'claims', jwt: () => signIdentityJwt(secret, { ...valid, email: null }) },
		{
			name: 'a numeric external_id',
			reason: 'claims',
			jwt: () => signIdentityJwt(secret, { external_id: 42, exp: EXP }),
		},
		{
			name: 'an empty external_id',
			reason: 'claims',
			jwt: () => signIdentityJwt(secret, { external_id: '', exp: EXP }),
		},
		{
			name: 'a 129-character external_id',
			reason: 'claims',
			jwt: () => signIdentityJwt(secret, { external_id: 'x'.repeat(129), exp: EXP }),
		},
		{ name: 'a boolean sub', reason: 'claims', jwt: () => signIdentityJwt(secret, { sub: true, exp: EXP }) },
		{ name: 'a numeric name', reason: 'claims', jwt: () => signIdentityJwt(secret, { ...valid, name: 5 }) },
		{
			name: 'a 201-character name',
			reason: 'claims',
			jwt: () => signIdentityJwt(secret, { ...valid, name: 'n'.repeat(201) }),
		},
		{
			name: 'a correctly signed payload that is not JSON',
			reason: 'malformed',
			jwt: () => signParts({ alg: 'HS256' }, encodeBase64url(new TextEncoder().encode('{exp:1'))),
		},
		{
			name: 'two parts',
			reason: 'malformed',
			jwt: async () => (await signIdentityJwt(secret, valid)).split('.').slice(0, 2).join('.'),
		},
		{ name: 'four parts', reason: 'malformed', jwt: async () => `${await signIdentityJwt(secret, valid)}.AAAA` },
		{
			name: 'a header that is not JSON',
			reason: 'malformed',
			jwt: async () => (await signIdentityJwt(secret, valid)).replace(/^[^.]+/, 'bm9wZQ'),
		},
		{
			name: 'a header that is not base64url',
			reason: 'malformed',
			jwt: async () => (await signIdentityJwt(secret, valid)).replace(/^[^.]+/, 'e30='),
		},
		{ name: 'an empty string', reason: 'malformed', jwt: async () => '' },
	])('refuses $name as $reason', async ({ jwt, reason }) => {
		expect(await verifyIdentityJwt(secret, await jwt(), NOW)).toStrictEqual({ ok: false, reason });
	});

	it.each([
		'not-an-email',
		'ada@localhost',
		'ada@example.',
		'ada@@example.com',
		'ada lovelace@example.com',
		'ada@example..com',
		'ada\u0000@example.com',
		'',
		`${'a'.repeat(243)}@example.com`,
	])('refuses the email %j as claims', async (email) => {
		const jwt = await signIdentityJwt(secret, { email, exp: EXP });
		expect(await verifyIdentityJwt(secret, jwt, NOW)).toStrictEqual({ ok: false, reason: 'claims' });
	});

	it('accepts an email of exactly 254 characters', async () => {
		const email = `${'a'.repeat(242)}@example.com`;
		const result = await verifyIdentityJwt(secret, await signIdentityJwt(secret, { email, exp: EXP }), NOW);
		expect(result).toStrictEqual({ ok: true, claims: { email, expiresAt: EXP * 1000 } });
	});

	it('refuses JWTs longer than 4096 characters as malformed, even correctly signed ones', async () => {
		const seen = { accepted: 0, refused: 0 };
		for (let n = 2950; n <= 2990; n++) {
			const jwt = await signIdentityJwt(secret, { ...valid, padding: 'p'.repeat(n) });
			const result = await verifyIdentityJwt(secret, jwt, NOW);
			expect(result).toStrictEqual(
				jwt.length <= 4096
					? { ok: true, claims: { email: valid.email, expiresAt: EXP * 1000 } }
					: { ok: false, reason: 'malformed' },
			);
			if (result.ok) seen.accepted++;
			else seen.refused++;
		}
		expect(seen.accepted).toBeGreaterThan(0);
		expect(seen.refused).toBeGreaterThan(0);
	});
});
