// Helpers of the widget's browser tests: a host page with the snippet whose widget is ready, the console
// messages the page logged, and the API calls that look at what the widget did.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { api, closeBrowser, hostPage, launchBrowser, snippetHtml } from './harness';

export const baseUrl = inject('baseUrl');

export interface WidgetPage {
	page: Page;
	/** Console messages of the page, as `type: text`. */
	console: string[];
}

/**
 * A host page embedding the widget for `workspaceId`; waits for the `ready` event unless `ready: false`.
 * `init` adds options to the snippet's own `kw('init', ...)` (as a site owner edits the snippet), `head` goes
 * into the page's <head>, and `script` runs right after the snippet (its `kw` calls are queued until
 * widget.js has loaded).
 */
export async function widgetPage(
	context: BrowserContext,
	workspaceId: string,
	options: { script?: string; url?: string; ready?: boolean; init?: Record<string, unknown>; head?: string } = {},
): Promise<WidgetPage> {
	const html = widgetHtml(workspaceId, options);
	const messages: string[] = [];
	context.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
	const page = await hostPage(context, { html, url: options.url });
	if (options.ready !== false) await waitReady(page);
	return { page, console: messages };
}

/**
 * The host page's HTML: the real snippet for `workspaceId` with `init`'s options added, `head` in the <head>,
 * then `script`; `window.__events` for the page's listeners and `window.__ready` once the widget is ready.
 */
export function widgetHtml(
	workspaceId: string,
	options: { script?: string; init?: Record<string, unknown>; head?: string } = {},
): string {
	const script = `window.__events=[];kw('on','ready',function(){window.__ready=true});${options.script ?? ''}`;
	const snippetInit = `kw('init',{workspaceId:${JSON.stringify(workspaceId)}})`;
	return snippetHtml(baseUrl, workspaceId, script)
		.replace(snippetInit, `kw('init',${JSON.stringify({ workspaceId, ...options.init })})`)
		.replace('<title>', `${options.head ?? ''}<title>`);
}

/** Waits for the widget's `ready` event (after a reload, say). */
export async function waitReady(page: Page): Promise<void> {
	await page.waitForFunction(() => (window as { __ready?: boolean }).__ready === true);
}

/** The text of the chat log, one line per rendered piece. */
export async function logText(page: Page): Promise<string> {
	return (await page.locator('parley-widget .log').textContent()) ?? '';
}

/** Sends `text` from the widget's composer (the chat must be open). */
export async function sendFromWidget(page: Page, text: string): Promise<void> {
	const field = page.locator('parley-widget .composer textarea, parley-widget .composer input');
	await field.fill(text);
	await field.press('Enter');
}

/** The workspace's conversations as the API lists them, most recent first. */
export async function conversations(token: string): Promise<{ id: string; contactId: string; status: string }[]> {
	const { status, body } = await api(baseUrl, token, 'GET', '/v3/conversations');
	if (status !== 200) throw new Error(`GET /v3/conversations answered ${status}: ${JSON.stringify(body)}`);
	return (body as { data: { id: string; contactId: string; status: string }[] }).data;
}

export interface ConversationWithContact {
	id: string;
	unreadByContact: number;
	origin: Record<string, string> | null;
	contact: {
		id: string;
		name: string | null;
		claimedEmail: string | null;
		email: string | null;
		verified: boolean;
		externalId: string | null;
		customFields: Record<string, unknown>;
		firstOrigin: Record<string, string> | null;
		lastOrigin: Record<string, string> | null;
	};
}

/** One conversation with its contact, through the API. */
export async function conversation(token: string, id: string): Promise<ConversationWithContact> {
	const { status, body } = await api(baseUrl, token, 'GET', `/v3/conversations/${id}`);
	if (status !== 200) throw new Error(`GET /v3/conversations/${id} answered ${status}: ${JSON.stringify(body)}`);
	return body as ConversationWithContact;
}

/** The texts of a conversation's messages, oldest first, through the API. */
export async function messageTexts(token: string, conversationId: string): Promise<string[]> {
	const { status, body } = await api(baseUrl, token, 'GET', `/v3/conversations/${conversationId}/messages`);
	if (status !== 200) throw new Error(`messages answered ${status}: ${JSON.stringify(body)}`);
	return (body as { data: { text: string }[] }).data.map((m) => m.text);
}

/** Defines contact custom fields (`{ plan: 'text', topic: ['Sales', 'Support'] }`); throws unless each is 201. */
export async function defineContactFields(token: string, fields: Record<string, 'text' | string[]>): Promise<void> {
	for (const [key, kind] of Object.entries(fields)) {
		const definition = Array.isArray(kind) ? { type: 'select', options: kind } : { type: kind };
		const { status, body } = await api(baseUrl, token, 'POST', '/v3/custom-fields', {
			entity: 'contact',
			key,
			label: key,
			...definition,
		});
		if (status !== 201) throw new Error(`POST /v3/custom-fields answered ${status}: ${JSON.stringify(body)}`);
	}
}

/** Updates the workspace's widget settings; throws unless 200. */
export async function putSettings(token: string, settings: unknown): Promise<void> {
	const { status, body } = await api(baseUrl, token, 'PUT', '/v3/widget/settings', settings);
	if (status !== 200) throw new Error(`PUT /v3/widget/settings answered ${status}: ${JSON.stringify(body)}`);
}

/**
 * Registers a test file's hooks: one Chromium for the file, closed after it, and contexts (fresh storage)
 * that close after each test. Returns the function that makes a context.
 *
 * @example const newContext = browserContexts(); ... const context = await newContext({ locale: 'pt-BR' });
 */
export function browserContexts(): (options?: BrowserContextOptions) => Promise<BrowserContext> {
	let browser: Browser;
	const open: BrowserContext[] = [];
	beforeAll(async () => {
		browser = await launchBrowser();
	});
	afterAll(closeBrowser);
	afterEach(async () => {
		for (const context of open.splice(0)) await context.close();
	});
	return async (options) => {
		const context = await browser.newContext(options);
		open.push(context);
		return context;
	};
}

/** Calls `kw(...args)` in the page, as the site's own script would. */
export function kw(page: Page, ...args: unknown[]): Promise<unknown> {
	return page.evaluate((a) => (window as unknown as { kw: (...x: unknown[]) => unknown }).kw(...a), args);
}
