// E-mail in the operator console, in a real Chromium against `wrangler dev`: a mail posted to the Worker's
// local e-mail endpoint (as Email Routing hands one over) becomes a conversation in the inbox, its message
// shows what the customer wrote with the quoted history folded, its formatted view runs no script and loads
// no remote image until asked; Settings › E-mail says why no mail goes out until a sender is saved, and shows
// an address another workspace has taken.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { customerMail, deliver, TRACKER } from './mail-page';
import { baseUrl, browserContexts } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

async function addInboundAddress(token: string, address: string) {
	return api(baseUrl, token, 'POST', '/v3/email/addresses', { address });
}

/** The workspace's e-mail conversations, newest first. */
async function emailConversations(token: string) {
	const { body } = await api(baseUrl, token, 'GET', '/v3/conversations?channel=email&status=open');
	return (body as { data: Array<{ id: string; subject: string | null }> }).data;
}

/** The formatted view's frame (sandboxed, srcdoc), once it is on the page. */
async function formattedFrame(page: Page) {
	const element = page.locator('.mail-html iframe');
	await element.waitFor();
	const frame = await element.contentFrame();
	await frame.locator('body').waitFor();
	return frame;
}

describe('an e-mail conversation', () => {
	it('is in the inbox with its subject; the quote is folded until asked; the formatted view runs nothing and loads no remote image until "Load images"', async () => {
		const { token } = workspace(111);
		const address = 'support@e2e-111.mail.example';
		expect((await addInboundAddress(token, address)).status).toBe(201);
		const subject = 'Order #4411 not delivered';
		await deliver('ana.souza@example.com', address, customerMail('ana.souza@example.com', address, subject));
		await expect
			.poll(async () => (await emailConversations(token)).map((c) => c.subject), { timeout: 15_000 })
			.toContain(subject);

		const page = await consolePage(context, 111);
		const row = page.getByRole('option').filter({ hasText: subject });
		await row.waitFor();
		await expect.poll(() => row.getByTestId('channel-email').textContent()).toBe('E-mail');
		await row.click();
		await expect.poll(() => page.getByTestId('conversation-subject').textContent()).toBe(`E-mail · ${subject}`);

		// What the customer wrote is the message; the history and the signature are folded away.
		const message = page.locator('.message').filter({ hasText: 'my order #4411 never arrived' });
		await message.waitFor();
		expect(await message.textContent()).not.toContain('has shipped');
		expect(await message.textContent()).not.toContain('Buyer at Example Ltd');
		const toggle = message.getByRole('button', { name: 'Show quoted text' });
		expect(await toggle.getAttribute('aria-expanded')).toBe('false');
		await toggle.click();
		const quote = message.locator('.mail-quote');
		await expect.poll(() => quote.textContent()).toContain('> Your order #4411 has shipped.');
		expect(await quote.textContent()).toContain('Buyer at Example Ltd');
		await message.getByRole('button', { name: 'Hide quoted text' }).click();
		expect(await quote.count()).toBe(0);

		// The formatted view: sanitized and sandboxed; the tracker has no src until the operator asks.
		await message.getByRole('button', { name: 'Formatted' }).click();
		let frame = await formattedFrame(page);
		await expect.poll(() => frame.locator('body').textContent()).toContain('my order #4411 never arrived');
		expect(await frame.locator('script').count()).toBe(0);
		expect(await frame.locator('[onclick]').count()).toBe(0);
		expect(await frame.locator(`img[src="${TRACKER}"]`).count()).toBe(0);
		expect(await frame.locator(`img[data-remote-src="${TRACKER}"]`).count()).toBe(1);
		// The quote is folded in the formatted view too.
		expect(await frame.locator('body').textContent()).not.toContain('has shipped');
		expect(await page.locator('.mail-html iframe').getAttribute('sandbox')).not.toContain('allow-scripts');
		expect(await page.title()).not.toBe('pwned');

		await message.getByRole('button', { name: 'Load images' }).click();
		frame = await formattedFrame(page);
		await expect.poll(() => frame.locator(`img[src="${TRACKER}"]`).count()).toBe(1);
		expect(await frame.locator('script').count()).toBe(0);

		// The original downloads as it was received.
		const [download] = await Promise.all([
			page.waitForEvent('download'),
			message.getByRole('link', { name: 'View original' }).click(),
		]);
		expect(download.suggestedFilename()).toMatch(/^inm_\w+\.eml$/);
	});
});

describe('Settings › E-mail', () => {
	it('says no mail goes out until a sender is saved, and saves one', async () => {
		const page = await consolePage(context, 112);
		await page.getByRole('link', { name: 'E-mail', exact: true }).click();
		const state = page.getByTestId('sending-state');
		await expect.poll(() => state.textContent()).toMatch(/^Mail is not sent: .*no sender set/i);
		await page.getByLabel('Sender name').fill('Acme support');
		await page.getByLabel('Sender address').fill('support@e2e-112.mail.example');
		await page.getByRole('button', { name: 'Save' }).click();
		await expect.poll(() => state.textContent()).toBe('Mail goes out from support@e2e-112.mail.example.');
		const { body } = await api(baseUrl, workspace(112).token, 'GET', '/v3/email/settings');
		expect(body).toMatchObject({ senderName: 'Acme support', senderAddress: 'support@e2e-112.mail.example' });
	});

	it('adds and removes an inbound address, and shows one another workspace has taken', async () => {
		const taken = 'sales@e2e-113.mail.example';
		expect((await addInboundAddress(workspace(114).token, taken)).status).toBe(201);
		const page = await consolePage(context, 113);
		await page.getByRole('link', { name: 'E-mail', exact: true }).click();
		const field = page.getByLabel('New address');
		await field.fill(taken);
		await page.getByRole('button', { name: 'Add address' }).click();
		await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('This address is taken');
		expect(await field.getAttribute('aria-invalid')).toBe('true');

		const mine = 'help@e2e-113.mail.example';
		await field.fill(mine);
		await page.getByRole('button', { name: 'Add address' }).click();
		const rows = page.getByTestId('inbound-address');
		await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining(mine)]);
		page.once('dialog', (dialog) => void dialog.accept());
		await page.getByRole('button', { name: `Remove ${mine}` }).click();
		await expect.poll(() => rows.count()).toBe(0);
	});
});
