import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { FixedWindow } from '../durable-objects/fixed-window';
import { leaseSize } from '../durable-objects/room-sockets';
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

describe('FixedWindow (the count of the token gates and the limiters)', () => {
	it('starts a new count when the minute turns', () => {
		const window = new FixedWindow();
		const minute = 60_000 * 40_000_000;
		expect(window.hit(2, 60, minute + 1_000).allowed).toBe(true);
		expect(window.hit(2, 60, minute + 2_000).allowed).toBe(true);
		const third = window.hit(2, 60, minute + 3_000);
		expect(third).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 57 });
		expect(window.hit(2, 60, minute + 60_000).allowed).toBe(true);
	});
});

describe('leases (an operator socket takes its budget a few units at a time)', () => {
	it('grants what is left of the window up to the units asked, counts them at once, and refuses when none is left', () => {
		const limiter = new FixedWindow();
		const at = Date.UTC(2026, 10, 23, 12, 0, 5);
		const grants = [];
		for (let i = 0; i < 4; i++) grants.push(limiter.hit(10, 60, at + i, 4));
		expect(grants.map((d) => [d.granted, d.remaining, d.allowed])).toEqual([
			[4, 6, true],
			[4, 2, true],
			[2, 0, true],
			[0, 0, false],
		]);
		// A single request after the leases sees them counted: the budget is never exceeded.
		expect(limiter.hit(10, 60, at + 10).allowed).toBe(false);
	});

	it('leases a second of the limit at a time, from 1 to 20', () => {
		expect([40, 120, 6_000, 100_000_000].map(leaseSize)).toEqual([1, 2, 20, 20]);
	});
});

describe('RateLimiter storage', () => {
	/** The names of the object's own tables (SQLite keeps a few internal ones of its own). */
	const tables = (stub: DurableObjectStub) =>
		runInDurableObject(stub, (_instance, state) =>
			state.storage.sql
				.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'")
				.toArray()
				.map((t) => t.name),
		);

	it('counts in memory: an instance that counted stores nothing and sets no alarm', async () => {
		const stub = env.RATE_LIMITER.getByName(`memory-${crypto.randomUUID()}`);
		expect((await stub.hit(1, 60)).allowed).toBe(true);
		expect((await stub.hit(1, 60)).allowed).toBe(false);
		expect(await tables(stub)).toEqual([]);
		expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBeNull();
	});

	it('clears what an older release stored (its window table) when that release’s alarm fires', async () => {
		const stub = env.RATE_LIMITER.getByName(`legacy-${crypto.randomUUID()}`);
		await runInDurableObject(stub, async (_instance, state) => {
			state.storage.sql.exec('CREATE TABLE limiter_window (id INTEGER PRIMARY KEY, started_at INTEGER, count INTEGER)');
			await state.storage.setAlarm(Date.now());
		});
		await runDurableObjectAlarm(stub);
		await expect.poll(() => tables(stub)).toEqual([]);
	});
});
