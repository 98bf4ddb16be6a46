// A site that calls identify on every page (every logged-in user): what a page costs before the visitor opens
// the chat, first visit and returning visit, and the identity reaching the contact before and after opening.
import { gzipSync } from 'node:zlib';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { FOLLOW_AFTER_MS } from '../../widget/src/visit';
import { api, signJwt, workspace } from './harness';
import {
	baseUrl,
	browserContexts,
	conversation,
	conversations,
	defineContactFields,
	kw,
	logText,
	sendFromWidget,
	waitReady,
	widgetPage,
} from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

const BUDGET = 10 * 1024;
const CHAT_FILE = /^\/widget-assets\/chat-[\w-]+\.js$/;

interface Transfer {
	url: string;
	method: string;
	/** The request body, for the POSTs. */
	sent: string | null;
	gzip: number;
	at: number;
}

/**
 * Every answer of the Worker to the context that went over the network, in order, with its body's gzip size.
 * What the browser's cache answered is left out: Chromium reports no encoded body for it.
 */
function transfers(on: BrowserContext): Transfer[] {
	const seen: Transfer[] = [];
	on.on('response', async (response) => {
		if (!response.url().startsWith(baseUrl)) return;
		const request = response.request();
		const entry = { url: response.url().slice(baseUrl.length), method: request.method(), sent: request.postData() };
		const at = Date.now();
		const [sizes, body] = await Promise.all([request.sizes(), response.body().catch(() => Buffer.alloc(0))]);
		if (sizes.responseBodySize <= 0 && body.length > 0) return;
		seen.push({ ...entry, gzip: gzipSync(body, { level: 9 }).length, at });
	});
	return seen;
}

const gzipOf = (list: Transfer[]) => list.reduce((sum, t) => sum + t.gzip, 0);

const open = async (page: Page) => {
	await page.locator('parley-widget .launcher').click();
	await page.locator('parley-widget .panel').waitFor({ state: 'visible' });
};

describe('an identified visitor before opening the chat', () => {
	it('a first visit makes three requests (script, config, session with the identity) within 10 KiB gzip', async () => {
		const { workspaceId } = workspace(42);
		const seen = transfers(context);
		const { page } = await widgetPage(context, workspaceId, {
			script: "kw('identify',{name:'Ada Lovelace',email:'ada@example.com'});",
		});
		const sessions = `/widget/${workspaceId}/sessions`;
		await expect.poll(() => seen.some((t) => t.url === sessions)).toBe(true);
		const before = [...seen];
		expect(before.map((t) => t.url)).toEqual(['/widget.js', `/widget/${workspaceId}/config`, sessions]);
		expect(JSON.parse(before[2]?.sent ?? '{}').identity).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com' });
		expect(gzipOf(before)).toBeLessThanOrEqual(BUDGET);
		// The chat comes only on opening, and says nothing again: the session already knows who this is.
		await open(page);
		await expect.poll(() => seen.some((t) => CHAT_FILE.test(t.url))).toBe(true);
		await sendFromWidget(page, 'Hello');
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(1);
		expect(seen.filter((t) => t.url.endsWith('/identify') || t.url === sessions)).toHaveLength(1);
	});

	it('a returning visit with an open conversation makes at most three requests within 10 KiB, then follows it', async () => {
		const { workspaceId, token } = workspace(43);
		const identify = "kw('identify',{name:'Grace Hopper',email:'grace@example.com'});";
		const { page } = await widgetPage(context, workspaceId, { script: identify });
		await open(page);
		await sendFromWidget(page, 'First visit');
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(1);
		const [started] = await conversations(token);

		const seen = transfers(context);
		await page.reload();
		await waitReady(page);
		await expect.poll(() => seen.some((t) => CHAT_FILE.test(t.url)), { timeout: 15_000 }).toBe(true);
		const chatAt = seen.findIndex((t) => CHAT_FILE.test(t.url));
		const before = seen.slice(0, chatAt);
		const session = before.find((t) => t.url === `/widget/${workspaceId}/sessions`);
		// The resume of the session is what the next two checks read: it must have been seen.
		expect(session).toBeDefined();
		expect(before.length).toBeLessThanOrEqual(3);
		expect(before.map((t) => t.url)).toContain(`/widget/${workspaceId}/config`);
		expect(gzipOf(before)).toBeLessThanOrEqual(BUDGET);
		// The same identity to the same session is not told again, neither with the resume nor on its own.
		expect(JSON.parse(session?.sent ?? '{}')).not.toHaveProperty('identity');
		expect(seen.some((t) => t.url.endsWith('/identify'))).toBe(false);
		// The chat follows the open conversation only once the page has settled.
		expect((seen[chatAt]?.at ?? 0) - (session?.at ?? 0)).toBeGreaterThanOrEqual(FOLLOW_AFTER_MS);
		// ...and then live: a reply shows on the badge without opening.
		const badge = page.locator('parley-widget .badge');
		const unread = Number((await badge.count()) > 0 ? await badge.textContent() : 0);
		await api(baseUrl, token, 'POST', '/v3/messages', { conversationId: started?.id, text: 'Welcome back' });
		await expect.poll(() => badge.textContent()).toBe(String(unread + 1));
	});

	it('a returning visit with only closed conversations makes three requests and imports no chat before opening', async () => {
		const { workspaceId, token } = workspace(44);
		const { page } = await widgetPage(context, workspaceId, { script: "kw('identify',{name:'Alan'});" });
		await open(page);
		await sendFromWidget(page, 'Done soon');
		await expect.poll(async () => (await conversations(token)).length).toBe(1);
		const [only] = await conversations(token);
		expect((await api(baseUrl, token, 'PATCH', `/v3/conversations/${only?.id}`, { status: 'closed' })).status).toBe(
			200,
		);
		const seen = transfers(context);
		await page.reload();
		await waitReady(page);
		await expect.poll(() => seen.some((t) => t.url === `/widget/${workspaceId}/sessions`)).toBe(true);
		// The page waits out what counts as "before opening": idle, then the follow delay and some margin.
		await page.evaluate(
			(ms) => new Promise((done) => requestIdleCallback(() => setTimeout(done, ms))),
			FOLLOW_AFTER_MS + 1000,
		);
		expect(seen.length).toBeLessThanOrEqual(3);
		expect(seen.some((t) => CHAT_FILE.test(t.url))).toBe(false);
		expect(gzipOf(seen)).toBeLessThanOrEqual(BUDGET);
	});
});

describe('an identity the Worker refuses', () => {
	it('is logged once for the page to fix; the next identify is told, and the visitor still chats', async () => {
		const { workspaceId, token } = workspace(29);
		await defineContactFields(token, { plan: 'text' });
		const seen = transfers(context);
		const { page, console } = await widgetPage(context, workspaceId, {
			script: "kw('identify',{name:'Bo',customData:{'plan-name':'pro'}});",
		});
		await expect
			.poll(() => console.filter((line) => line.startsWith('error: [Parley] kw("identify")')))
			.toHaveLength(1);
		expect(console.find((line) => line.includes('kw("identify")'))).toContain('customData');
		// The page fixes its call: the session starts with it.
		await kw(page, 'identify', { name: 'Bo', customData: { plan: 'pro' } });
		const sessions = `/widget/${workspaceId}/sessions`;
		await expect.poll(() => seen.filter((t) => t.url === sessions).length).toBe(2);
		await open(page);
		await sendFromWidget(page, 'Still here');
		await expect.poll(async () => (await conversations(token)).length).toBe(1);
		const [only] = await conversations(token);
		expect((await conversation(token, only?.id as string)).contact).toMatchObject({ name: 'Bo' });
		expect(console.filter((line) => line.includes('[Parley]'))).toHaveLength(1);
	});
});

describe('the identity reaches the contact', () => {
	it('verified with a JWT, before the chat opens and after', async () => {
		const { workspaceId, token } = workspace(45);
		await defineContactFields(token, { plan: 'text' });
		const { body } = await api(baseUrl, token, 'POST', '/v3/widget/identity-secret');
		const jwt = signJwt((body as { secret: string }).secret, {
			email: 'ana@example.com',
			external_id: 'user-7',
			exp: Math.floor(Date.now() / 1000) + 600,
		});
		const seen = transfers(context);
		const identity = { name: 'Ana Souza', email: 'ana@example.com', customData: { plan: 'pro' }, jwt };
		const { page } = await widgetPage(context, workspaceId, { script: `kw('identify',${JSON.stringify(identity)});` });
		await expect.poll(() => seen.some((t) => t.url === `/widget/${workspaceId}/sessions`)).toBe(true);
		// Before opening: the team writes to ana@example.com and reaches the contact the page proved.
		const proactive = await api(baseUrl, token, 'POST', '/v3/conversations', {
			contact: { email: 'ana@example.com' },
			message: { text: 'Your order shipped' },
		});
		expect(proactive.status).toBe(201);
		const before = await conversation(token, (proactive.body as { id: string }).id);
		expect(before.contact).toMatchObject({ name: 'Ana Souza', email: 'ana@example.com', externalId: 'user-7' });
		expect(before.contact.verified).toBe(true);
		expect(before.contact.customFields).toMatchObject({ plan: 'pro' });
		// After opening: the visitor's message is that contact's.
		await open(page);
		await sendFromWidget(page, 'Thanks!');
		await expect.poll(() => logText(page)).toContain('Thanks!');
		await expect.poll(async () => (await conversations(token)).length).toBe(2);
		const [latest] = await conversations(token);
		expect(latest?.contactId).toBe(before.contact.id);
	});

	it('said after the session started, it is told with one identify call and no chat', async () => {
		const { workspaceId, token } = workspace(46);
		const { page } = await widgetPage(context, workspaceId);
		await open(page);
		await sendFromWidget(page, 'Before logging in');
		await expect.poll(async () => (await conversations(token)).length).toBe(1);
		const [only] = await conversations(token);
		await api(baseUrl, token, 'PATCH', `/v3/conversations/${only?.id}`, { status: 'closed' });
		const seen = transfers(context);
		await page.reload();
		await waitReady(page);
		await expect.poll(() => seen.some((t) => t.url === `/widget/${workspaceId}/sessions`)).toBe(true);
		// The visitor logs in on this page, after the session was resumed: typed details, kept as claims.
		await kw(page, 'identify', { name: 'Lin Chen', email: 'lin@example.com' });
		await expect.poll(() => seen.filter((t) => t.url === `/widget/${workspaceId}/identify`).length).toBe(1);
		expect(seen.some((t) => CHAT_FILE.test(t.url))).toBe(false);
		await expect
			.poll(async () => (await conversation(token, only?.id as string)).contact)
			.toMatchObject({ name: 'Lin Chen', claimedEmail: 'lin@example.com', email: null });
	});
});
