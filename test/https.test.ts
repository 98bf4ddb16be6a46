import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { operators } from '../src/db/schema';
import { isLocalDevelopment } from '../src/http/https-only';
import worker from '../src/index';
import { db, expectError, seedWorkspace } from './factories';

/** Calls the Worker at an absolute URL, as a client on that scheme and host would. */
function call(url: string, init: RequestInit = {}): Promise<Response> {
	return exports.default.fetch(new Request(url, { ...init, redirect: 'manual' }));
}

describe('HTTPS outside local development', () => {
	it('refuses a /v3 request over plain HTTP with 403 and the error body, before the token or D1', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const res = await call('http://api.parley.example/v3/team/members?x=1', {
			method: 'POST',
			headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({ email: 'plain@example.com', name: 'Plain', permissions: [] }),
		});
		const body = await expectError(res, 403);
		expect(body.message).toContain('https://api.parley.example/v3/team/members');
		expect(body.message).not.toContain('x=1');
		// Neither the route nor the token check ran: no D1 statement, no operator created.
		expect(res.headers.get('Server-Timing')).toBeNull();
		expect(res.headers.get('RateLimit')).toBeNull();
		const [row] = await db.select({ n: count() }).from(operators).where(eq(operators.workspaceId, workspaceId));
		expect(row?.n).toBe(1);
	});

	it('refuses a public widget request over plain HTTP too (it carries a visitor session)', async () => {
		const { workspaceId } = await seedWorkspace();
		await expectError(await call(`http://chat.parley.example/widget/${workspaceId}/config`), 403);
	});

	it('serves plain HTTP from any host when HTTPS_ONLY is "off" (npm run dev, reached from the LAN)', async () => {
		const { token } = await seedWorkspace();
		const request = new Request('http://192.168.1.20:8787/v3/conversations', {
			headers: { Authorization: `Bearer ${token}` },
		});
		const ctx = createExecutionContext();
		const res = await worker.fetch(request, { ...env, HTTPS_ONLY: 'off' }, ctx);
		await waitOnExecutionContext(ctx);
		expect(res.status).toBe(200);
		await expectError(await call('http://192.168.1.20:8787/v3/conversations'), 403);
	});

	it('redirects a page over plain HTTP to the same URL on https', async () => {
		for (const path of ['/demo', '/', '/health']) {
			const res = await call(`http://chat.parley.example${path}?utm_source=x`);
			expect(res.status).toBe(301);
			expect(res.headers.get('Location')).toBe(`https://chat.parley.example${path}?utm_source=x`);
		}
	});

	it('refuses a page write over plain HTTP instead of redirecting it', async () => {
		await expectError(await call('http://chat.parley.example/demo', { method: 'POST' }), 403);
	});

	it('serves local development over plain HTTP', async () => {
		const { token } = await seedWorkspace();
		for (const origin of [
			'http://localhost:8787',
			'http://127.0.0.1:8787',
			'http://[::1]:8787',
			'http://parley.localhost',
		]) {
			const res = await call(`${origin}/v3/conversations`, { headers: { Authorization: `Bearer ${token}` } });
			expect(res.status, origin).toBe(200);
		}
	});

	it.each([
		['localhost', true],
		['LOCALHOST', true],
		['app.localhost', true],
		['127.0.0.1', true],
		['[::1]', true],
		['localhost.example.com', false],
		['127.0.0.2.nip.io', false],
		['parley.example', false],
	])('counts %s as local development: %s', (hostname, local) => {
		expect(isLocalDevelopment(hostname)).toBe(local);
	});
});
