// Helpers for the browser tests: Chromium, a fake customer site that embeds the widget, and the Worker's API.
// The Worker is the one `wrangler dev` of global-setup.ts: `inject('baseUrl')`, seeded `workspace(n)`.
import { createHmac } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { inject } from 'vitest';
import { launchChromium } from '../../scripts/chromium.mjs';
import type { SeededWorkspace } from '../../scripts/local-db.mjs';
import { widgetSnippet } from '../../src/domain/widget/snippet';

/** The fake customer site: cross-origin to the Worker, as a real site is. Nothing listens there. */
export const HOST_ORIGIN = 'http://localhost:4510';

let browser: Promise<Browser> | undefined;

/**
 * Chromium (the Debian package), launched on first call and shared by the test file's tests; give each test its
 * own `browser.newContext()` for fresh storage. Close it with `afterAll(closeBrowser)`.
 */
export function launchBrowser(): Promise<Browser> {
	browser ??= launchChromium();
	return browser;
}

/** Closes the file's Chromium, if launchBrowser started one. */
export async function closeBrowser(): Promise<void> {
	const launched = browser;
	browser = undefined;
	await (await launched)?.close();
}

/**
 * A new page showing `html` at `url` (default `${HOST_ORIGIN}/`). Every request to HOST_ORIGIN, whatever the
 * path, is answered with `html` by `page.route`, so no server is needed; requests elsewhere (the Worker) go
 * out as usual. Grants the context Local Network Access for HOST_ORIGIN (see below). A test that needs other host files adds its own `page.route` afterwards: it takes precedence.
 * `headers` go with the page (a Content-Security-Policy, say); `files` answer their paths of HOST_ORIGIN
 * instead, from the start (the site's own scripts, which load while the page is parsed).
 *
 * @example const page = await hostPage(context, { html: snippetHtml(baseUrl, workspace(1).workspaceId) });
 */
export async function hostPage(
	context: BrowserContext,
	options: {
		html?: string;
		url?: string;
		headers?: Record<string, string>;
		files?: Record<string, { contentType: string; body: string }>;
	} = {},
): Promise<Page> {
	const html = options.html ?? hostHtml('');
	// Chromium treats a fulfilled page as public and the Worker on 127.0.0.1 as loopback: without this
	// permission (Local Network Access) its fetches, frames and sockets to the Worker are blocked. In production
	// both sides are public, so granting it changes nothing the widget could depend on.
	await context.grantPermissions(['local-network-access'], { origin: HOST_ORIGIN });
	const page = await context.newPage();
	await page.route(`${HOST_ORIGIN}/**`, (route) => {
		const file = options.files?.[new URL(route.request().url()).pathname];
		if (file) return route.fulfill({ status: 200, ...file });
		return route.fulfill({
			status: 200,
			contentType: 'text/html; charset=utf-8',
			headers: options.headers,
			body: html,
		});
	});
	await page.goto(options.url ?? `${HOST_ORIGIN}/`);
	return page;
}

/**
 * A host page with the real embed snippet (as `GET /v3/widget/info` hands it out) at the end of its body,
 * then `extraScript`, which runs after the snippet and may call `kw(...)` (queued until widget.js loads).
 */
export function snippetHtml(baseUrl: string, workspaceId: string, extraScript?: string): string {
	const extra = extraScript ? `<script>${extraScript}</script>` : '';
	return hostHtml(widgetSnippet(baseUrl, workspaceId) + extra);
}

function hostHtml(endOfBody: string): string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme shop</title></head><body><h1>Acme shop</h1><p>Welcome.</p>${endOfBody}</body></html>`;
}

/**
 * Calls the Worker's API from Node as an API client would (`token` null for none). The body is parsed when
 * the response is JSON, else it is the text.
 *
 * @example const { status, body } = await api(baseUrl, workspace(1).token, 'GET', '/v3/conversations');
 */
export async function api(
	baseUrl: string,
	token: string | null,
	method: string,
	path: string,
	body?: unknown,
): Promise<{ status: number; body: unknown }> {
	const headers: Record<string, string> = {};
	if (token !== null) headers.Authorization = `Bearer ${token}`;
	if (body !== undefined) headers['Content-Type'] = 'application/json';
	const res = await fetch(baseUrl + path, {
		method,
		headers,
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const json = res.headers.get('Content-Type')?.includes('application/json');
	return { status: res.status, body: json ? await res.json() : await res.text() };
}

/**
 * The seeded workspace `e2e-<n>` (n from 1 to WORKSPACE_COUNT in global-setup.ts), with its admin operator and token. Storage is shared by all
 * browser test files, whose order changes between runs: a test that creates conversations or changes settings
 * has a workspace of its own (`grep -o 'workspace([0-9]*)' test/browser/*.ts` lists those taken).
 */
export function workspace(n: number): SeededWorkspace {
	const found = inject('workspaces')[n - 1];
	if (!found) throw new Error(`no seeded workspace ${n}: there are ${inject('workspaces').length}`);
	return found;
}

/** An HS256 JWT as a site's backend signs it for identity verification. */
export function signJwt(secret: string, claims: object): string {
	const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
	const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
	return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

/** `#rrggbb` as getComputedStyle reports it. */
export function rgb(hex: string): string {
	const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
	return `rgb(${r}, ${g}, ${b})`;
}
