// `npm run screenshots`: the README's pictures of e-mail in the console: a conversation that came by mail, its
// quoted history folded, with the team's answer mailed back; and Settings › E-mail. Skipped in `npm test`.
import { describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import { customerMail, deliver } from './mail-page';
import { screenshotBrowser, shot, signedIn } from './screenshot-kit';
import { baseUrl } from './widget-page';

const browser = screenshotBrowser();

describe.runIf(process.env.UPDATE_SCREENSHOTS)('screenshots of e-mail in the console', () => {
	it('an e-mail conversation with its quote folded, and Settings › E-mail', { timeout: 120_000 }, async () => {
		// Workspace 111 is console-email.test.ts's: its first test finds its own conversation by subject.
		const { token, email, password } = workspace(111);
		const address = 'hello@acme-shop.example';
		await api(baseUrl, token, 'POST', '/v3/email/addresses', { address });
		await api(baseUrl, token, 'PUT', '/v3/email/settings', {
			senderName: 'Acme support',
			senderAddress: 'support@acme-shop.example',
		});
		const subject = 'Where is order #4411?';
		await deliver('ana.souza@example.com', address, customerMail('ana.souza@example.com', address, subject));
		let conversationId = '';
		await expect
			.poll(
				async () => {
					const { body } = await api(baseUrl, token, 'GET', '/v3/conversations?channel=email');
					const found = (body as { data: Array<{ id: string; subject: string | null }> }).data.find(
						(c) => c.subject === subject,
					);
					conversationId = found?.id ?? '';
					return conversationId;
				},
				{ timeout: 15_000 },
			)
			.not.toBe('');
		const reply = await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId,
			text: 'Hello Ana, sorry about that: the carrier lost track of it. A new parcel leaves today, tracking to follow.',
		});
		expect(reply.status).toBeLessThan(300);

		const context = await browser().newContext({ viewport: { width: 1280, height: 860 } });
		const page = await signedIn(context, email, password);
		await page.goto(`${baseUrl}/console/conversations/${conversationId}`);
		await page.getByRole('button', { name: 'Show quoted text' }).waitFor();
		// The local queue hands the reply to wrangler's simulated binding within seconds.
		await page.getByText('Sent by mail').waitFor({ timeout: 30_000 });
		await shot(page, 'console-email-conversation');

		await page.goto(`${baseUrl}/console/settings/email`);
		await page.getByTestId('sending-state').waitFor();
		await page.getByTestId('received-mail').first().waitFor();
		await shot(page, 'console-email-settings');
		await context.close();
	});
});
