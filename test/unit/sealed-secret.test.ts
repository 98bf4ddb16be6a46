import { describe, expect, it } from 'vitest';
import { SealedSecretError, seal, unseal } from '../../src/auth/sealed-secret';

const ENV = { PARLEY_SECRET: 'a-deployment-secret-of-at-least-32-bytes!' };
const OTHER_ENV = { PARLEY_SECRET: 'another-deployment-secret-of-32-bytes!!!' };

describe('sealed secrets', () => {
	it('open for the context they were sealed for, and do not show the value', async () => {
		const sealed = await seal(ENV, 'ws_a:wan_1:accessToken', 'EAAG-token-éè');
		expect(sealed.split('.')).toHaveLength(5);
		expect(sealed).not.toContain('EAAG');
		expect(await unseal(ENV, 'ws_a:wan_1:accessToken', sealed)).toBe('EAAG-token-éè');
	});

	it('seal the same value differently each time (a fresh nonce)', async () => {
		const a = await seal(ENV, 'ws_a:wan_1:appSecret', 'same');
		const b = await seal(ENV, 'ws_a:wan_1:appSecret', 'same');
		expect(a).not.toBe(b);
	});

	it('refuse another context, another secret and altered bytes', async () => {
		const sealed = await seal(ENV, 'ws_a:wan_1:accessToken', 'token');
		await expect(unseal(ENV, 'ws_b:wan_1:accessToken', sealed)).rejects.toThrow(SealedSecretError);
		await expect(unseal(ENV, 'ws_a:wan_1:appSecret', sealed)).rejects.toThrow(SealedSecretError);
		await expect(unseal(OTHER_ENV, 'ws_a:wan_1:accessToken', sealed)).rejects.toThrow(SealedSecretError);
		const parts = sealed.split('.');
		const text = parts[3] ?? '';
		parts[3] = `${text.at(0) === 'A' ? 'B' : 'A'}${text.slice(1)}`;
		await expect(unseal(ENV, 'ws_a:wan_1:accessToken', parts.join('.'))).rejects.toThrow(SealedSecretError);
		// A header rewritten to name the other context breaks the authentication tag.
		const header = JSON.parse(atob((sealed.split('.')[0] ?? '').replaceAll('-', '+').replaceAll('_', '/')));
		const forged = btoa(JSON.stringify({ ...header, ctx: 'ws_b:wan_1:accessToken' }))
			.replaceAll('+', '-')
			.replaceAll('/', '_')
			.replace(/=+$/, '');
		await expect(
			unseal(ENV, 'ws_b:wan_1:accessToken', [forged, ...sealed.split('.').slice(1)].join('.')),
		).rejects.toThrow(SealedSecretError);
	});
});
