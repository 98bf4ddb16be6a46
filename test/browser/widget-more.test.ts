// The demo page, verified identities, appearance settings and keyboard-only use.
import type { BrowserContext } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, signJwt, workspace } from './harness';
import {
	baseUrl,
	browserContexts,
	conversation,
	conversations,
	logText,
	putSettings,
	sendFromWidget,
	widgetPage,
} from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

describe('the demo page', () => {
	it('serves the demo shop with a working widget at /demo', async () => {
		const { token } = workspace(1);
		const page = await context.newPage();
		await page.goto(`${baseUrl}/demo`);
		expect(await page.title()).toContain('Parley demo');
		await page.locator('parley-widget .launcher').click();
		await sendFromWidget(page, 'Hello from the demo');
		await expect
			.poll(async () => {
				for (const c of await conversations(token)) {
					const { body } = await api(baseUrl, token, 'GET', `/v3/conversations/${c.id}/messages`);
					if ((body as { data: { text: string }[] }).data.some((m) => m.text === 'Hello from the demo')) return true;
				}
				return false;
			})
			.toBe(true);
	});
});

describe('identity verification', () => {
	it('a JWT from the site’s backend makes the visitor the verified contact', async () => {
		const { workspaceId, token } = workspace(30);
		const { status, body } = await api(baseUrl, token, 'POST', '/v3/widget/identity-secret');
		expect(status).toBe(200);
		const jwt = signJwt((body as { secret: string }).secret, {
			email: 'ana@example.com',
			external_id: 'user-42',
			name: 'Ana Souza',
			exp: Math.floor(Date.now() / 1000) + 600,
		});
		const { page } = await widgetPage(context, workspaceId, { script: `kw('identify',{jwt:${JSON.stringify(jwt)}});` });
		await page.locator('parley-widget .launcher').click();
		await sendFromWidget(page, 'Where is my order?');
		await expect.poll(async () => (await conversations(token)).length).toBeGreaterThan(0);
		const seen = await conversation(token, (await conversations(token))[0]?.id as string);
		expect(seen.contact).toMatchObject({ email: 'ana@example.com', name: 'Ana Souza' });
		expect(seen.contact.verified).toBe(true);
		expect(seen.contact.externalId).toBe('user-42');
	});
});

describe('appearance', () => {
	it('sits on the left with the logo and display name when set so', async () => {
		const { workspaceId, token } = workspace(31);
		await putSettings(token, {
			position: 'left',
			displayName: 'Acme Help',
			logoUrl: 'https://cdn.example.com/logo.png',
		});
		await context.route('https://cdn.example.com/**', (route) =>
			route.fulfill({ contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg"/>' }),
		);
		const { page } = await widgetPage(context, workspaceId);
		const box = await page.locator('parley-widget .launcher').boundingBox();
		expect(box?.x).toBe(20);
		await page.locator('parley-widget .launcher').click();
		expect(await page.locator('parley-widget header img').getAttribute('src')).toBe('https://cdn.example.com/logo.png');
		expect(await page.locator('parley-widget header h2').textContent()).toBe('Acme Help');
		expect((await page.locator('parley-widget .panel').boundingBox())?.x).toBe(20);
		expect(await page.locator('parley-widget .panel').getAttribute('aria-label')).toBe('Chat with Acme Help');
	});

	it('shows a logo uploaded to the Worker, its path resolved against the Worker (plain http here)', async () => {
		const { workspaceId, token } = workspace(75);
		const png = Buffer.from(
			'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
			'base64',
		);
		const upload = await fetch(`${baseUrl}/v3/widget/logo`, {
			method: 'PUT',
			headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'image/png' },
			body: png,
		});
		const { logoUrl } = (await upload.json()) as { logoUrl: string };
		expect(logoUrl).toMatch(/^\/widget\//);
		const { page } = await widgetPage(context, workspaceId);
		await page.locator('parley-widget .launcher').click();
		const logo = page.locator('parley-widget header img');
		expect(await logo.evaluate((img: HTMLImageElement) => img.src)).toBe(`${baseUrl}${logoUrl}`);
		// Loaded and drawn, not a broken image: the customer's page is on another origin.
		await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
		expect(await logo.isVisible()).toBe(true);
	});
});

describe('keyboard only', () => {
	it('reaches the launcher with Tab, opens, writes, sends and closes without a mouse', async () => {
		const { workspaceId, token } = workspace(32);
		const { page } = await widgetPage(context, workspaceId);
		const focused = () =>
			page.evaluate(() => {
				const host = document.activeElement;
				const inner = host?.shadowRoot?.activeElement;
				return inner ? `${inner.tagName.toLowerCase()}.${inner.className}` : host?.tagName.toLowerCase();
			});
		// The call to action comes first, then the launcher.
		await page.keyboard.press('Tab');
		await page.keyboard.press('Tab');
		expect(await focused()).toBe('button.launcher');
		await page.keyboard.press('Enter');
		await expect.poll(focused).toBe('textarea.');
		await page.keyboard.type('Typed without a mouse');
		await page.keyboard.press('Enter');
		await expect.poll(() => logText(page)).toContain('Typed without a mouse');
		await expect.poll(async () => (await conversations(token)).length).toBeGreaterThan(0);
		await page.keyboard.press('Escape');
		await page.locator('parley-widget .panel').waitFor({ state: 'hidden' });
		expect(await focused()).toBe('button.launcher');
	});
});
