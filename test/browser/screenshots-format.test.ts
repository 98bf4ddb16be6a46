// `npm run screenshots` (UPDATE_SCREENSHOTS=1): the widget's dark theme with formatted messages on the demo
// site, and the console's `?` overlay of keyboard shortcuts. Skipped in `npm test`.
import { describe, expect, it } from 'vitest';
import { demoPage } from '../../src/domain/widget/demo-page';
import { api, hostPage, workspace } from './harness';
import { screenshotBrowser, shot, signedIn } from './screenshot-kit';
import { baseUrl, conversations, putSettings, sendFromWidget, waitReady } from './widget-page';

const browser = screenshotBrowser();

describe.runIf(process.env.UPDATE_SCREENSHOTS)('screenshots of the message format', () => {
	it("the widget's dark theme, and the console's keyboard shortcuts", { timeout: 120_000 }, async () => {
		const { workspaceId, token, email, password } = workspace(146);
		await putSettings(token, {
			displayName: 'Acme Outdoor',
			welcomeMessage: 'Hi! I’m Marta from Acme. How can we help?',
			primaryColor: '#2d6a4f',
			theme: 'auto',
		});
		// A visitor whose system is dark: `auto` follows it.
		const visitor = await browser().newContext({ viewport: { width: 1200, height: 760 }, colorScheme: 'dark' });
		const html = demoPage(baseUrl, workspaceId).replace(
			'</body>',
			"<script>kw('on','ready',function(){window.__ready=true})</script></body>",
		);
		const site = await hostPage(visitor, { html });
		await waitReady(site);
		await site.locator('parley-widget .launcher').click();
		await sendFromWidget(site, 'Is the *Ridge 2* tent waterproof?');
		await expect.poll(async () => (await conversations(token)).length).toBeGreaterThan(0);
		const id = (await conversations(token))[0]?.id as string;
		await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId: id,
			text: 'Yes: a *3,000 mm* flysheet, _seams taped_. The specs: https://acme-outdoor.example/ridge-2/specs',
		});
		await site.locator('parley-widget .msg.team a').waitFor();
		await shot(site, 'widget-dark');
		await visitor.close();

		const context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
		const page = await signedIn(context, email, password);
		await page.goto(`${baseUrl}/console/conversations/${id}`);
		await page.locator('.message .text a').waitFor();
		await page.keyboard.press('?');
		await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
		await shot(page, 'console-shortcuts');
		await context.close();
	});
});
