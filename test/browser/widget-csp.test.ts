// The widget on sites with a strict Content-Security-Policy (issue 39): nothing inline or evaluated allowed
// beyond a nonced script, styles only from the site and the widget's origin, and Trusted Types enforced. Each
// host page counts the violations it reports; the widget must cause none and still look and work as it should.
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, hostPage, rgb, snippetHtml, workspace } from './harness';
import {
	baseUrl,
	browserContexts,
	conversations,
	logText,
	messageTexts,
	putSettings,
	sendFromWidget,
} from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;
/** What the page reported: policy violations, and errors in its console or thrown by its scripts. */
let errors: string[];

beforeEach(async () => {
	context = await newContext();
	errors = [];
	context.on('console', (message) => {
		if (message.type() === 'error') errors.push(`console: ${message.text()}`);
	});
	context.on('weberror', (error) => errors.push(`thrown: ${error.error().message}`));
	// Before any of the page's scripts: a violation is reported on the element refused (in the widget's shadow
	// root too, since the event is composed) and bubbles up to the document.
	await context.addInitScript(() => {
		const seen: string[] = [];
		(window as unknown as { __violations: string[] }).__violations = seen;
		document.addEventListener(
			'securitypolicyviolation',
			(event) => seen.push(`${event.effectiveDirective} refused ${event.blockedURI || 'inline'}: ${event.sample}`),
			true,
		);
	});
});

/**
 * Issue 39's policy, as a security-conscious site serves it: `scripts` beside the widget's origin (a nonce, or
 * only the site's own origin), the widget's origin for its API and socket, images and styles, nothing inline
 * for styles and nothing evaluated. `trustedTypes` also enforces Trusted Types for every script sink.
 */
function strictPolicy(scripts: string, trustedTypes = false): string {
	return [
		"default-src 'self'",
		`script-src ${scripts} ${baseUrl}`,
		`connect-src ${baseUrl} ${baseUrl.replace(/^http/, 'ws')}`,
		`img-src ${baseUrl} data:`,
		`style-src 'self' ${baseUrl}`,
		...(trustedTypes ? ["require-trusted-types-for 'script'"] : []),
	].join('; ');
}

/**
 * The real snippet in a script element that carries the page's nonce, as a site with a nonce-based policy
 * pastes it. `google`: the policy Google's strict-CSP guidance gives, where `'strict-dynamic'` makes the
 * browser ignore the script origins (only the nonce and what nonced scripts load count), with Trusted Types.
 */
async function noncedSnippetPage(workspaceId: string, google = false): Promise<Page> {
	const nonce = randomUUID().replaceAll('-', '');
	const html = snippetHtml(baseUrl, workspaceId).replaceAll('<script>', `<script nonce="${nonce}">`);
	const scripts = `'nonce-${nonce}'${google ? " 'strict-dynamic'" : ''}`;
	return hostPage(context, { html, headers: { 'Content-Security-Policy': strictPolicy(scripts, google) } });
}

/**
 * The install without any inline script, for a policy that lists script origins only: the site's own file
 * (from its origin) holds the documented one-line stub and a call queued with it, and the widget's script
 * element carries the init options as data attributes.
 */
async function noInlinePage(workspaceId: string, trustedTypes = false, beforeBody = ''): Promise<Page> {
	const site = `window.kw = window.kw || function () { (kw.q = kw.q || []).push(arguments); };
kw('on', 'ready', function () { window.__ready = true; });`;
	const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme bank</title>
<script src="/site.js"></script>
<script type="module" src="${baseUrl}/widget.js" data-workspace-id="${workspaceId}" data-cta-text="Ask the bank" async></script>
${beforeBody}</head><body><h1>Acme bank</h1><p>Welcome.</p></body></html>`;
	return hostPage(context, {
		html,
		headers: { 'Content-Security-Policy': strictPolicy("'self'", trustedTypes) },
		files: { '/site.js': { contentType: 'text/javascript', body: site } },
	});
}

const COLORS = { primaryColor: '#b4235a', backgroundColor: '#fff8e7', textColor: '#3b2a1a' };

/** Where `selector` (in the widget) sits, its display and its colours, as the page lays it out. */
function layout(page: Page, selector: string, corner: 'right' | 'left') {
	return page.locator(`parley-widget ${selector}`).evaluate((element, side) => {
		const style = getComputedStyle(element);
		const box = element.getBoundingClientRect();
		const { clientWidth, clientHeight } = document.documentElement;
		return {
			position: style.position,
			display: style.display,
			background: style.backgroundColor,
			color: style.color,
			width: Math.round(box.width),
			fromSide: Math.round(side === 'right' ? clientWidth - box.right : box.left),
			fromBottom: Math.round(clientHeight - box.bottom),
		};
	}, corner);
}

/**
 * What every strict page must allow: the launcher fixed in its corner in the workspace's colours, the chat
 * opening as a panel beside it, a message sent and the operator's reply shown; then no violation and no error.
 */
async function chatsAsUsual(page: Page, token: string, corner: 'right' | 'left') {
	const launcher = page.locator('parley-widget .launcher');
	await withoutReports(page, async () => (await launcher.count()) > 0);
	await expect
		.poll(() => layout(page, '.launcher', corner))
		.toEqual({
			position: 'fixed',
			display: 'flex',
			background: rgb(COLORS.primaryColor),
			color: 'rgb(255, 255, 255)',
			width: 56,
			fromSide: 20,
			fromBottom: 20,
		});
	await launcher.click();
	await withoutReports(page, () => page.locator('parley-widget .panel').isVisible());
	expect(await layout(page, '.panel', corner)).toEqual({
		position: 'fixed',
		display: 'flex',
		background: rgb(COLORS.backgroundColor),
		color: rgb(COLORS.textColor),
		width: 370,
		fromSide: 20,
		fromBottom: 88,
	});
	expect((await layout(page, '.panel header', corner)).background).toBe(rgb(COLORS.primaryColor));
	await sendFromWidget(page, 'Can I pay by bank transfer?');
	await expect.poll(async () => (await conversations(token)).length, { timeout: 15_000 }).toBe(1);
	const [started] = await conversations(token);
	const id = (started as { id: string }).id;
	await expect.poll(() => messageTexts(token, id)).toEqual(['Can I pay by bank transfer?']);
	const reply = await api(baseUrl, token, 'POST', '/v3/messages', { conversationId: id, text: 'Yes, any day.' });
	expect(reply.status).toBe(201);
	await expect.poll(() => logText(page)).toContain('Yes, any day.');
	expect(await reported(page)).toEqual([]);
}

/** Waits until `done` holds or the page has reported why it will not (a violation, an error): none is expected. */
async function withoutReports(page: Page, done: () => Promise<boolean>) {
	await expect.poll(async () => (await done()) || (await reported(page)).length > 0, { timeout: 15_000 }).toBe(true);
	expect(await reported(page)).toEqual([]);
}

/** Whether the widget's `ready` event has reached the call the site's stub queued. */
const ready = (page: Page) => page.evaluate(() => (window as { __ready?: boolean }).__ready === true);

/** The policy violations the page reported, then the errors it logged or threw. */
async function reported(page: Page): Promise<string[]> {
	const violations = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
	return [...violations, ...errors];
}

describe('a site with a strict Content-Security-Policy', () => {
	it('runs the widget from the nonced snippet without a violation', async () => {
		const { workspaceId, token } = workspace(133);
		await putSettings(token, { ...COLORS, theme: 'light', position: 'right' });
		const page = await noncedSnippetPage(workspaceId);
		await chatsAsUsual(page, token, 'right');
	});

	it('runs the widget from one script element with data attributes, no inline script at all', async () => {
		const { workspaceId, token } = workspace(134);
		await putSettings(token, { ...COLORS, theme: 'light', position: 'left' });
		const page = await noInlinePage(workspaceId);
		// The call queued by the site's stub ran, and the data attributes reached init.
		await withoutReports(page, () => ready(page));
		expect(await page.locator('parley-widget .cta .act').textContent()).toBe('Ask the bank');
		await chatsAsUsual(page, token, 'left');
	});

	it("runs the widget from the nonced snippet under 'strict-dynamic' and Trusted Types, with no policy of its own", async () => {
		const { workspaceId, token } = workspace(135);
		await putSettings(token, { ...COLORS, theme: 'light', position: 'right' });
		const page = await noncedSnippetPage(workspaceId, true);
		// Trusted Types are there, and the page defines no default policy that could let a string through.
		const defaultPolicy = await page.evaluate(() => {
			const factory = (window as { trustedTypes?: { defaultPolicy: unknown } }).trustedTypes;
			return factory ? factory.defaultPolicy : 'no Trusted Types';
		});
		expect(defaultPolicy).toBeNull();
		await chatsAsUsual(page, token, 'right');
	});

	it('waits for the body when its script element in the <head> runs first', async () => {
		const { workspaceId, token } = workspace(137);
		await putSettings(token, { ...COLORS, theme: 'light', position: 'right' });
		// The config is cached by a first visit; on the next, a script of the site's holds the parser in the <head>
		// while widget.js runs and brings the launcher up from that copy at once.
		const first = await noInlinePage(workspaceId);
		await withoutReports(first, () => ready(first));
		await first.close();
		await context.route(`${baseUrl}/slow.js`, async (route) => {
			await new Promise((resolve) => setTimeout(resolve, 1500));
			await route.fulfill({ contentType: 'text/javascript', body: 'window.__parsed = document.body === null;' });
		});
		const page = await noInlinePage(workspaceId, false, `<script src="${baseUrl}/slow.js"></script>`);
		await withoutReports(page, () => ready(page));
		// The widget had run before the body existed (widget.js came while the site's script was awaited).
		expect(await page.evaluate(() => (window as { __parsed?: boolean }).__parsed)).toBe(true);
		await withoutReports(page, async () => (await page.locator('parley-widget .launcher').count()) > 0);
		await expect
			.poll(() => layout(page, '.launcher', 'right'))
			.toMatchObject({ position: 'fixed', fromSide: 20, fromBottom: 20 });
		expect(await reported(page)).toEqual([]);
	});

	it('styles the widget from stylesheet files of its origin where constructable stylesheets are missing', async () => {
		const { workspaceId, token } = workspace(136);
		await putSettings(token, { ...COLORS, theme: 'light', position: 'right' });
		// A browser without adoptedStyleSheets (Safari before 16.4, Firefox before 101), here with Trusted Types too.
		await context.addInitScript(() => {
			Reflect.deleteProperty(ShadowRoot.prototype, 'adoptedStyleSheets');
			Reflect.deleteProperty(Document.prototype, 'adoptedStyleSheets');
		});
		const page = await noInlinePage(workspaceId, true);
		await chatsAsUsual(page, token, 'right');
		// The launcher's rules linked as it drew, the panel's as the chat mounted, both from the widget's origin.
		const sheets = await page
			.locator('parley-widget')
			.evaluate((host) => [...(host.shadowRoot?.querySelectorAll('link') ?? [])].map((link) => link.href));
		expect(sheets).toEqual([
			expect.stringMatching(new RegExp(`^${baseUrl}/widget-assets/launcher-[\\w-]+\\.css$`)),
			expect.stringMatching(new RegExp(`^${baseUrl}/widget-assets/panel-[\\w-]+\\.css$`)),
		]);
	});
});
