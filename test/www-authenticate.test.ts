import { describe, expect, it } from 'vitest';
import { generateToken } from '../src/auth/token';
import { api, expectError, seedWorkspace, widgetApi } from './factories';

describe('WWW-Authenticate (RFC 6750)', () => {
	const cases: [string, (token: string) => Record<string, string>, string][] = [
		['no Authorization header', () => ({}), 'Bearer realm="parley"'],
		['another scheme', (t) => ({ Authorization: `Basic ${t}` }), 'Bearer realm="parley"'],
		['"Bearer" alone', () => ({ Authorization: 'Bearer' }), 'Bearer realm="parley"'],
		['a malformed token', (t) => ({ Authorization: `Bearer "${t}"` }), 'Bearer realm="parley", error="invalid_token"'],
		[
			'an unknown token',
			() => ({ Authorization: `Bearer ${generateToken()}` }),
			'Bearer realm="parley", error="invalid_token"',
		],
	];
	for (const [name, headers, challenge] of cases) {
		it(`challenges ${name} with ${challenge}`, async () => {
			const { token } = await seedWorkspace();
			const res = await api(null, 'GET', '/v3/conversations', undefined, headers(token));
			await expectError(res, 401);
			expect(res.headers.get('WWW-Authenticate')).toBe(challenge);
		});
	}

	it('challenges a revoked token with error="invalid_token"', async () => {
		const { token } = await seedWorkspace();
		expect((await api(token, 'POST', '/v3/tokens/regenerate')).status).toBe(201);
		const res = await api(token, 'GET', '/v3/me');
		await expectError(res, 401);
		expect(res.headers.get('WWW-Authenticate')).toBe('Bearer realm="parley", error="invalid_token"');
	});

	it('names the Parley-Session header on a public widget 401', async () => {
		const { workspaceId } = await seedWorkspace();
		const res = await widgetApi('GET', `/widget/${workspaceId}/conversations`, undefined, 'pvs1.forged.token');
		await expectError(res, 401);
		expect(res.headers.get('WWW-Authenticate')).toBe('Parley-Session realm="parley"');
	});

	it('is on no other status', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const answers = await Promise.all([
			api(token, 'GET', '/v3/conversations'),
			api(token, 'GET', '/v3/conversations/conv_missing'),
			api(token, 'POST', '/v3/team/members', { email: 'bad' }),
			api(null, 'GET', '/health'),
			widgetApi('GET', `/widget/${workspaceId}/config`),
		]);
		expect(answers.map((res) => res.status)).toEqual([200, 404, 422, 200, 200]);
		for (const res of answers) expect(res.headers.get('WWW-Authenticate')).toBeNull();
	});
});
