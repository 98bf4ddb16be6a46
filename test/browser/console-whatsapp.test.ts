// WhatsApp in the operator console, in a real Chromium against `wrangler dev` and the fake Graph API: the
// issue's "done when" (a visitor on /demo with a gclid taps the WhatsApp bubble, the test plays Meta with the
// pre-filled text, an operator sees the conversation with its WhatsApp label and the gclid origin, and the
// reply reaches the Graph API); the 24-hour window once closed (the notice and a template sent); and
// Settings › WhatsApp showing the verify token once.
import type { BrowserContext } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import {
	connectNumber,
	fakeGraph,
	postWebhook,
	randomWaId,
	sentMessages,
	textMessage,
	uniquePhoneNumberId,
	webhookPayload,
} from './whatsapp-page';
import { baseUrl, browserContexts, putSettings } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

/** Parley writes the recipient in E.164 (`+<wa_id>`), as Meta takes it. */
const toCustomer = (to: string, waId: string) => to.replace(/^\+/, '') === waId;

/** The conversation of the workspace whose last message contains `text`, once there is one. */
async function conversationWith(token: string, text: string): Promise<string> {
	let id = '';
	await expect
		.poll(
			async () => {
				const { body } = await api(baseUrl, token, 'GET', '/v3/conversations?channel=whatsapp&include=lastMessage');
				const rows = (body as { data: { id: string; lastMessage: { text: string } | null }[] }).data;
				id = rows.find((c) => c.lastMessage?.text.includes(text))?.id ?? '';
				return id;
			},
			{ timeout: 15_000 },
		)
		.not.toBe('');
	return id;
}

describe('a visitor who taps the WhatsApp bubble on /demo', () => {
	it('is answered in the console: the WhatsApp label, the gclid origin, the reply through the Graph API, its ticks', {
		timeout: 120_000,
	}, async () => {
		// Workspace 1 is the one /demo embeds: its bubble and number are undone at the end for the other files.
		const { token } = workspace(1);
		const before = await api(baseUrl, token, 'GET', '/v3/widget/settings');
		const number = await connectNumber(token);
		await putSettings(token, {
			messagingBubble: { enabled: true, phoneNumber: '+15550783881', prefilledMessage: 'Hi! I saw your ad' },
		});
		try {
			await context.route('https://wa.me/**', (route) => route.fulfill({ contentType: 'text/html', body: 'app' }));
			const shop = await context.newPage();
			await shop.goto(`${baseUrl}/demo?gclid=TESTGCLID`);
			await shop.locator('parley-widget .launcher').click();
			const link = shop.locator('parley-widget .menu a');
			await link.waitFor();
			const href = (await link.getAttribute('href')) ?? '';
			const prefilled = new URL(href).searchParams.get('text') ?? '';
			const ref = /\(ref ([0-9A-Z]{8})\)$/.exec(prefilled)?.[1];
			expect(ref, href).toBeDefined();
			const [app] = await Promise.all([context.waitForEvent('page'), link.click()]);
			await app.close();
			await expect.poll(async () => (await api(baseUrl, token, 'GET', `/v3/widget/handoffs/${ref}`)).status).toBe(200);

			// Meta: the customer sends the pre-filled text from WhatsApp.
			const waId = randomWaId();
			const name = `Lucia ${ref}`;
			expect(
				await postWebhook(number, webhookPayload(number, { messages: [textMessage(waId, prefilled)], name })),
			).toBe(200);

			const page = await consolePage(context, 1);
			const row = page.getByRole('option').filter({ hasText: name });
			await row.waitFor();
			await expect.poll(() => row.getByTestId('channel-whatsapp').textContent()).toBe('WhatsApp');
			await row.click();
			await expect.poll(() => page.getByTestId('conversation-subject').textContent()).toBe('WhatsApp');
			await expect.poll(() => page.getByTestId('conversation-origin').textContent()).toContain('gclid TESTGCLID');
			// The customer wrote a moment ago: the window has (almost) its 24 hours.
			await expect.poll(() => page.getByTestId('whatsapp-window').textContent()).toMatch(/closes in 23 h 5\d min/);

			const reply = `Hello Lucia, thanks for writing (${ref}). Your order ships today.`;
			await page.locator('#composer').fill(reply);
			await page.locator('#composer').press('Enter');
			await expect
				.poll(async () => (await sentMessages(number.phoneNumberId)).find((m) => toCustomer(m.to, waId)), {
					timeout: 20_000,
				})
				.toMatchObject({ type: 'text', body: { text: { body: reply } } });
			const requests = await fakeGraph<{ requests: { body: { text?: { body: string } } }[] }>(
				`/__fake/requests?path=${encodeURIComponent(`/${number.phoneNumberId}/messages`)}`,
			);
			expect(requests.requests.map((r) => r.body.text?.body)).toContain(reply);

			// One tick once Meta took it; two coloured once Meta says the customer read it.
			const state = page.locator('.message.team').filter({ hasText: reply }).getByTestId('whatsapp-state');
			await expect.poll(() => state.getAttribute('data-status'), { timeout: 30_000 }).toBe('sent');
			expect(await state.locator('.ticks').textContent()).toBe('✓');
			const wamid = (await sentMessages(number.phoneNumberId)).find((m) => toCustomer(m.to, waId))?.wamid;
			const read = { id: wamid, status: 'read', timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: waId };
			expect(await postWebhook(number, webhookPayload(number, { statuses: [read] }))).toBe(200);
			await expect.poll(() => state.getAttribute('data-status'), { timeout: 30_000 }).toBe('read');
			expect(await state.locator('.ticks').textContent()).toBe('✓✓');
			if (process.env.UPDATE_SCREENSHOTS) {
				await page.setViewportSize({ width: 1280, height: 760 });
				await page.screenshot({ path: 'docs/screenshots/console-whatsapp-conversation.png' });
			}

			// The report counts the hand-off, and that it arrived in the inbox (the shared demo workspace has others).
			const errors: string[] = [];
			page.on('pageerror', (e) => errors.push(String(e)));
			page.on('console', (m) => errors.push(m.text()));
			await page.getByRole('link', { name: 'Reports' }).click();
			const arrived = page.locator('dl.tiles > div').filter({ hasText: 'Handoffs that reached the inbox' });
			await arrived.waitFor().catch(async () => {
				throw new Error(`no tile of hand-offs that reached the inbox: ${errors.join('\n')} ${page.url()}`);
			});
			await expect
				.poll(async () => Number(await arrived.locator('data').getAttribute('value')))
				.toBeGreaterThanOrEqual(1);
		} finally {
			const bubble = (before.body as { messagingBubble?: unknown }).messagingBubble;
			await putSettings(token, { messagingBubble: bubble ?? { enabled: false } });
			await api(baseUrl, token, 'DELETE', `/v3/whatsapp/numbers/${number.id}`);
		}
	});
});

describe('a WhatsApp conversation whose window has closed', () => {
	it('replaces the reply with the notice and a template picker, and the template reaches the Graph API', {
		timeout: 90_000,
	}, async () => {
		const { token } = workspace(116);
		const number = await connectNumber(token);
		await fakeGraph('/__fake/templates', {
			businessAccountId: number.businessAccountId,
			phoneNumberId: number.phoneNumberId,
			templates: [
				{
					name: 'order_update',
					language: 'en_US',
					components: [{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.' }],
				},
			],
		});
		const waId = randomWaId();
		// Meta's timestamp says the customer wrote 25 hours ago (a late delivery).
		const late = textMessage(waId, 'Is my order on its way?', 25 * 3600);
		expect(await postWebhook(number, webhookPayload(number, { messages: [late], name: 'Marta Reis' }))).toBe(200);
		await conversationWith(token, 'Is my order on its way?');

		const page = await consolePage(context, 116);
		await page.getByRole('option').filter({ hasText: 'Marta Reis' }).click();
		// Parley received it just now, but the window counts from Meta's timestamp, as the room's does: it closed
		// an hour ago, and only templates are offered.
		const notice = page.getByTestId('whatsapp-window');
		await expect.poll(() => notice.textContent()).toContain('The 24-hour WhatsApp window is closed');
		expect(await page.getByRole('radio', { name: 'Reply to the visitor' }).count()).toBe(0);

		await page.getByLabel('Template', { exact: true }).selectOption('order_update|en_US');
		await expect
			.poll(() => page.getByTestId('template-preview').textContent())
			.toContain('Hi {{1}}, your order {{2}} has shipped.');
		await page.getByLabel('Variable 1').fill('{{ contact.name }}');
		await page.getByLabel('Variable 2').fill('A-1042');
		await expect
			.poll(() => page.getByTestId('template-preview').textContent())
			.toContain('Hi {{ contact.name }}, your order A-1042 has shipped.');
		await page.getByRole('button', { name: 'Send template' }).click();
		await expect
			.poll(async () => (await sentMessages(number.phoneNumberId)).find((m) => toCustomer(m.to, waId)), {
				timeout: 20_000,
			})
			.toMatchObject({
				type: 'template',
				body: {
					template: {
						name: 'order_update',
						components: [{ type: 'body', parameters: [{ text: 'Marta Reis' }, { text: 'A-1042' }] }],
					},
				},
			});
		const template = page.locator('.message.team').filter({ hasText: 'Hi Marta Reis, your order A-1042 has shipped.' });
		await template.waitFor();

		// Meta could not deliver it: the warning with Meta's reason, in words.
		const wamid = (await sentMessages(number.phoneNumberId)).find((m) => toCustomer(m.to, waId))?.wamid;
		const failed = {
			id: wamid,
			status: 'failed',
			timestamp: String(Math.floor(Date.now() / 1000)),
			recipient_id: waId,
			errors: [{ code: 131026, title: 'Message undeliverable' }],
		};
		expect(await postWebhook(number, webhookPayload(number, { statuses: [failed] }))).toBe(200);
		const state = template.getByTestId('whatsapp-state');
		await expect.poll(() => state.getAttribute('data-status'), { timeout: 20_000 }).toBe('failed');
		expect(await state.textContent()).toContain('Not delivered: Message undeliverable');
	});
});

describe('a conversation from a Click-to-WhatsApp ad', () => {
	it('shows the ad as its origin, with the link to it', async () => {
		// Workspace 116 again (the window test's): a second number, as a workspace may have several.
		const { token } = workspace(116);
		const number = await connectNumber(token);
		const waId = randomWaId();
		const message = {
			...textMessage(waId, 'Do you ship to Porto?'),
			referral: {
				source_url: 'https://fb.me/3cr4Wqqkv',
				source_id: '120226305854810726',
				source_type: 'ad',
				headline: 'Summer sale: 30% off',
				body: 'Chat with us on WhatsApp',
				media_type: 'image',
				ctwa_clid:
					'ARAkLkA8rmlFeiCktEJQ-QTwRiyYHAFDLMNDBH0CD3qpjd0HR4irJ6LEkR7JwFF4XvnO2E4Nx0-eM-GABDLOPaOdRMv-_zfUQ2a',
			},
		};
		expect(await postWebhook(number, webhookPayload(number, { messages: [message], name: 'Rui Costa' }))).toBe(200);
		await conversationWith(token, 'Do you ship to Porto?');
		const page = await consolePage(context, 116);
		await page.getByRole('option').filter({ hasText: 'Rui Costa' }).click();
		const origin = page.getByTestId('conversation-origin');
		await expect.poll(() => origin.textContent()).toContain('WhatsApp ad: Summer sale: 30% off');
		expect(await origin.getByRole('link', { name: 'Ad' }).getAttribute('href')).toBe('https://fb.me/3cr4Wqqkv');
		// The contact's first touch is the ad too.
		const panel = page.locator('aside.contact-panel');
		if ((await panel.count()) === 0) await page.getByRole('button', { name: 'Contact' }).click();
		await expect.poll(() => panel.textContent()).toContain('First visit: WhatsApp ad: Summer sale: 30% off');
	});
});

describe('Settings › WhatsApp', () => {
	it('connects a number and shows its callback URL and verify token once', async () => {
		const phoneNumberId = uniquePhoneNumberId();
		const page = await consolePage(context, 117);
		await page.getByRole('link', { name: 'WhatsApp', exact: true }).click();
		await expect.poll(() => page.getByText('No number connected yet.').count()).toBe(1);
		await page.getByLabel('Phone number id').fill(phoneNumberId);
		await page.getByLabel('Business account id').fill('102290129340398');
		await page.getByLabel('Access token').fill(`EAAG${'x'.repeat(40)}`);
		await page.getByLabel('App secret').fill('4f6c0123456789abcdef0123456789ab');
		await page.getByLabel('Display number').fill('+1 555 078 3881');
		await page.getByRole('button', { name: 'Connect', exact: true }).click();

		const setup = page.getByTestId('whatsapp-setup');
		await expect.poll(() => setup.textContent()).toContain('Meta App Dashboard › WhatsApp › Configuration');
		const url = (await page.getByTestId('whatsapp-webhook-url').textContent()) ?? '';
		expect(url).toMatch(new RegExp(`^${baseUrl}/whatsapp/wan_\\w+/webhook$`));
		const verifyToken = (await page.getByTestId('whatsapp-verify-token').textContent()) ?? '';
		expect(verifyToken.length).toBeGreaterThan(16);
		// The token is what Meta's verification request must carry.
		const check = await fetch(
			`${url}?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(verifyToken)}&hub.challenge=1158201444`,
		);
		expect(await check.text()).toBe('1158201444');
		await expect.poll(() => page.getByTestId('whatsapp-number').textContent()).toContain('+1 555 078 3881');

		// Shown once: gone when dismissed, and nowhere after a reload; the secrets never come back.
		await page.getByRole('button', { name: 'Done' }).click();
		expect(await setup.count()).toBe(0);
		await page.reload();
		await page.getByTestId('whatsapp-number').waitFor();
		expect(await page.content()).not.toContain(verifyToken);
		expect(await page.content()).not.toContain('4f6c0123456789abcdef0123456789ab');

		// The same number again: the API's 409 at its field.
		await page.getByLabel('Phone number id').fill(phoneNumberId);
		await page.getByLabel('Business account id').fill('102290129340398');
		await page.getByLabel('Access token').fill(`EAAG${'y'.repeat(40)}`);
		await page.getByLabel('App secret').fill('4f6c0123456789abcdef0123456789ac');
		await page.getByRole('button', { name: 'Connect', exact: true }).click();
		const field = page.getByLabel('Phone number id');
		await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');

		// A new token and secret replace the stored ones, never shown; a new verify token is shown once.
		await page.getByRole('button', { name: 'Edit +1 555 078 3881' }).click();
		const edit = page.locator('.whatsapp-numbers form');
		await edit.getByText('Advanced').click();
		await edit.getByLabel('Access token').fill(`EAAG${'z'.repeat(40)}`);
		await edit.getByLabel('Messages per second').fill('40');
		await edit.getByRole('button', { name: 'Save changes' }).click();
		await expect.poll(() => page.getByTestId('whatsapp-number').textContent()).toContain('40 messages a second');
		page.once('dialog', (dialog) => void dialog.accept());
		await page.getByRole('button', { name: 'New verify token' }).click();
		const rotated = page.getByTestId('whatsapp-verify-token');
		await expect.poll(() => rotated.textContent()).not.toBe(verifyToken);
		const fresh = (await rotated.textContent()) ?? '';
		const old = await fetch(
			`${url}?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(verifyToken)}&hub.challenge=7`,
		);
		expect(old.status).toBe(401);
		const now = await fetch(`${url}?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(fresh)}&hub.challenge=7`);
		expect(await now.text()).toBe('7');
		await page.getByRole('button', { name: 'Done' }).click();

		// Disconnecting asks first.
		page.once('dialog', (dialog) => void dialog.accept());
		await page.getByRole('button', { name: 'Disconnect +1 555 078 3881' }).click();
		await expect.poll(() => page.getByTestId('whatsapp-number').count()).toBe(0);
	});
});
