import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RequestLogLine } from '../src/http/request-log';
import { api, expectError, seedWorkspace, widgetApi, withTableOffline } from './factories';

// In a file of its own: the 500 test breaks this file's (isolated) database on purpose, so it runs last.

/** The request-log lines written while `run` ran: objects passed to console.error or console.warn. */
async function loggedDuring(run: () => Promise<unknown>): Promise<RequestLogLine[]> {
	const error = vi.spyOn(console, 'error').mockImplementation(() => {});
	const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
	const log = vi.spyOn(console, 'log').mockImplementation(() => {});
	try {
		await run();
		return [...error.mock.calls, ...warn.mock.calls, ...log.mock.calls]
			.map((args) => args[0])
			.filter((first): first is RequestLogLine => typeof first === 'object' && first !== null && 'requestId' in first);
	} finally {
		error.mockRestore();
		warn.mockRestore();
		log.mockRestore();
	}
}

afterEach(() => {
	vi.restoreAllMocks();
});

describe('the request log', () => {
	it('writes nothing for a fast 200, nor for a fast 4xx', async () => {
		const { token } = await seedWorkspace();
		const lines = await loggedDuring(async () => {
			expect((await api(token, 'GET', '/v3/conversations')).status).toBe(200);
			expect((await api(null, 'GET', '/health')).status).toBe(200);
			expect((await api(null, 'GET', '/v3/conversations')).status).toBe(401);
			expect((await api(token, 'GET', '/v3/nowhere')).status).toBe(404);
		});
		expect(lines).toEqual([]);
	});

	it('writes one warn line for a request slower than SLOW_REQUEST_MS, with its route and workspace', async () => {
		const { token, workspaceId } = await seedWorkspace();
		// The clock is the one thing faked: 1.5 s pass between the request's start and its end, without sleeping.
		let calls = 0;
		const now = performance.now();
		vi.spyOn(performance, 'now').mockImplementation(() => now + 1500 * calls++);
		const lines = await loggedDuring(() =>
			api(token, 'GET', '/v3/conversations?limit=5', undefined, { 'cf-ray': 'ray-slow-1' }),
		);
		vi.mocked(performance.now).mockRestore();
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatchObject({
			level: 'warn',
			msg: 'slow request',
			requestId: 'ray-slow-1',
			method: 'GET',
			route: '/v3/conversations',
			status: 200,
			workspaceId,
			d1Queries: 2,
		});
		expect(lines[0]?.durationMs).toBeGreaterThanOrEqual(Number(env.SLOW_REQUEST_MS));
		expect(JSON.stringify(lines[0])).not.toContain('limit=5');
	});

	it('names the workspace of a public widget path and generates a request id when cf-ray is absent', async () => {
		const { workspaceId } = await seedWorkspace();
		let calls = 0;
		const now = performance.now();
		vi.spyOn(performance, 'now').mockImplementation(() => now + 1500 * calls++);
		const lines = await loggedDuring(() => widgetApi('GET', `/widget/${workspaceId}/config`));
		vi.mocked(performance.now).mockRestore();
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatchObject({ route: '/widget/:workspaceId/config', workspaceId });
		expect(lines[0]?.requestId).toMatch(/^[0-9a-f-]{36}$/);
	});

	it('names the route that answered, not a later one the path also matches', async () => {
		const { token } = await seedWorkspace();
		let calls = 0;
		const now = performance.now();
		vi.spyOn(performance, 'now').mockImplementation(() => now + 1500 * calls++);
		const lines = await loggedDuring(() => api(token, 'GET', '/v3/conversations/search?q=refund'));
		vi.mocked(performance.now).mockRestore();
		expect(lines[0]).toMatchObject({ route: '/v3/conversations/search', status: 200 });
	});

	it('writes one error line for a 500, with the request id, route and error, and never the token or query', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await env.DB.exec('DROP TABLE canned_replies');
		let res: Response | undefined;
		const lines = await loggedDuring(async () => {
			// A query parameter the route declares: an undeclared one is refused (422) before anything fails.
			res = await api(token, 'GET', '/v3/canned-replies?q=hunter2', undefined, {
				'cf-ray': '8f1c2d3e4a5b6c7d-LIS',
				Cookie: 'session=cookie-value',
			});
		});
		await expectError(res as Response, 500);
		expect(lines).toHaveLength(1);
		const [line] = lines;
		expect(line).toMatchObject({
			level: 'error',
			msg: 'request failed',
			requestId: '8f1c2d3e4a5b6c7d-LIS',
			method: 'GET',
			route: '/v3/canned-replies',
			status: 500,
			workspaceId,
		});
		expect(line?.d1Queries).toBeGreaterThanOrEqual(2);
		expect(line?.error?.name).toBe('Error');
		expect(line?.error?.message).toMatch(/canned_replies/);
		expect(line?.error?.stack).toBeTruthy();
		const text = JSON.stringify(line);
		for (const secret of [token, 'hunter2', 'cookie-value', 'Bearer']) expect(text).not.toContain(secret);
	});

	it('logs the SQL of a failed query but never its values (a contact’s e-mail and name)', async () => {
		const { token } = await seedWorkspace();
		let res: Response | undefined;
		await withTableOffline('contacts', async () => {
			const lines = await loggedDuring(async () => {
				res = await api(token, 'POST', '/v3/conversations', {
					contact: { email: 'private.person@example.com', name: 'Private Person' },
				});
			});
			await expectError(res as Response, 500);
			expect(lines).toHaveLength(1);
			expect(lines[0]?.error?.message).toMatch(/^Failed query: .*contacts/);
			const text = JSON.stringify(lines[0]);
			for (const value of ['private.person@example.com', 'Private Person', 'params:']) {
				expect(text).not.toContain(value);
			}
		});
	});
});
