// `npm run screenshots`: the README's picture of the inbox search: hits over messages and contacts with their
// matches marked, and the conversation opened at the matching message. Skipped in `npm test`.
import { describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import { screenshotBrowser, shot, signedIn } from './screenshot-kit';
import { baseUrl } from './widget-page';

const browser = screenshotBrowser();

describe.runIf(process.env.UPDATE_SCREENSHOTS)('screenshot of the inbox search', () => {
	it('a search for "refund" with its hits marked, one opened at its message', { timeout: 120_000 }, async () => {
		// Workspace 132 is this file's alone.
		const { token, email, password } = workspace(132);
		const start = async (name: string, first: string, replies: string[]) => {
			const made = await api(baseUrl, token, 'POST', '/v3/conversations', {
				contact: { name, email: `${name.split(' ')[0]?.toLowerCase()}@example.com` },
				message: { text: first, author: 'contact' },
			});
			expect(made.status).toBe(201);
			const id = (made.body as { id: string }).id;
			for (const text of replies) await api(baseUrl, token, 'POST', '/v3/messages', { conversationId: id, text });
			return id;
		};
		await start('Refundo Shop', 'Hello, do you ship to Lisbon?', ['We do, within 3 days.']);
		await start('Marta Reis', 'The tent arrived torn. Can I get a refund?', [
			'So sorry, Marta. A refund of the full price is on its way: 3 to 5 working days.',
			'Thanks!',
		]);
		const opened = await start('Jon Park', 'I was charged twice for order #5120, please refund one', [
			'You are right: the second charge is refunded today.',
		]);
		await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId: opened,
			text: 'Checked with billing: refund id RF-2291',
			private: true,
		});

		const context = await browser().newContext({ viewport: { width: 1280, height: 860 } });
		const page = await signedIn(context, email, password);
		await page.getByRole('searchbox', { name: 'Search conversations' }).fill('refund');
		await page.getByTestId('search-hit').filter({ hasText: 'Jon Park' }).first().waitFor();
		await page.getByTestId('search-hit').filter({ hasText: 'charged twice' }).click();
		await page.getByTestId('found-message').waitFor();
		await shot(page, 'console-search');
		await context.close();
	});
});
