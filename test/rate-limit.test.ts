import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, awayFromMinuteBoundary, expectError, seedWorkspace } from './factories';

describe('rate limiting per token', () => {
	it('answers 429 with Retry-After and the IETF RateLimit headers once the limit is reached', async () => {
		const limit = Number(env.RATE_LIMIT_PER_MINUTE);
		const { token } = await seedWorkspace();
		await awayFromMinuteBoundary();
		for (let i = 1; i <= limit; i++) {
			const res = await api(token, 'GET', '/v3/widget/settings');
			expect(res.status).toBe(200);
			expect(res.headers.get('RateLimit-Policy')).toBe(`"per-token";q=${limit};w=60`);
			expect(res.headers.get('RateLimit')).toMatch(new RegExp(`^"per-token";r=${limit - i};t=\\d+$`));
		}
		const over = await api(token, 'GET', '/v3/widget/settings');
		const body = await expectError(over, 429);
		expect(body.error).toBe('Too Many Requests');
		const retryAfter = Number(over.headers.get('Retry-After'));
		expect(retryAfter).toBeGreaterThanOrEqual(1);
		expect(retryAfter).toBeLessThanOrEqual(60);
		expect(over.headers.get('RateLimit')).toMatch(/^"per-token";r=0;t=\d+$/);
	});

	it('counts each token on its own', async () => {
		const limit = Number(env.RATE_LIMIT_PER_MINUTE);
		const first = await seedWorkspace();
		const second = await seedWorkspace();
		await awayFromMinuteBoundary();
		for (let i = 0; i < limit; i++) await api(first.token, 'GET', '/v3/widget/settings');
		await expectError(await api(first.token, 'GET', '/v3/widget/settings'), 429);
		expect((await api(second.token, 'GET', '/v3/widget/settings')).status).toBe(200);
	});
});

describe('rate limit and regeneration', () => {
	it('keeps counting across a regenerated token, so regenerating buys no fresh budget', async () => {
		const limit = Number(env.RATE_LIMIT_PER_MINUTE);
		const { token } = await seedWorkspace();
		await awayFromMinuteBoundary();
		for (let i = 0; i < limit - 1; i++) await api(token, 'GET', '/v3/widget/settings');
		const regenerated = await api(token, 'POST', '/v3/tokens/regenerate');
		expect(regenerated.status).toBe(201);
		const { token: fresh } = (await regenerated.json()) as { token: string };
		await expectError(await api(fresh, 'GET', '/v3/widget/settings'), 429);
	});
});

describe('RateLimiter window', () => {
	it('starts a new count when the minute turns', async () => {
		const stub = env.RATE_LIMITER.getByName('window-test');
		const minute = 60_000 * 29_000_000;
		expect((await stub.hit(2, 60, minute + 1_000)).allowed).toBe(true);
		expect((await stub.hit(2, 60, minute + 2_000)).allowed).toBe(true);
		const third = await stub.hit(2, 60, minute + 3_000);
		expect(third).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 57 });
		expect((await stub.hit(2, 60, minute + 60_000)).allowed).toBe(true);
	});
});
