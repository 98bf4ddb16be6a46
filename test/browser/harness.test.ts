import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WORKSPACE_COUNT } from './global-setup';
import { api, closeBrowser, HOST_ORIGIN, hostPage, launchBrowser, snippetHtml, workspace } from './harness';

const baseUrl = inject('baseUrl');
let context: BrowserContext;

beforeAll(async () => {
	context = await (await launchBrowser()).newContext();
});
afterAll(closeBrowser);

describe('browser harness', () => {
	it('seeds the e2e workspaces', () => {
		expect(inject('workspaces').map((w) => w.slug)).toEqual(
			Array.from({ length: WORKSPACE_COUNT }, (_, i) => `e2e-${i + 1}`),
		);
		expect(workspace(66).token).toMatch(/^prly_/);
	});

	it('opens a host page with the snippet that reaches the Worker cross-origin', async () => {
		const { workspaceId } = workspace(1);
		const page = await hostPage(context, { html: snippetHtml(baseUrl, workspaceId) });
		const seen = await page.evaluate(
			async ({ baseUrl, workspaceId }) => {
				// /health sends no CORS headers: the page reaches it but may not read it (an opaque response).
				const health = await fetch(`${baseUrl}/health`, { mode: 'no-cors' });
				const config = await fetch(`${baseUrl}/widget/${workspaceId}/config`);
				return {
					origin: location.origin,
					kw: typeof (window as { kw?: unknown }).kw,
					health: { type: health.type, status: health.status },
					config: { status: config.status, body: (await config.json()) as { workspaceId?: string } },
				};
			},
			{ baseUrl, workspaceId },
		);
		expect(seen.origin).toBe(HOST_ORIGIN);
		expect(seen.kw).toBe('function');
		expect(seen.health).toEqual({ type: 'opaque', status: 0 });
		expect(seen.config.status).toBe(200);
		expect(seen.config.body.workspaceId).toBe(workspaceId);
		await page.close();
	});

	it('calls the API with a seeded token', async () => {
		expect(await api(baseUrl, null, 'GET', '/health')).toEqual({ status: 200, body: { status: 'ok' } });
		const { status, body } = await api(baseUrl, workspace(2).token, 'GET', '/v3/conversations');
		expect(status, JSON.stringify(body)).toBe(200);
		expect((await api(baseUrl, null, 'GET', '/v3/conversations')).status).toBe(401);
	});
});
