// What the widget does when things go wrong or change under it: a refused message, a reset before the chat
// has loaded, a session ended elsewhere, a bot's prompt after a reset, a page's fixed elements, and how
// many read receipts opening a long conversation costs.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import {
	baseUrl,
	browserContexts,
	conversation,
	conversations,
	kw,
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

const sent = (page: Page) => page.locator('parley-widget .msg.mine.sent');
const bodies = (page: Page) => page.locator('parley-widget .msg .body').allTextContents();

async function openAndSend(page: Page, text: string) {
	await kw(page, 'open');
	await sendFromWidget(page, text);
	await expect.poll(() => sent(page).count()).toBeGreaterThan(0);
}

describe('a message the Worker refuses', () => {
	it('shows why at once, lets the visitor remove it, and does not hold up or reorder the rest', async () => {
		const { workspaceId, token } = workspace(33);
		await context.route(`${baseUrl}/widget/${workspaceId}/conversations/*/messages`, async (route) => {
			if (route.request().method() !== 'POST' || !route.request().postData()?.includes('refuse me')) {
				return route.continue();
			}
			await route.fulfill({
				status: 422,
				headers: { 'Access-Control-Allow-Origin': '*' },
				contentType: 'application/json',
				body: JSON.stringify({ error: 'Unprocessable Entity', message: 'json.text: too long', statusCode: 422 }),
			});
		});
		const { page } = await widgetPage(context, workspaceId);
		await openAndSend(page, 'first');
		await sendFromWidget(page, 'refuse me');
		const failed = page.locator('parley-widget .msg.failed');
		await expect
			.poll(() => failed.locator('.note').textContent())
			.toBe('Not sent: the message was not accepted (too long or malformed)');
		expect(await failed.getAttribute('title')).toBe('json.text: too long');
		await sendFromWidget(page, 'after');
		await expect.poll(() => sent(page).count()).toBe(2);
		const [conversation] = await conversations(token);
		await api(baseUrl, token, 'POST', '/v3/messages', { conversationId: conversation?.id, text: 'team reply' });
		await expect.poll(() => logText(page)).toContain('team reply');
		expect((await bodies(page)).slice(1)).toEqual(['first', 'refuse me', 'after', 'team reply']);
		expect(await messageTexts(token, conversation?.id as string)).toEqual(['first', 'after', 'team reply']);
		await failed.locator('button.discard').click();
		expect(await failed.count()).toBe(0);
		await page.reload();
		await waitReady(page);
		await kw(page, 'open');
		await expect.poll(() => logText(page)).toContain('team reply');
		expect(await logText(page)).not.toContain('refuse me');
	});
});

describe('reset', () => {
	it('followed at once by identify (a login page) names the new visitor, never the previous one', async () => {
		const { workspaceId, token } = workspace(54);
		const first = await widgetPage(context, workspaceId, {
			script: "kw('identify',{name:'Alice',email:'alice@example.com'})",
		});
		await openAndSend(first.page, 'I am Alice');
		await first.page.close();
		// The next user logs in on the same browser: the page resets, then identifies, in one go.
		const { page } = await widgetPage(context, workspaceId, {
			script: "kw('reset');kw('identify',{name:'Bob',email:'bob@example.com'})",
		});
		await openAndSend(page, 'I am Bob');
		await expect.poll(async () => (await conversations(token)).length).toBe(2);
		const [bobs, alices] = await conversations(token);
		const alice = (await conversation(token, alices?.id as string)).contact;
		const bob = (await conversation(token, bobs?.id as string)).contact;
		expect(alice).toMatchObject({ name: 'Alice', claimedEmail: 'alice@example.com' });
		expect(bob).toMatchObject({ name: 'Bob', claimedEmail: 'bob@example.com' });
		expect(bob.id).not.toBe(alice.id);
	});

	it('before the chat has loaded ends the session and forgets the visitor', async () => {
		const { workspaceId, token } = workspace(34);
		const first = await widgetPage(context, workspaceId);
		await openAndSend(first.page, 'Logged in');
		await first.page.close();
		const resets: string[] = [];
		const sessionStarts: string[] = [];
		context.on('request', (request) => {
			if (request.url().endsWith('/reset')) resets.push(request.method());
			if (request.url().endsWith('/sessions')) sessionStarts.push(request.method());
		});
		// The site's logout page: reset is queued before widget.js has even loaded.
		const { page } = await widgetPage(context, workspaceId, { script: "kw('reset')" });
		await expect.poll(() => resets).toEqual(['POST']);
		// Past the idle moment a returning visitor's session would be resumed: the reset ended it, so none is.
		await page.evaluate(() => new Promise((resolve) => requestIdleCallback(() => setTimeout(resolve, 100))));
		expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('parley:session:')))).toEqual(
			[],
		);
		expect(sessionStarts).toEqual([]);
		await openAndSend(page, 'Someone else');
		await expect.poll(async () => (await conversations(token)).length).toBe(2);
		const [second, firstConversation] = await conversations(token);
		expect(second?.contactId).not.toBe(firstConversation?.contactId);
	});

	it('forgets the visitor at once, so a logout that navigates away straight after still logs out', async () => {
		const { workspaceId, token } = workspace(40);
		const { page } = await widgetPage(context, workspaceId);
		await openAndSend(page, 'Signed in as Ana');
		const key = `parley:session:${workspaceId}`;
		const before = await page.evaluate((k) => localStorage.getItem(k), key);
		expect(before).not.toBeNull();
		// The Worker is slow to answer the reset: the page has moved on long before.
		await context.route(`${baseUrl}/widget/${workspaceId}/reset`, async (route) => {
			await new Promise((resolve) => setTimeout(resolve, 3000));
			await route.continue().catch(() => {});
		});
		// The site's logout button: reset, then off to another page without waiting for anything.
		await page.evaluate(() => {
			(window as unknown as { kw: (...a: unknown[]) => void }).kw('reset');
			return new Promise((resolve) => setTimeout(resolve, 50));
		});
		expect(await page.evaluate((k) => localStorage.getItem(k), key)).toBeNull();
		await page.reload();
		await waitReady(page);
		await kw(page, 'open');
		await page.locator('parley-widget .composer textarea').waitFor();
		expect(await logText(page)).not.toContain('Signed in as Ana');
		expect(await conversations(token)).toHaveLength(1);
	});

	it("clears a bot's typed prompt", async () => {
		const { workspaceId, token } = workspace(35);
		const { page } = await widgetPage(context, workspaceId);
		await openAndSend(page, 'Hi');
		const [conversation] = await conversations(token);
		await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId: conversation?.id,
			text: 'Your e-mail?',
			interactive: { type: 'input', input: 'email' },
		});
		await page.locator('parley-widget .composer input[type=email]').waitFor();
		await kw(page, 'reset');
		await page.locator('parley-widget .composer textarea').waitFor();
		await sendFromWidget(page, 'plain words are fine again');
		await expect.poll(() => sent(page).count()).toBe(1);
	});
});

describe('a session ended elsewhere', () => {
	it('starts over as a new visitor; what is sent next is not lost', async () => {
		const { workspaceId, token } = workspace(36);
		const { page } = await widgetPage(context, workspaceId);
		await openAndSend(page, 'one');
		// Another tab logs out: the Worker ends the session and closes this tab's socket.
		const session = await page.evaluate(
			(ws) => JSON.parse(localStorage.getItem(`parley:session:${ws}`) ?? 'null'),
			workspaceId,
		);
		const reset = await fetch(`${baseUrl}/widget/${workspaceId}/reset`, {
			method: 'POST',
			headers: { 'Parley-Session': session },
		});
		expect(reset.status).toBe(204);
		await expect.poll(() => logText(page), { timeout: 15_000 }).not.toContain('one');
		await sendFromWidget(page, 'two');
		await expect.poll(async () => (await conversations(token)).length).toBe(2);
		const [latest] = await conversations(token);
		expect(await messageTexts(token, latest?.id as string)).toEqual(['two']);
		await expect.poll(() => sent(page).count()).toBe(1);
	});
});

describe('the page around the widget', () => {
	it("stays above the page's fixed elements", async () => {
		const { workspaceId } = workspace(10);
		const { page } = await widgetPage(context, workspaceId, {
			head: '<style>.cookie-bar{position:fixed;right:0;bottom:0;width:400px;height:200px;z-index:1000;background:#eee}</style>',
			script: "document.body.insertAdjacentHTML('beforeend','<div class=cookie-bar>Cookies?</div>')",
		});
		const box = await page.locator('parley-widget .launcher').boundingBox();
		const hit = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.tagName.toLowerCase(), {
			x: (box?.x ?? 0) + 28,
			y: (box?.y ?? 0) + 28,
		});
		expect(hit).toBe('parley-widget');
	});
});

describe('read receipts', () => {
	it('opening a conversation with many unread replies sends one read receipt', async () => {
		const { workspaceId, token } = workspace(37);
		const { page } = await widgetPage(context, workspaceId);
		await openAndSend(page, 'Question');
		const [conversation] = await conversations(token);
		await kw(page, 'close');
		for (let i = 1; i <= 10; i++) {
			await api(baseUrl, token, 'POST', '/v3/messages', { conversationId: conversation?.id, text: `Answer ${i}` });
		}
		await expect.poll(() => page.locator('parley-widget .badge').textContent()).toBe('10');
		const operator = new WebSocket(`${baseUrl.replace('http', 'ws')}/v3/conversations/${conversation?.id}/live`, [
			'parley.v1',
			`bearer.${token}`,
		]);
		try {
			const reads: number[] = [];
			operator.onmessage = (event) => {
				const frame = JSON.parse(String(event.data)) as { type: string; reader?: string; seq?: number };
				if (frame.type === 'read' && frame.reader === 'contact') reads.push(frame.seq ?? -1);
			};
			await new Promise((resolve) => operator.addEventListener('open', resolve));
			// A fresh page: the history arrives as a backlog of eleven messages.
			await page.reload();
			await waitReady(page);
			await kw(page, 'open');
			await expect.poll(() => reads.length).toBe(1);
			await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)));
			expect(reads).toEqual([11]);
		} finally {
			operator.close();
		}
	});
});
