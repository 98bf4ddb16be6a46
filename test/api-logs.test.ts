import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiLogs } from '../src/db/schema';
import { purgeApiLogs } from '../src/domain/platform/api-logs';
import worker from '../src/index';
import { newId } from '../src/lib/ids';
import {
	api,
	awayFromMinuteBoundary,
	consoleApi,
	consoleSignIn,
	db,
	expectError,
	seededEmail,
	seedOperator,
	seedPassword,
	seedWorkspace,
} from './factories';

interface Entry {
	id: string;
	operatorId: string;
	credential: string;
	hint: string;
	method: string;
	path: string;
	status: number;
	durationMs: number;
	rateRemaining: number | null;
	rateLimited: boolean;
}

/** Waits until the Queue consumer has written `count` entries of the workspace. */
async function loggedRows(workspaceId: string, count: number) {
	await expect
		.poll(async () => (await db.select().from(apiLogs).where(eq(apiLogs.workspaceId, workspaceId))).length)
		.toBeGreaterThanOrEqual(count);
}

async function page(token: string, query = ''): Promise<Entry[]> {
	const res = await api(token, 'GET', `/v3/api-logs${query}`);
	expect(res.status).toBe(200);
	return ((await res.json()) as { data: Entry[] }).data;
}

describe('the API log', () => {
	it('records each /v3 request with its operator, token hint, status and rate state, never its query or body', async () => {
		const admin = await seedWorkspace();
		const hint = `prly_…${admin.token.slice(-4)}`;
		await api(admin.token, 'GET', '/v3/contacts?q=secret-search@example.com');
		await api(admin.token, 'POST', '/v3/tags', { name: 'vip-secret-body' });
		await api(admin.token, 'GET', '/v3/conversations/conv_unknown');
		await loggedRows(admin.workspaceId, 3);
		const entries = await page(admin.token);
		const calls = entries.filter((e) => e.path !== '/v3/api-logs').reverse();
		expect(calls.map((e) => [e.method, e.path, e.status])).toEqual([
			['GET', '/v3/contacts', 200],
			['POST', '/v3/tags', 201],
			['GET', '/v3/conversations/conv_unknown', 404],
		]);
		for (const entry of calls) {
			expect(entry).toMatchObject({ operatorId: admin.operatorId, credential: 'token', hint, rateLimited: false });
			expect(entry.durationMs).toBeGreaterThanOrEqual(0);
			expect(entry.rateRemaining).toBeLessThan(40);
		}
		const stored = JSON.stringify(await db.select().from(apiLogs).where(eq(apiLogs.workspaceId, admin.workspaceId)));
		expect(stored).not.toContain('secret');
		expect(stored).not.toContain(admin.token);
	});

	it('records a request refused for the rate limit, and console requests as such', async () => {
		const admin = await seedWorkspace();
		await seedPassword(admin.workspaceId, admin.operatorId, 'correct horse battery');
		const reader = await seedOperator(admin.workspaceId, ['conversations:read']);
		let refused: Response | undefined;
		// The limit counts in minutes of real time: 41 calls across a minute's end would find a fresh budget.
		await awayFromMinuteBoundary();
		for (let i = 0; i < 41 && !refused; i++) {
			const res = await api(reader.token, 'GET', '/v3/tags');
			if (res.status === 429) refused = res;
		}
		expect(refused?.status).toBe(429);
		const session = await consoleSignIn(seededEmail(admin.operatorId), 'correct horse battery');
		await consoleApi(session, 'GET', '/v3/contacts');
		await loggedRows(admin.workspaceId, 42);
		const limited = await page(admin.token, `?operatorId=${reader.operatorId}&rateLimited=true`);
		expect(limited).toHaveLength(1);
		expect(limited[0]).toMatchObject({ status: 429, rateLimited: true, rateRemaining: 0 });
		const console = await page(admin.token, '?credential=session');
		expect(console.map((e) => [e.hint, e.path])).toEqual([['console', '/v3/contacts']]);
	});

	it('filters by method, status class and path prefix, and pages newest first', async () => {
		const admin = await seedWorkspace();
		await api(admin.token, 'POST', '/v3/tags', { name: 'one' });
		await api(admin.token, 'POST', '/v3/tags', { name: '' });
		await api(admin.token, 'GET', '/v3/tags');
		await api(admin.token, 'GET', '/v3/contacts');
		await loggedRows(admin.workspaceId, 4);
		expect((await page(admin.token, '?method=POST&status=4xx')).map((e) => e.status)).toEqual([422]);
		expect((await page(admin.token, '?path=/v3/tags')).map((e) => e.method)).toEqual(['GET', 'POST', 'POST']);
		const first = await api(admin.token, 'GET', '/v3/api-logs?path=/v3/tags&limit=2');
		const { data, nextCursor } = (await first.json()) as { data: Entry[]; nextCursor: string };
		const rest = await page(admin.token, `?path=/v3/tags&limit=2&cursor=${encodeURIComponent(nextCursor)}`);
		expect([...data, ...rest].map((e) => e.method)).toEqual(['GET', 'POST', 'POST']);
		await expectError(await api(admin.token, 'GET', '/v3/api-logs?path=tags'), 422);
		await expectError(await api(admin.token, 'GET', '/v3/api-logs?status=200'), 422);
	});

	it('is for admins, and shows only the workspace’s own requests', async () => {
		const admin = await seedWorkspace();
		const other = await seedWorkspace();
		const reader = await seedOperator(admin.workspaceId, ['conversations:read', 'reports:view']);
		await api(other.token, 'GET', '/v3/tags');
		await loggedRows(other.workspaceId, 1);
		await expectError(await api(reader.token, 'GET', '/v3/api-logs'), 403);
		const entries = await page(admin.token);
		expect(entries.every((e) => e.operatorId !== other.operatorId)).toBe(true);
	});

	it('forgets entries older than 30 days', async () => {
		const admin = await seedWorkspace();
		const now = Date.now();
		const entry = (at: number) => ({
			id: newId('log', at),
			workspaceId: admin.workspaceId,
			at,
			operatorId: admin.operatorId,
			credential: 'token' as const,
			hint: 'prly_…abcd',
			method: 'GET',
			path: '/v3/tags',
			status: 200,
			durationMs: 3,
			rateRemaining: 10,
			rateLimited: false,
		});
		await db.insert(apiLogs).values([entry(now - 31 * 86_400_000), entry(now - 29 * 86_400_000)]);
		expect(await purgeApiLogs(db, now)).toBeGreaterThanOrEqual(1);
		const left = await db.select({ at: apiLogs.at }).from(apiLogs).where(eq(apiLogs.workspaceId, admin.workspaceId));
		expect(left).toEqual([{ at: now - 29 * 86_400_000 }]);
	});
});

describe('the API log consumer', () => {
	it('writes a batch in one go, drops a malformed entry, acks it all, and writes an entry delivered twice once', async () => {
		const admin = await seedWorkspace();
		const now = Date.now();
		const entry = (path: string) => ({
			id: newId('log', now),
			workspaceId: admin.workspaceId,
			at: now,
			operatorId: admin.operatorId,
			credential: 'token' as const,
			hint: 'prly_…abcd',
			method: 'GET',
			path,
			status: 200,
			durationMs: 3,
			rateRemaining: 10,
			rateLimited: false,
		});
		const entries = [entry('/v3/tags'), entry('/v3/contacts')];
		const deliver = async (bodies: unknown[]) => {
			const batch = createMessageBatch(
				'parley-api-logs',
				bodies.map((body, i) => ({ id: `msg_${i}`, timestamp: new Date(now), attempts: 1, body })),
			);
			// The Worker's own `queue()` export, which picks the consumer by the batch's queue.
			await worker.queue(batch, env);
			return getQueueResult(batch, createExecutionContext());
		};
		const result = await deliver([...entries, { id: 'log_bad', path: '/v3/tags' }]);
		expect(result).toMatchObject({ outcome: 'ok', ackAll: true, retryMessages: [] });
		// A redelivery of the same batch (the Queue delivers at least once) adds nothing.
		expect((await deliver(entries)).ackAll).toBe(true);
		const rows = await db.select().from(apiLogs).where(eq(apiLogs.workspaceId, admin.workspaceId));
		expect(rows.map((r) => r.path).sort()).toEqual(['/v3/contacts', '/v3/tags']);
		expect(rows.map((r) => r.id)).not.toContain('log_bad');
	});
});
