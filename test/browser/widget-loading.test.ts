// Loading the widget on a customer's page: the snippet and its queue, the commands' checks, isolation from
// the page, the config cache and the size budget.
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { widgetSnippet } from '../../src/domain/widget/snippet';
import { api, hostPage, snippetHtml, workspace } from './harness';
import {
	baseUrl,
	browserContexts,
	conversations,
	kw,
	logText,
	putSettings,
	sendFromWidget,
	waitReady,
	widgetPage,
} from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

const events = (page: Page) => page.evaluate(() => (window as unknown as { __events: unknown[] }).__events);
const panel = (page: Page) => page.locator('parley-widget .panel');

describe('the snippet', () => {
	it('is under 600 bytes and imports widget.js once the page has loaded', () => {
		const snippet = widgetSnippet('https://chat.example.com', 'ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T');
		expect(new TextEncoder().encode(snippet).length).toBeLessThan(600);
		expect(snippet).toContain('import("https://chat.example.com/widget.js")');
		expect(snippet).toContain("w.addEventListener('load',l)");
	});

	it('runs the calls queued before widget.js arrived, in order, and never blocks the page', async () => {
		const { workspaceId } = workspace(10);
		// widget.js arrives two seconds late: the page is parsed and shown meanwhile.
		await context.route(`${baseUrl}/widget.js`, async (route) => {
			await new Promise((resolve) => setTimeout(resolve, 2000));
			await route.continue();
		});
		const { page } = await widgetPage(context, workspaceId, {
			ready: false,
			script: `
				document.addEventListener('DOMContentLoaded', function(){__events.push('page ready')});
				addEventListener('load', function(){__events.push('page loaded')});
				kw('on','open',function(){__events.push('open')});
				kw('on','close',function(){__events.push('close')});
				kw('open'); kw('close'); kw('open',{message:'queued text'});
				__events.push('parsed');`,
		});
		await panel(page).waitFor({ state: 'visible' });
		// The page was parsed and loaded before widget.js was even asked for; then the queue ran in order.
		expect(await events(page)).toEqual(['parsed', 'page ready', 'page loaded', 'open', 'close', 'open']);
		expect(await page.locator('parley-widget .composer textarea').inputValue()).toBe('queued text');
		// After load, calls run at once and return their result.
		const unsubscribed = await page.evaluate(() => {
			const w = window as unknown as { kw: (...a: unknown[]) => unknown; __events: string[] };
			const off = w.kw('on', 'close', () => w.__events.push('second close listener'));
			return typeof off === 'function' && (off as () => boolean)();
		});
		expect(unsubscribed).toBe(true);
	});

	it("kw('off') removes one callback or all of an event's", async () => {
		const { workspaceId } = workspace(10);
		const { page } = await widgetPage(context, workspaceId);
		await page.evaluate(() => {
			const w = window as unknown as { kw: (...a: unknown[]) => unknown; __events: string[]; __a: () => void };
			w.__a = () => w.__events.push('a');
			w.kw('on', 'open', w.__a);
			w.kw('on', 'open', () => w.__events.push('b'));
			w.kw('on', 'close', () => w.__events.push('closed'));
			w.kw('off', 'open', w.__a);
			w.kw('open');
		});
		await panel(page).waitFor({ state: 'visible' });
		await page.evaluate(() => {
			const w = window as unknown as { kw: (...a: unknown[]) => unknown };
			w.kw('off', 'open');
			w.kw('off', 'close');
			w.kw('close');
			w.kw('open');
		});
		await panel(page).waitFor({ state: 'visible' });
		expect(await events(page)).toEqual(['b']);
	});

	it('starts once when the snippet is pasted twice', async () => {
		const { workspaceId } = workspace(10);
		const again = widgetSnippet(baseUrl, workspaceId).replace(/<\/?script>/g, '');
		const twice = snippetHtml(baseUrl, workspaceId, `${again};kw('on','ready',function(){window.__ready=true})`);
		const page = await hostPage(context, { html: twice });
		await waitReady(page);
		expect(await page.locator('parley-widget').count()).toBe(1);
		expect(await page.locator('parley-widget .launcher').count()).toBe(1);
	});
});

describe('commands', () => {
	it('init overrides the stored colors, call to action and welcome message', async () => {
		const { workspaceId } = workspace(10);
		const { page } = await widgetPage(context, workspaceId, {
			init: {
				primaryColor: '#aa0000',
				backgroundColor: '#fffbe6',
				textColor: '#102030',
				ctaText: 'Questions? Ask us',
				welcomeMessage: 'Olá! 👋',
			},
		});
		const launcher = page.locator('parley-widget .launcher');
		expect(await launcher.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(170, 0, 0)');
		// Before opening: the welcome message and the call to action beside the launcher.
		expect(await page.locator('parley-widget .cta .greet').textContent()).toBe('Olá! 👋');
		expect(await page.locator('parley-widget .cta .act').textContent()).toBe('Questions? Ask us');
		await launcher.click();
		expect(await panel(page).evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(255, 251, 230)');
		expect(await panel(page).evaluate((e) => getComputedStyle(e).color)).toBe('rgb(16, 32, 48)');
		expect(await logText(page)).toContain('Olá! 👋');
		// Opening once hides the call to action for good (it is remembered).
		expect(await page.locator('parley-widget .cta').isHidden()).toBe(true);
	});

	it("a second init for the same workspace applies its overrides over the first's and re-renders", async () => {
		const { workspaceId } = workspace(41);
		// The snippet's own init, then the site owner's customised one (queued until widget.js arrives).
		const custom = { workspaceId, primaryColor: '#aa0000', ctaText: 'Questions? Ask us' };
		const { page, console } = await widgetPage(context, workspaceId, {
			script: `kw('init',${JSON.stringify(custom)});`,
		});
		const launcher = page.locator('parley-widget .launcher');
		expect(await launcher.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(170, 0, 0)');
		expect(await page.locator('parley-widget .cta .act').textContent()).toBe('Questions? Ask us');
		// Later, with the chat open: a third call changes what it names and keeps the second's color otherwise.
		await launcher.click();
		await panel(page).waitFor({ state: 'visible' });
		await kw(page, 'init', { workspaceId, backgroundColor: '#fffbe6' });
		await expect
			.poll(() => panel(page).evaluate((e) => getComputedStyle(e).backgroundColor))
			.toBe('rgb(255, 251, 230)');
		expect(await launcher.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(170, 0, 0)');
		expect(console.filter((line) => line.startsWith('error:'))).toEqual([]);
	});

	it('logs one clear error for an unknown command or bad arguments and changes nothing', async () => {
		const { workspaceId } = workspace(10);
		const { page, console } = await widgetPage(context, workspaceId);
		console.length = 0;
		await kw(page, 'explode');
		await kw(page, 'open', { msg: 'typo' });
		await kw(page, 'identify', { email: 'not an e-mail' });
		await page.evaluate(() => (window as unknown as { kw: (...a: unknown[]) => void }).kw('on', 'opened', () => {}));
		await kw(page, 'config', { requiredFields: ['age'] });
		await kw(page, 'init', { workspaceId: 'ws_other' });
		const errors = console.filter((line) => line.startsWith('error: [Parley]'));
		expect(errors).toHaveLength(6);
		expect(errors[0]).toContain('unknown command');
		expect(errors[1]).toContain('open options has no option "msg"');
		expect(errors[2]).toContain('identify.email must be an e-mail address');
		expect(errors[3]).toContain('unknown event "opened"');
		expect(errors[4]).toContain('requiredFields must be a list of "name", "email", "phone"');
		expect(errors[5]).toContain('already started for workspace');
		expect(await panel(page).count()).toBe(0);
	});

	it('keeps working when a page callback throws', async () => {
		const { workspaceId } = workspace(11);
		const { page, console } = await widgetPage(context, workspaceId, {
			script:
				"kw('on','open',function(){throw new Error('page bug')});kw('on','open',function(){__events.push('second')});",
		});
		await kw(page, 'open');
		await panel(page).waitFor({ state: 'visible' });
		expect(await events(page)).toEqual(['second']);
		expect(console.some((line) => line.includes('"open" callback threw'))).toBe(true);
		await sendFromWidget(page, 'still works');
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(1);
	});

	it('reset forgets the visitor: the next message starts a new contact', async () => {
		const { workspaceId, token } = workspace(12);
		const { page } = await widgetPage(context, workspaceId);
		await kw(page, 'open');
		await sendFromWidget(page, 'Logged in as Ana');
		await expect.poll(async () => (await conversations(token)).length).toBe(1);
		await kw(page, 'reset');
		await expect.poll(() => logText(page)).not.toContain('Logged in as Ana');
		await sendFromWidget(page, 'Someone else now');
		await expect.poll(async () => (await conversations(token)).length).toBe(2);
		const [second, first] = await conversations(token);
		expect(second?.contactId).not.toBe(first?.contactId);
	});

	it('with autoStart false waits for start: nothing is fetched or stored before', async () => {
		const { workspaceId } = workspace(10);
		const requests: string[] = [];
		context.on('request', (request) => requests.push(request.url()));
		const { page } = await widgetPage(context, workspaceId, { init: { autoStart: false }, ready: false });
		await page.waitForTimeout(500);
		expect(requests.filter((url) => url.includes('/widget/'))).toEqual([]);
		expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
		await kw(page, 'start');
		await waitReady(page);
		expect(requests.some((url) => url.endsWith(`/widget/${workspaceId}/config`))).toBe(true);
	});
});

describe('the page and the widget stay apart', () => {
	it("the page's CSS cannot break the widget, and the widget adds nothing to the page's styles", async () => {
		const { workspaceId } = workspace(10);
		const hostile =
			'<style>*{font-size:40px!important;color:lime!important;letter-spacing:9px!important}button{width:300px!important;background:lime!important;display:none!important}div{display:none!important}</style>';
		const { page } = await widgetPage(context, workspaceId, { head: hostile });
		const launcher = page.locator('parley-widget .launcher');
		const box = await launcher.boundingBox();
		expect(box).toMatchObject({ width: 56, height: 56 });
		expect(await launcher.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(31, 111, 235)');
		await launcher.click();
		const fontSize = await page
			.locator('parley-widget .composer textarea')
			.evaluate((e) => getComputedStyle(e).fontSize);
		expect(fontSize).toBe('14px');
		expect(await page.evaluate(() => document.styleSheets.length)).toBe(1);
	});

	it('refuses to start on a plain-HTTP page other than localhost, with a warning', async () => {
		const { workspaceId } = workspace(10);
		// A plain-HTTP site; widget.js is served from it too, so the browser fetches nothing from the Worker.
		const origin = 'http://shop.example';
		const page = await context.newPage();
		const warnings: string[] = [];
		page.on('console', (message) => warnings.push(`${message.type()}: ${message.text()}`));
		const requests: string[] = [];
		page.on('request', (request) => requests.push(request.url()));
		await page.route(`${origin}/**`, (route) =>
			route.request().url().endsWith('/widget.js')
				? route.fulfill({ contentType: 'text/javascript', body: readFileSync('dist/public/widget.js', 'utf8') })
				: route.fulfill({ contentType: 'text/html', body: snippetHtml(origin, workspaceId) }),
		);
		await page.goto(`${origin}/`);
		await expect
			.poll(() => warnings)
			.toContain('warning: [Parley] The chat widget needs an HTTPS page (or localhost); it did not start.');
		expect(await page.locator('parley-widget').count()).toBe(0);
		expect(requests.filter((url) => url.includes('/config'))).toEqual([]);
	});

	it('survives a single-page-app navigation that replaces the body, conversation and socket intact', async () => {
		const { workspaceId, token } = workspace(13);
		const { page } = await widgetPage(context, workspaceId);
		await kw(page, 'open');
		await sendFromWidget(page, 'Before navigating');
		await expect.poll(async () => (await conversations(token)).length).toBe(1);
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(1);
		await page.evaluate(() => {
			history.pushState({}, '', '/checkout');
			const body = document.createElement('body');
			body.innerHTML = '<h1>Checkout</h1>';
			document.body.replaceWith(body);
		});
		await page.locator('parley-widget .panel').waitFor({ state: 'visible' });
		expect(await logText(page)).toContain('Before navigating');
		const [only] = await conversations(token);
		await api(baseUrl, token, 'POST', '/v3/messages', { conversationId: only?.id, text: 'Still here?' });
		await expect.poll(() => logText(page)).toContain('Still here?');
		await page.evaluate(() => {
			document.body.innerHTML = '<h1>Thanks</h1>';
		});
		await page.locator('parley-widget .panel').waitFor({ state: 'visible' });
	});
});

describe('the config cache', () => {
	it('renders from localStorage at once, revalidates with If-None-Match, and picks up changes', async () => {
		const { workspaceId, token } = workspace(14);
		const seen: { status: number; ifNoneMatch: string | null }[] = [];
		context.on('response', async (response) => {
			if (!response.url().endsWith(`/widget/${workspaceId}/config`)) return;
			seen.push({
				status: response.status(),
				ifNoneMatch: (await response.request().allHeaders())['if-none-match'] ?? null,
			});
		});
		const first = await widgetPage(context, workspaceId);
		await expect.poll(() => seen.length).toBe(1);
		expect(seen[0]).toEqual({ status: 200, ifNoneMatch: null });
		await first.page.reload();
		await waitReady(first.page);
		await expect.poll(() => seen.length).toBe(2);
		expect(seen[1]?.status).toBe(304);
		expect(seen[1]?.ifNoneMatch).toMatch(/^"\d+"$/);

		await putSettings(token, { primaryColor: '#0a7d32' });
		await first.page.reload();
		await waitReady(first.page);
		const launcher = first.page.locator('parley-widget .launcher');
		await expect.poll(() => launcher.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(10, 125, 50)');
		expect(seen[2]?.status).toBe(200);
	});
});

describe('a cached config the widget cannot use', () => {
	it('is replaced by a fresh one instead of keeping the widget down', async () => {
		const { workspaceId } = workspace(38);
		const fresh = (await (await fetch(`${baseUrl}/widget/${workspaceId}/config`)).json()) as Record<string, unknown>;
		// A copy from another era: business hours in a time zone this browser does not know.
		const broken = {
			etag: '"1"',
			config: { ...fresh, businessHours: { enabled: true, timeZone: 'Mars/Olympus_Mons', weekly: {}, holidays: [] } },
		};
		await context.addInitScript(({ key, value }) => localStorage.setItem(key, value), {
			key: `parley:config1:${workspaceId}`,
			value: JSON.stringify(broken),
		});
		const { page } = await widgetPage(context, workspaceId);
		expect(await page.locator('parley-widget .launcher').getAttribute('aria-label')).toBe('Chat with Support');
	});
});

describe('the size budget', () => {
	const gzip = (bytes: Buffer | string) => gzipSync(bytes, { level: 9 }).length;

	it('the built files fit: at most 10 KB gzip before opening, 30 KB with the chat', () => {
		const loader = readFileSync('dist/public/widget.js');
		const chunks = readdirSync('dist/public/widget-assets').map((f) => readFileSync(`dist/public/widget-assets/${f}`));
		expect(gzip(loader)).toBeLessThanOrEqual(10 * 1024 - 1500); // leaves room for the config
		expect(gzip(loader) + chunks.reduce((sum, chunk) => sum + gzip(chunk), 0)).toBeLessThanOrEqual(30 * 1024 - 1500);
	});

	it('before opening, the page downloads two things (script and config) within 10 KB gzip; the open chat within 30 KB', async () => {
		const { workspaceId } = workspace(15);
		const bodies: { url: string; gzip: number }[] = [];
		context.on('response', async (response) => {
			if (!response.url().startsWith(baseUrl)) return;
			bodies.push({ url: response.url().slice(baseUrl.length), gzip: gzip(await response.body()) });
		});
		const { page } = await widgetPage(context, workspaceId);
		await expect.poll(() => bodies.length).toBe(2);
		expect(bodies.map((b) => b.url)).toEqual(['/widget.js', `/widget/${workspaceId}/config`]);
		const before = bodies.reduce((sum, b) => sum + b.gzip, 0);
		expect(before).toBeLessThanOrEqual(10 * 1024);
		await kw(page, 'open');
		await panel(page).waitFor({ state: 'visible' });
		await expect.poll(() => bodies.filter((b) => b.url.endsWith('.js')).length).toBe(2);
		const scripts = bodies.filter((b) => b.url.endsWith('.js'));
		expect(scripts.map((b) => b.url)).toEqual([
			'/widget.js',
			expect.stringMatching(/^\/widget-assets\/chat-[\w-]+\.js$/),
		]);
		const open = bodies.reduce((sum, b) => sum + b.gzip, 0);
		expect(open).toBeLessThanOrEqual(30 * 1024);
	});
});
