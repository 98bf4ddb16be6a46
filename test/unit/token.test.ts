import { describe, expect, it } from 'vitest';
import { digestsEqual, generateToken, hashToken, isWellFormedToken, tokenHint } from '../../src/auth/token';

describe('Token V3 format', () => {
	it('generates prefixed, checksummed tokens with 256 random bits that differ every time', () => {
		const tokens = Array.from({ length: 200 }, generateToken);
		for (const token of tokens) {
			expect(token).toMatch(/^prly_[0-9A-Za-z]{49}$/);
			expect(isWellFormedToken(token)).toBe(true);
		}
		expect(new Set(tokens).size).toBe(tokens.length);
	});

	it('rejects any single-character change through the checksum', () => {
		const token = generateToken();
		for (let i = 5; i < token.length; i++) {
			const swapped = token[i] === 'a' ? 'b' : 'a';
			expect(isWellFormedToken(token.slice(0, i) + swapped + token.slice(i + 1))).toBe(false);
		}
	});

	it('rejects wrong prefixes, lengths and characters', () => {
		const token = generateToken();
		expect(isWellFormedToken(token.replace('prly_', 'ghp_'))).toBe(false);
		expect(isWellFormedToken(token.slice(0, -1))).toBe(false);
		expect(isWellFormedToken(`${token}0`)).toBe(false);
		expect(isWellFormedToken(`"${token}"`)).toBe(false);
		expect(isWellFormedToken('')).toBe(false);
	});

	it('hashes to a stable SHA-256 hex digest and compares digests exactly', async () => {
		const token = generateToken();
		const digest = await hashToken(token);
		expect(digest).toMatch(/^[0-9a-f]{64}$/);
		expect(await hashToken(token)).toBe(digest);
		expect(digestsEqual(digest, await hashToken(token))).toBe(true);
		expect(digestsEqual(digest, await hashToken(generateToken()))).toBe(false);
		expect(digestsEqual(digest, digest.slice(1))).toBe(false);
	});

	it('keeps the checksum and the digest of a token issued before (stored tokens go on working)', async () => {
		// Computed once with the first implementation (a TextEncoder CRC32 and Node's SHA-256).
		const token = 'prly_Parley0123456789abcdefghijklmnopqrstuvwxyzA3Bgir5';
		expect(isWellFormedToken(token)).toBe(true);
		expect(await hashToken(token)).toBe('d351a66b89b07ccebf752d4fde59a148f7bf324ec35da999cfc67d89231b3313');
	});

	it('shows only the last four characters as a hint', () => {
		const token = generateToken();
		expect(tokenHint(token)).toBe(`prly_…${token.slice(-4)}`);
	});
});
