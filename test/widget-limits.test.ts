import { listDurableObjectIds } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
	api,
	awayFromMinuteBoundary,
	expectError,
	randomIp,
	seedOperator,
	seedWorkspace,
	widgetApi,
} from './factories';

function startSession(workspaceId: string, ip: string) {
	return widgetApi('POST', `/widget/${workspaceId}/sessions`, {}, undefined, { 'CF-Connecting-IP': ip });
}

async function rateLimiterIds(): Promise<string[]> {
	return (await listDurableObjectIds(env.RATE_LIMITER)).map((id) => id.toString()).sort();
}

describe('GET /widget/{workspaceId}/config on the hot path', () => {
	it('makes no RateLimiter Durable Object call: no limiter object exists after reads from a new address', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await api(token, 'PUT', '/v3/widget/settings', { ctaText: 'Talk to us' });
		const before = await rateLimiterIds();
		const ip = randomIp();
		for (let i = 0; i < 3; i++) {
			const res = await widgetApi('GET', `/widget/${workspaceId}/config`, undefined, undefined, {
				'CF-Connecting-IP': ip,
			});
			expect(res.status).toBe(200);
		}
		// No new object (an idle one may have deleted itself meanwhile, so the list may also shrink).
		expect((await rateLimiterIds()).filter((id) => !before.includes(id))).toEqual([]);
	});

	it('is flood-limited per workspace and address by the rate-limiting binding (300 a minute)', async () => {
		const first = await seedWorkspace();
		const second = await seedWorkspace();
		const ip = randomIp();
		// A cheap request that is not the config read: a history read without a session (401).
		const read = (workspaceId: string) =>
			widgetApi('GET', `/widget/${workspaceId}/conversations`, undefined, undefined, { 'CF-Connecting-IP': ip });
		await awayFromMinuteBoundary();
		const statuses = [];
		for (let i = 0; i < 300; i++) statuses.push((await read(first.workspaceId)).status);
		expect(statuses.every((s) => s === 401)).toBe(true);
		const over = await read(first.workspaceId);
		await expectError(over, 429);
		expect(over.headers.get('Retry-After')).toBe('60');
		expect((await read(second.workspaceId)).status).toBe(401);
	});

	it('keeps serving the config read past the flood limit: it has a budget of its own, ten times higher', async () => {
		const { workspaceId } = await seedWorkspace();
		const ip = randomIp();
		const headers = { 'CF-Connecting-IP': ip };
		await awayFromMinuteBoundary();
		for (let i = 0; i < 300; i++)
			await widgetApi('GET', `/widget/${workspaceId}/conversations`, undefined, undefined, headers);
		await expectError(
			await widgetApi('GET', `/widget/${workspaceId}/conversations`, undefined, undefined, headers),
			429,
		);
		const statuses = [];
		for (let i = 0; i < 400; i++) {
			statuses.push((await widgetApi('GET', `/widget/${workspaceId}/config`, undefined, undefined, headers)).status);
		}
		expect(statuses.every((s) => s === 200)).toBe(true);
	});
});

describe('per-address widget limits, per workspace', () => {
	it('answers a made-up workspace 404 without creating a limiter object, for sessions and handoffs', async () => {
		const before = await rateLimiterIds();
		const ip = randomIp();
		await expectError(await startSession('ws_01MADEUP0000000000000000', ip), 404);
		const handoff = await widgetApi(
			'POST',
			'/widget/ws_01MADEUP0000000000000001/handoffs',
			{ ref: '7KQ2M9XD', channel: 'whatsapp', origin: { utmSource: 'google' } },
			undefined,
			{ 'CF-Connecting-IP': ip },
		);
		await expectError(handoff, 404);
		expect((await rateLimiterIds()).filter((id) => !before.includes(id))).toEqual([]);
	});

	it("does not let one workspace's exhausted per-address session budget throttle another's", async () => {
		const first = await seedWorkspace();
		const second = await seedWorkspace();
		const ip = randomIp();
		await awayFromMinuteBoundary();
		for (let i = 0; i < Number(env.WIDGET_SESSIONS_PER_IP); i++) {
			expect((await startSession(first.workspaceId, ip)).status).toBe(200);
		}
		await expectError(await startSession(first.workspaceId, ip), 429);
		expect((await startSession(second.workspaceId, ip)).status).toBe(200);
	});

	it("honours a workspace's own limits for session starts and messages, and leaves others on the defaults", async () => {
		const { workspaceId, token } = await seedWorkspace();
		const other = await seedWorkspace();
		const saved = await api(token, 'PUT', '/v3/widget/settings', { limits: { sessionsPerIp: 2, messagesPerIp: 2 } });
		expect(saved.status).toBe(200);
		expect(((await saved.json()) as { limits: unknown }).limits).toEqual({ sessionsPerIp: 2, messagesPerIp: 2 });
		const ip = randomIp();
		await awayFromMinuteBoundary();
		const first = await startSession(workspaceId, ip);
		expect(first.status).toBe(200);
		expect((await startSession(workspaceId, ip)).status).toBe(200);
		await expectError(await startSession(workspaceId, ip), 429);
		for (let i = 0; i < 3; i++) expect((await startSession(other.workspaceId, ip)).status).toBe(200);

		const { sessionToken } = (await first.json()) as { sessionToken: string };
		const send = (path: string, body: unknown) =>
			widgetApi('POST', `/widget/${workspaceId}${path}`, body, sessionToken, { 'CF-Connecting-IP': ip });
		const started = await send('/conversations', { message: { text: 'one', clientMessageId: 'm1' } });
		expect(started.status).toBe(201);
		const { conversation } = (await started.json()) as { conversation: { id: string } };
		const messages = `/conversations/${conversation.id}/messages`;
		expect((await send(messages, { text: 'two', clientMessageId: 'm2' })).status).toBe(201);
		await expectError(await send(messages, { text: 'three', clientMessageId: 'm3' }), 429);
	});

	it('refuses limits out of bounds with 422 and changes nothing; null goes back to the default', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await api(token, 'PUT', '/v3/widget/settings', { limits: { sessionsPerIp: 50 } });
		for (const limits of [
			{ sessionsPerIp: 0 },
			{ messagesPerIp: 100_001 },
			{ sessionsPerIp: 2.5 },
			{ perVisitor: 5 },
		]) {
			const { message } = await expectError(await api(token, 'PUT', '/v3/widget/settings', { limits }), 422);
			expect(message).toContain('json.limits');
		}
		const stored = (await (await api(token, 'GET', '/v3/widget/settings')).json()) as { limits: unknown };
		expect(stored.limits).toEqual({ sessionsPerIp: 50, messagesPerIp: null });
		const reset = await api(token, 'PUT', '/v3/widget/settings', { limits: { sessionsPerIp: null } });
		expect(((await reset.json()) as { limits: unknown }).limits).toEqual({ sessionsPerIp: null, messagesPerIp: null });
		// Visitors never see them.
		const config = await (await widgetApi('GET', `/widget/${workspaceId}/config`)).json();
		expect(config).not.toHaveProperty('limits');
	});

	it('takes the limits from the settings only from an admin', async () => {
		const { workspaceId } = await seedWorkspace();
		const agent = await seedOperator(workspaceId, ['conversations:read', 'messages:send']);
		await expectError(await api(agent.token, 'PUT', '/v3/widget/settings', { limits: { sessionsPerIp: 1000 } }), 403);
	});
});
