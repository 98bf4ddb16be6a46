// Accessibility with axe-core (test/browser/axe.ts): no serious or critical violation on the inbox, a
// conversation (with formatted text and a link), the widget open in both themes, a builder and the settings.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { seriousViolations } from './axe';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts, conversations, kw, putSettings, sendFromWidget, widgetPage } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

/** The page has no serious or critical violation (the message lists them, with their elements). */
async function expectAccessible(page: Page, where: string) {
	const violations = await seriousViolations(page);
	expect(violations, `${where}: ${JSON.stringify(violations, null, 1)}`).toEqual([]);
}

describe('axe-core finds no serious or critical violation', () => {
	it('on the widget open (light and dark), the inbox, a conversation, a builder and the settings', async () => {
		const { workspaceId, token } = workspace(142);
		// The widget open, in the light theme and then forced dark, with a team reply formatted and linked.
		const visitor = await newContext();
		const { page: site } = await widgetPage(visitor, workspaceId);
		await kw(site, 'open');
		await sendFromWidget(site, 'Is *this* on sale? https://shop.example/item/42');
		await expect.poll(async () => (await conversations(token)).length, { timeout: 15_000 }).toBeGreaterThan(0);
		const [first] = await conversations(token);
		const conversationId = first?.id ?? '';
		const reply = await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId,
			text: 'Yes, _until Friday_: see https://shop.example/sale or write to sales@shop.example',
		});
		expect(reply.status).toBe(201);
		await site.locator('parley-widget .msg.team a[href="https://shop.example/sale"]').waitFor({ timeout: 15_000 });
		await expectAccessible(site, 'the widget open, light');
		await putSettings(token, { theme: 'dark' });
		await site.reload();
		await kw(site, 'open');
		await site.locator('parley-widget .panel[data-theme="dark"] .msg.team').first().waitFor({ timeout: 15_000 });
		await expectAccessible(site, 'the widget open, dark');

		const page = await consolePage(context, 142);
		await page.getByRole('listbox', { name: 'Conversations' }).getByRole('option').first().waitFor();
		await expectAccessible(page, 'the inbox');
		await page.goto(`${baseUrl}/console/conversations/${conversationId}`);
		await page.locator('.message .text a[href="https://shop.example/sale"]').waitFor();
		await expectAccessible(page, 'a conversation');
		await page.keyboard.press('?');
		await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
		await expectAccessible(page, 'the shortcuts overlay');
		await page.keyboard.press('Escape');

		const made = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Front desk',
			trigger: { kind: 'manual' },
			definition: {
				start: 'menu',
				steps: [
					{ id: 'menu', type: 'send_message', text: 'Sales or support?', buttons: ['Sales', 'Support'], next: 'done' },
					{ id: 'done', type: 'end', message: 'Thanks!' },
				],
			},
		});
		expect(made.status, JSON.stringify(made.body)).toBe(201);
		await page.goto(`${baseUrl}/console/bots/${(made.body as { id: string }).id}`);
		await page.locator('.react-flow__node[data-id="menu"]').waitFor();
		await expectAccessible(page, 'the bot builder');

		await page.goto(`${baseUrl}/console/settings/widget`);
		await page.getByRole('group', { name: 'Chat theme' }).waitFor();
		await expectAccessible(page, 'Settings › Widget');
	});
});
