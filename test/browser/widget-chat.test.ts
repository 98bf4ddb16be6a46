// The chat in a real Chromium against `wrangler dev`: what a visitor does and sees, checked through the API.
import type { BrowserContext } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import {
	baseUrl,
	browserContexts,
	conversation,
	conversations,
	defineContactFields,
	logText,
	messageTexts,
	sendFromWidget,
	waitReady,
	widgetPage,
} from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

/** Waits until the API lists `count` conversations for the token, and returns the newest. */
async function newestConversation(token: string, count = 1) {
	await expect.poll(async () => (await conversations(token)).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(count);
	return (await conversations(token))[0] as { id: string; contactId: string };
}

describe('open, close and toggle', () => {
	it('follow the commands and the launcher, firing open and close', async () => {
		const { workspaceId } = workspace(3);
		const { page } = await widgetPage(context, workspaceId, {
			script: "kw('on','open',function(){__events.push('open')});kw('on','close',function(){__events.push('close')});",
		});
		const panel = page.locator('parley-widget .panel');
		await expect.poll(() => panel.count()).toBe(0);
		const composerFocused = () =>
			page
				.locator('parley-widget .composer textarea')
				.evaluate((e) => e === (e.getRootNode() as ShadowRoot).activeElement);
		await page.evaluate(() => (window as unknown as { kw: (...a: unknown[]) => void }).kw('open'));
		await panel.waitFor({ state: 'visible' });
		await page.evaluate(() => (window as unknown as { kw: (...a: unknown[]) => void }).kw('close'));
		await panel.waitFor({ state: 'hidden' });
		await page.evaluate(() => (window as unknown as { kw: (...a: unknown[]) => void }).kw('toggle'));
		await panel.waitFor({ state: 'visible' });
		await page.locator('parley-widget .launcher').click();
		await panel.waitFor({ state: 'hidden' });
		await page.locator('parley-widget .launcher').click();
		await panel.waitFor({ state: 'visible' });
		// Opened from the launcher: the visitor can type at once.
		await expect.poll(composerFocused).toBe(true);
		await page.keyboard.press('Escape');
		await panel.waitFor({ state: 'hidden' });
		expect(await page.evaluate(() => (window as unknown as { __events: string[] }).__events)).toEqual([
			'open',
			'close',
			'open',
			'close',
			'open',
			'close',
		]);
		// Escape handed the focus back to the launcher.
		expect(
			await page
				.locator('parley-widget .launcher')
				.evaluate((e) => e === (e.getRootNode() as ShadowRoot).activeElement),
		).toBe(true);
	});

	it('a page script opening the chat by itself leaves the focus where the visitor had it', async () => {
		const { workspaceId } = workspace(39);
		// ready: false, because Playwright's own page.evaluate calls count as the visitor acting (user activation).
		const { page } = await widgetPage(context, workspaceId, {
			ready: false,
			script:
				"document.body.insertAdjacentHTML('beforeend','<input id=search>');document.getElementById('search').focus();kw('open')",
		});
		await page.locator('parley-widget .panel').waitFor({ state: 'visible' });
		await page.locator('parley-widget .composer textarea').waitFor();
		expect(await page.evaluate(() => document.activeElement?.id)).toBe('search');
	});

	it('open with a message pre-fills the composer without sending it', async () => {
		const { workspaceId, token } = workspace(4);
		const posts: string[] = [];
		context.on('request', (request) => {
			if (request.method() === 'POST' && request.url().includes('/conversations')) posts.push(request.url());
		});
		const { page } = await widgetPage(context, workspaceId, { script: "kw('open',{message:'Is the tent in stock?'})" });
		const field = page.locator('parley-widget .composer textarea');
		await expect.poll(() => field.inputValue()).toBe('Is the tent in stock?');
		// Give a send every chance to go out before checking that none did.
		await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)));
		expect(posts).toEqual([]);
		expect(await conversations(token)).toEqual([]);
	});
});

describe('a conversation', () => {
	it('sends the visitor message to the API and shows the operator reply live', async () => {
		const { workspaceId, token } = workspace(5);
		const { page } = await widgetPage(context, workspaceId, {
			script:
				"kw('on','conversation_started',function(c){__events.push('started:'+c.id)});kw('on','message',function(m){__events.push('message:'+m.text)});",
		});
		await page.locator('parley-widget .launcher').click();
		await sendFromWidget(page, 'Hello, do you ship to Lisbon?');
		const { id } = await newestConversation(token);
		await expect.poll(() => messageTexts(token, id)).toEqual(['Hello, do you ship to Lisbon?']);
		await expect
			.poll(() => page.evaluate(() => (window as unknown as { __events: string[] }).__events))
			.toEqual([`started:${id}`, 'message:Hello, do you ship to Lisbon?']);

		const reply = await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId: id,
			text: 'We do, in *two* days.',
		});
		expect(reply.status).toBe(201);
		await expect.poll(() => logText(page)).toContain('We do, in two days.');
		expect(await page.locator('parley-widget .msg.team strong').last().textContent()).toBe('two');
		// The visitor's own message shows once, not twice (HTTP answer and socket echo).
		expect((await logText(page)).match(/do you ship to Lisbon/g)).toHaveLength(1);
	});

	it('renders XSS payloads from the visitor and the team as text', async () => {
		const { workspaceId, token } = workspace(6);
		const { page } = await widgetPage(context, workspaceId, { script: 'window.__xss=0' });
		await page.locator('parley-widget .launcher').click();
		const payload = '<img src=x onerror="window.__xss++">';
		await sendFromWidget(page, payload);
		const { id } = await newestConversation(token);
		await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId: id,
			text: '<script>window.__xss++</script><b onmouseover="window.__xss++">hi</b> *<img src=y onerror=window.__xss++>*',
		});
		await expect.poll(() => logText(page)).toContain('<b onmouseover');
		expect(await logText(page)).toContain(payload);
		expect(await page.locator('parley-widget .log img, parley-widget .log script, parley-widget .log b').count()).toBe(
			0,
		);
		// The only element formatting made is <strong>, holding the payload as text.
		expect(await page.locator('parley-widget .log strong').textContent()).toBe('<img src=y onerror=window.__xss++>');
		expect(await page.evaluate(() => (window as unknown as { __xss: number }).__xss)).toBe(0);
	});

	it('keeps the conversation across a reload and lists earlier conversations', async () => {
		const { workspaceId, token } = workspace(7);
		const first = await widgetPage(context, workspaceId);
		await first.page.locator('parley-widget .launcher').click();
		await sendFromWidget(first.page, 'First question');
		const { id: firstId } = await newestConversation(token);
		// The team closes it; the visitor comes back later and starts another.
		expect((await api(baseUrl, token, 'PATCH', `/v3/conversations/${firstId}`, { status: 'closed' })).status).toBe(200);
		await first.page.reload();
		await waitReady(first.page);
		await first.page.locator('parley-widget .launcher').click();
		// A closed conversation is not continued: the visitor starts a new one.
		await expect.poll(() => logText(first.page)).not.toContain('First question');
		await sendFromWidget(first.page, 'Second question');
		const { id: secondId } = await newestConversation(token, 2);
		expect(secondId).not.toBe(firstId);
		await first.page.reload();
		await waitReady(first.page);
		await first.page.locator('parley-widget .launcher').click();
		await expect.poll(() => logText(first.page)).toContain('Second question');
		await first.page.locator('parley-widget header button[aria-label="Your conversations"]').click();
		const items = first.page.locator('parley-widget .list li');
		await expect.poll(() => items.count()).toBe(3); // "new conversation" and the two
		await items.nth(2).locator('button').click();
		await expect.poll(() => logText(first.page)).toContain('First question');
		expect(await logText(first.page)).toContain('This conversation is closed.');
	});

	it('counts unread replies on the launcher and clears them on open', async () => {
		const { workspaceId, token } = workspace(8);
		const { page } = await widgetPage(context, workspaceId, {
			script: "kw('on','unread',function(n){__events.push(n)});",
		});
		await page.locator('parley-widget .launcher').click();
		await sendFromWidget(page, 'Anyone there?');
		const { id } = await newestConversation(token);
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(1);
		await page.locator('parley-widget .launcher').click(); // closes
		for (const text of ['Yes!', 'How can I help?']) {
			expect((await api(baseUrl, token, 'POST', '/v3/messages', { conversationId: id, text })).status).toBe(201);
		}
		const badge = page.locator('parley-widget .badge');
		await expect.poll(() => badge.textContent()).toBe('2');
		expect(await page.locator('parley-widget .launcher').getAttribute('aria-label')).toContain('2 unread messages');
		await page.locator('parley-widget .launcher').click();
		await badge.waitFor({ state: 'detached' });
		expect(await page.evaluate(() => (window as unknown as { __events: number[] }).__events)).toEqual([1, 2, 0]);
		// The read position reached the Worker: the visitor's unread count is 0 there too.
		await expect.poll(async () => (await conversation(token, id)).unreadByContact).toBe(0);
	});
});

describe('identify and origin', () => {
	it('identify updates the contact; campaign parameters reach the conversation and the contact', async () => {
		const { workspaceId, token } = workspace(9);
		await defineContactFields(token, { plan: 'text' });
		const { page } = await widgetPage(context, workspaceId, {
			url: 'http://localhost:4510/landing?utm_source=newsletter&utm_medium=email&utm_campaign=autumn&utm_content=hero&utm_term=tents&gclid=CjwKCAjw-test',
			script: "kw('identify',{name:'Ada Lovelace',email:'ada@example.com',customData:{plan:'pro'}});",
		});
		// Another page of the site, without parameters: the origin is kept across the navigation.
		await page.evaluate(() => history.pushState({}, '', '/products'));
		await page.goto('http://localhost:4510/products');
		await waitReady(page);
		await page.locator('parley-widget .launcher').click();
		await sendFromWidget(page, 'Hi from the newsletter');
		const { id } = await newestConversation(token);
		const seen = await conversation(token, id);
		expect(seen.contact).toMatchObject({ name: 'Ada Lovelace', claimedEmail: 'ada@example.com', email: null });
		expect(seen.contact.customFields).toMatchObject({ plan: 'pro' });
		const campaign = {
			utmSource: 'newsletter',
			utmMedium: 'email',
			utmCampaign: 'autumn',
			utmContent: 'hero',
			utmTerm: 'tents',
			gclid: 'CjwKCAjw-test',
		};
		expect(seen.origin).toMatchObject(campaign);
		expect(seen.origin?.landingUrl).toContain('/landing?utm_source=newsletter');
		expect(seen.contact.firstOrigin).toMatchObject(campaign);
	});
});
