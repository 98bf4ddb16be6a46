// `npm run screenshots` (UPDATE_SCREENSHOTS=1): the README's pictures of the widget on the demo site, taken in
// the same Chromium as the tests. Skipped in `npm test`, where pictures would only churn the repository.
import { describe, expect, it } from 'vitest';
import { demoPage } from '../../src/domain/widget/demo-page';
import { api, hostPage, workspace } from './harness';
import { screenshotBrowser, shot, signedIn } from './screenshot-kit';
import { baseUrl, conversations, putSettings, sendFromWidget, waitReady } from './widget-page';

const browser = screenshotBrowser();

async function demo(workspaceId: string, options: { width?: number; height?: number; at?: string } = {}) {
	const context = await browser().newContext({
		viewport: { width: options.width ?? 1200, height: options.height ?? 760 },
	});
	if (options.at) await context.clock.setFixedTime(new Date(options.at));
	const html = demoPage(baseUrl, workspaceId).replace(
		'</body>',
		"<script>kw('on','ready',function(){window.__ready=true})</script></body>",
	);
	const page = await hostPage(context, { html });
	await waitReady(page);
	return page;
}

describe.runIf(process.env.UPDATE_SCREENSHOTS)('screenshots for the README', () => {
	it('the closed launcher, the open chat, a closed conversation, the bubble choice, offline mode and a phone', async () => {
		const { workspaceId, token } = workspace(47);
		await putSettings(token, {
			displayName: 'Acme Outdoor',
			ctaText: 'Questions about sizes? Ask us',
			welcomeMessage: 'Hi! I’m Marta from Acme. How can we help?',
			primaryColor: '#2d6a4f',
		});
		const closed = await demo(workspaceId);
		await shot(closed, 'launcher-closed');

		await closed.locator('parley-widget .launcher').click();
		await sendFromWidget(closed, 'Hi! Does the Ridge 2 tent fit two people with packs inside?');
		await expect.poll(async () => (await conversations(token)).length).toBeGreaterThan(0);
		const id = (await conversations(token))[0]?.id as string;
		await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId: id,
			text: 'It does: the two vestibules take a *40 L pack* each. Want the _footprint_ too?',
		});
		await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId: id,
			text: 'Shall I add it to your cart?',
			interactive: { type: 'buttons', buttons: [{ label: 'Yes, add it' }, { label: 'No, thanks' }] },
		});
		await closed.locator('parley-widget .choices button').first().waitFor();
		await shot(closed, 'chat-open');

		// The team closed it; the visitor comes back to it: writing reopens it.
		await api(baseUrl, token, 'PATCH', `/v3/conversations/${id}`, { status: 'closed' });
		await closed.reload();
		await waitReady(closed);
		await closed.locator('parley-widget .launcher').click();
		await closed.locator('parley-widget header button[aria-label="Your conversations"]').click();
		await closed.locator('parley-widget .list li').nth(1).locator('button').click();
		await closed.locator('parley-widget .note-box').waitFor();
		await shot(closed, 'closed-conversation');

		await putSettings(token, {
			messagingBubble: { enabled: true, phoneNumber: '+5511999998888', prefilledMessage: 'Hi! I have a question' },
		});
		const bubble = await demo(workspaceId);
		await bubble.locator('parley-widget .launcher').click();
		await bubble.locator('parley-widget .menu').waitFor();
		await shot(bubble, 'bubble-choice');

		await putSettings(token, {
			messagingBubble: { enabled: false },
			businessHours: {
				enabled: true,
				timeZone: 'Europe/Lisbon',
				weekly: {
					mon: [{ start: '09:00', end: '18:00' }],
					tue: [{ start: '09:00', end: '18:00' }],
					wed: [{ start: '09:00', end: '18:00' }],
					thu: [{ start: '09:00', end: '18:00' }],
					fri: [{ start: '09:00', end: '18:00' }],
					sat: [],
					sun: [],
				},
				holidays: [],
			},
		});
		// A Saturday: a new visitor sees the offline invitation.
		const offline = await demo(workspaceId, { at: '2026-11-21T15:00:00Z' });
		await offline.locator('parley-widget .launcher').click();
		await offline.locator('parley-widget input[name=email]').waitFor();
		await shot(offline, 'offline');

		await putSettings(token, { businessHours: { enabled: false } });
		const phone = await demo(workspaceId, { width: 390, height: 760 });
		await phone.locator('parley-widget .launcher').click();
		await phone.locator('parley-widget .composer textarea').waitFor();
		await shot(phone, 'mobile');
	});

	it('a bot asking its questions', async () => {
		const { workspaceId, token } = workspace(58);
		await putSettings(token, { displayName: 'Acme Outdoor', primaryColor: '#2d6a4f' });
		const created = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Shop assistant',
			trigger: { kind: 'new_conversation' },
			definition: {
				start: 'hi',
				steps: [
					{ id: 'hi', type: 'send_message', text: 'Hi! I’m the *Acme* assistant.', next: 'email' },
					{
						id: 'email',
						type: 'data_entry',
						prompt: 'What’s your e-mail, so we can send the quote?',
						input: 'email',
						variable: 'email',
						next: 'what',
					},
					{
						id: 'what',
						type: 'data_entry',
						prompt: 'Thanks! What are you shopping for?',
						input: 'buttons',
						variable: 'what',
						choices: [{ label: 'Tents' }, { label: 'Stoves' }, { label: 'Backpacks' }],
						next: 'bye',
					},
					{ id: 'bye', type: 'transfer', message: 'Great, a person will be right with you.' },
				],
			},
		});
		const botId = (created.body as { id: string }).id;
		await api(baseUrl, token, 'POST', `/v3/bots/${botId}/publish`);
		const page = await demo(workspaceId);
		await page.locator('parley-widget .launcher').click();
		await sendFromWidget(page, 'Hi, I need a quote for a group trip');
		const email = page.locator('parley-widget .composer input[type=email]');
		await email.waitFor();
		await email.fill('ana@example.com');
		await email.press('Enter');
		await page.locator('parley-widget .choices button').first().waitFor();
		await shot(page, 'bot');
	});

	it('the operator console: the inbox with a conversation open, Settings › API and the deals board', {
		timeout: 180_000,
	}, async () => {
		const { workspaceId, token, email, password } = workspace(48);
		const visitor = await demo(workspaceId);
		await visitor.locator('parley-widget .launcher').click();
		await sendFromWidget(visitor, 'Hi! Does the Ridge 2 tent fit two people with packs inside?');
		await expect.poll(async () => (await conversations(token)).length).toBeGreaterThan(0);
		const id = (await conversations(token))[0]?.id as string;
		await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId: id,
			text: 'It does: the two vestibules take a 40 L pack each. Want the footprint too?',
		});
		await sendFromWidget(visitor, 'Yes please, in green.');
		const conversation = (await api(baseUrl, token, 'GET', `/v3/conversations/${id}`)).body as { contactId: string };
		await api(baseUrl, token, 'PATCH', `/v3/contacts/${conversation.contactId}`, {
			name: 'Marta Ribeiro',
			email: 'marta@example.com',
		});
		await api(baseUrl, token, 'PUT', `/v3/conversations/${id}/tags/tents`);
		await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId: id,
			text: 'Returning customer: the footprint ships free with the tent.',
			private: true,
		});
		await api(baseUrl, token, 'PUT', `/v3/contacts/${conversation.contactId}/tags/returning`);
		const context = await browser().newContext({ viewport: { width: 1440, height: 860 } });
		const page = await signedIn(context, email, password);
		await page.getByRole('listbox', { name: 'Conversations' }).getByRole('option').first().click();
		await expect.poll(() => page.locator('.messages').textContent()).toContain('Yes please, in green.');
		await page.getByLabel('Reply', { exact: true }).fill('Green it is: adding the footprint to your cart now.');
		await shot(page, 'console-inbox');

		// The same conversation on a phone, in the dark.
		const phone = await browser().newContext({ viewport: { width: 390, height: 800 }, colorScheme: 'dark' });
		const small = await phone.newPage();
		await small.goto(`${baseUrl}/console/`);
		await small.getByLabel('E-mail').fill(email);
		await small.getByLabel('Password').fill(password);
		await small.getByRole('button', { name: 'Sign in' }).click();
		await small.goto(`${baseUrl}/console/conversations/${id}`);
		await expect.poll(() => small.locator('.messages').textContent()).toContain('Yes please, in green.');
		await shot(small, 'console-mobile-dark');
		await phone.close();
		await page.getByRole('link', { name: 'API' }).click();
		// The API log is written off the requests' path (a Queue batch a few seconds later).
		await expect
			.poll(
				async () => {
					await page.reload();
					await page.getByRole('heading', { name: 'API log' }).waitFor();
					// The rows come after the heading, once the log's own request has answered.
					await page.locator('tbody tr').first().waitFor();
					return page.locator('tbody tr').count();
				},
				{ timeout: 30_000, interval: 2_000 },
			)
			.toBeGreaterThan(3);
		await shot(page, 'console-api');

		const funnel = (
			await api(baseUrl, token, 'POST', '/v3/funnels', {
				name: 'Group trips',
				stages: ['New', 'Quote sent', 'Negotiation', 'Booked'],
			})
		).body as { id: string };
		const deals: [string, string, number][] = [
			['Scouts troop 14: 12 tents', 'New', 480_000],
			['Alpine club spring trip', 'Quote sent', 1_250_000],
			['Ridge 2 x 4 for Marta', 'Quote sent', 190_000],
			['School camp, 60 sleeping bags', 'Negotiation', 720_000],
			['Trail runners stoves', 'Booked', 86_000],
		];
		for (const [name, stage, value] of deals)
			await api(baseUrl, token, 'POST', '/v3/deals', {
				funnel: funnel.id,
				stage,
				name,
				value,
				currency: 'EUR',
				contactId: conversation.contactId,
			});
		await page.getByRole('link', { name: 'Deals' }).click();
		await page.getByRole('article', { name: 'Trail runners stoves' }).waitFor();
		await shot(page, 'console-deals');
	});

	it('the operator console: Settings › Widget with the live preview', async () => {
		const { token, email, password } = workspace(74);
		await putSettings(token, {
			displayName: 'Acme Outdoor',
			primaryColor: '#2d6a4f',
			welcomeMessage: 'Hi! Questions about gear or sizes? We usually answer within minutes.',
			ctaText: 'Questions about sizes? Ask us',
			messagingBubble: { enabled: true, phoneNumber: '+5511999998888', prefilledMessage: 'Hi Acme!' },
		});
		const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
		const page = await signedIn(context, email, password);
		await page.getByRole('link', { name: 'Widget' }).click();
		const frame = page.frameLocator('iframe[title="Preview of the widget"]');
		await frame.locator('parley-widget .launcher').waitFor();
		// An unsaved edit, which the preview already shows.
		await page.getByLabel('Primary color', { exact: true }).fill('#c2410c');
		await page.getByRole('button', { name: 'Open the chat' }).click();
		await frame.locator('parley-widget .composer textarea').waitFor();
		await shot(page, 'console-settings-widget');
	});
});
