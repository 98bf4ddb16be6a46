// `npm run screenshots` (UPDATE_SCREENSHOTS=1): the README's pictures of the widget on the demo site, taken in
// the same Chromium as the tests. Skipped in `npm test`, where pictures would only churn the repository.
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPage } from '../../src/domain/demo-page';
import { leadBot } from '../unit/bot-fixtures';
import { api, closeBrowser, HOST_ORIGIN, hostPage, launchBrowser, workspace } from './harness';
import { baseUrl, conversations, putSettings, sendFromWidget, waitReady } from './widget-page';

const DIR = 'docs/screenshots';
let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
	mkdirSync(DIR, { recursive: true });
});
afterAll(closeBrowser);

async function demo(workspaceId: string, options: { width?: number; height?: number; at?: string } = {}) {
	const context = await browser.newContext({
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

const shot = (page: Page, name: string) => page.screenshot({ path: `${DIR}/${name}.png` });

/** A console page of `context`, signed in, on the inbox. */
async function signedIn(context: BrowserContext, email: string, password: string): Promise<Page> {
	const page = await context.newPage();
	await page.goto(`${baseUrl}/console/`);
	await page.getByLabel('E-mail').fill(email);
	await page.getByLabel('Password').fill(password);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.getByRole('link', { name: 'Inbox' }).waitFor();
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
		const context = await browser.newContext({ viewport: { width: 1440, height: 860 } });
		const page = await context.newPage();
		await page.goto(`${baseUrl}/console/`);
		await page.getByLabel('E-mail').fill(email);
		await page.getByLabel('Password').fill(password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.getByRole('listbox', { name: 'Conversations' }).getByRole('option').first().click();
		await expect.poll(() => page.locator('.messages').textContent()).toContain('Yes please, in green.');
		await page.getByLabel('Reply', { exact: true }).fill('Green it is: adding the footprint to your cart now.');
		await shot(page, 'console-inbox');

		// The same conversation on a phone, in the dark.
		const phone = await browser.newContext({ viewport: { width: 390, height: 800 }, colorScheme: 'dark' });
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
		const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
		const page = await context.newPage();
		await page.goto(`${baseUrl}/console/`);
		await page.getByLabel('E-mail').fill(email);
		await page.getByLabel('Password').fill(password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.getByRole('link', { name: 'Widget' }).click();
		const frame = page.frameLocator('iframe[title="Preview of the widget"]');
		await frame.locator('parley-widget .launcher').waitFor();
		// An unsaved edit, which the preview already shows.
		await page.getByLabel('Primary color', { exact: true }).fill('#c2410c');
		await page.getByRole('button', { name: 'Open the chat' }).click();
		await frame.locator('parley-widget .composer textarea').waitFor();
		await shot(page, 'console-settings-widget');
	});

	it('the rule editor: a trigger, condition groups and ordered actions', async () => {
		const { token, email, password } = workspace(92);
		const group = (await api(baseUrl, token, 'POST', '/v3/team/groups', { name: 'Priority support' })).body as {
			id: string;
		};
		const rule = (
			await api(baseUrl, token, 'POST', '/v3/automation-rules', {
				name: 'VIP after-hours reply',
				priority: 10,
				trigger: { kind: 'message_outside_hours' },
				condition: {
					all: [
						{ fact: 'contact.tags', operator: 'contains', value: 'vip' },
						{
							any: [
								{ fact: 'vars.event.payload.message.text', operator: 'contains', value: 'urgent' },
								{ fact: 'contact.conversationCount', operator: 'gte', value: 3 },
							],
						},
					],
				},
				actions: [
					{
						type: 'send_message',
						text: 'Hi {{ contact.name }}, we are closed now, but a VIP specialist will call you first thing at 9:00.',
						buttons: ['Call me', 'E-mail is fine'],
					},
					{ type: 'apply_tag', tag: 'after-hours', remove: false, target: 'conversation' },
					{ type: 'assign', groupId: group.id },
				],
			})
		).body as { id: string };
		const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
		const page = await context.newPage();
		await page.goto(`${baseUrl}/console/`);
		await page.getByLabel('E-mail').fill(email);
		await page.getByLabel('Password').fill(password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.getByRole('link', { name: 'Inbox' }).waitFor();
		await page.goto(`${baseUrl}/console/rules/${rule.id}`);
		await page.getByRole('heading', { name: 'VIP after-hours reply', level: 1 }).waitFor();
		await page.getByRole('heading', { name: 'When' }).scrollIntoViewIfNeeded();
		await page.evaluate(() => document.getElementById('rule-when')?.scrollIntoView({ block: 'start' }));
		await shot(page, 'console-rule-editor');
	});

	it('the reports page: conversations by day and by origin, response times and a campaign', {
		timeout: 180_000,
	}, async () => {
		const { workspaceId, token, email, password, operatorId } = workspace(82);
		const headers = { 'Content-Type': 'application/json', Origin: HOST_ORIGIN };
		const widget = (path: string, body: unknown, session?: string) =>
			fetch(`${baseUrl}/widget/${workspaceId}${path}`, {
				method: 'POST',
				headers: session ? { ...headers, 'Parley-Session': session } : headers,
				body: JSON.stringify(body),
			});
		const origins: [number, Record<string, string>][] = [
			[11, { utmSource: 'google', utmMedium: 'cpc', utmCampaign: 'spring-tents', gclid: 'Cj0-a' }],
			[6, { utmSource: 'instagram', utmMedium: 'social', utmCampaign: 'spring-tents', fbclid: 'fb-a' }],
			[4, { utmSource: 'facebook', utmMedium: 'social', utmCampaign: 'trail-week', fbclid: 'fb-b' }],
			[5, { utmSource: 'newsletter', utmMedium: 'email', utmCampaign: 'trail-week' }],
			[8, {}],
		];
		const visitors: { session: string; conversation: string }[] = [];
		for (const [count, origin] of origins)
			for (let i = 0; i < count; i++) {
				const session = ((await (await widget('/sessions', { origin })).json()) as { sessionToken: string })
					.sessionToken;
				const started = await widget(
					'/conversations',
					{ message: { text: 'Is the Ridge 2 tent in stock?', clientMessageId: crypto.randomUUID() } },
					session,
				);
				visitors.push({
					session,
					conversation: ((await started.json()) as { conversation: { id: string } }).conversation.id,
				});
			}
		for (const [i, { session }] of visitors.slice(0, 5).entries())
			await widget('/handoffs', { ref: `7KQ2M9X${i}`, channel: 'whatsapp' }, session);
		const groups: string[] = [];
		for (const name of ['Sales', 'Support'])
			groups.push(
				(
					(await api(baseUrl, token, 'POST', '/v3/team/groups', { name, memberIds: [operatorId] })).body as {
						id: string;
					}
				).id,
			);
		for (const [i, channel] of ['whatsapp', 'whatsapp', 'email', 'email', 'api', 'whatsapp'].entries())
			await api(baseUrl, token, 'POST', '/v3/conversations', {
				contact: { name: `Customer ${i + 1}`, email: `customer-${i + 1}@example.com` },
				channel,
				groupId: groups[i % 2],
				message: { text: 'A question about my order', author: 'contact' },
			});
		for (const [i, { conversation }] of visitors.entries()) {
			if (i % 4 !== 3)
				await api(baseUrl, token, 'POST', '/v3/messages', { conversationId: conversation, text: 'Hi! Let me check.' });
			if (i % 3 === 0)
				await api(baseUrl, token, 'PATCH', `/v3/conversations/${conversation}`, {
					assigneeId: operatorId,
					groupId: groups[i % 2],
				});
			if (i % 2 === 0) await api(baseUrl, token, 'PATCH', `/v3/conversations/${conversation}`, { status: 'closed' });
		}
		const contactIds: string[] = [];
		for (const { conversation } of visitors.slice(0, 12))
			contactIds.push(
				((await api(baseUrl, token, 'GET', `/v3/conversations/${conversation}`)).body as { contactId: string })
					.contactId,
			);
		const campaign = (
			await api(baseUrl, token, 'POST', '/v3/campaigns', {
				name: 'Spring tents',
				template: 'Hi! Our spring tents are 20% off this week.',
				audience: { kind: 'contacts', contactIds },
			})
		).body as { id: string };
		await api(baseUrl, token, 'POST', `/v3/campaigns/${campaign.id}/send`, {});
		await expect
			.poll(
				async () =>
					((await api(baseUrl, token, 'GET', `/v3/campaigns/${campaign.id}`)).body as { status: string }).status,
				{
					timeout: 30_000,
				},
			)
			.toBe('sent');

		const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
		const page = await context.newPage();
		// The API dates a conversation when it is made, so a fixture made now all falls on today; for the
		// picture, the day series spreads the same totals over the month (every other figure is the API's).
		await page.route(/\/v3\/reports\/conversations(\?|$)/, async (route) => {
			// Read with the token (a replayed console request lacks the browser's own headers the session checks).
			const url = new URL(route.request().url());
			const report = (await api(baseUrl, token, 'GET', url.pathname + url.search)).body as {
				series: { date: string; conversations: number; closed: number; handoffs: number }[];
			};
			const spread = (total: number) => spreadOver(report.series.length, total);
			const sum = (key: 'conversations' | 'closed' | 'handoffs') => report.series.reduce((n, d) => n + d[key], 0);
			const [conversations, closed, handoffs] = [
				spread(sum('conversations')),
				spread(sum('closed')),
				spread(sum('handoffs')),
			];
			report.series = report.series.map((d, i) => ({
				date: d.date,
				conversations: conversations[i] ?? 0,
				closed: Math.min(closed[i] ?? 0, conversations[i] ?? 0),
				handoffs: handoffs[i] ?? 0,
			}));
			await route.fulfill({ json: report });
		});
		await page.goto(`${baseUrl}/console/`);
		await page.getByLabel('E-mail').fill(email);
		await page.getByLabel('Password').fill(password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.getByRole('link', { name: 'Inbox' }).waitFor();
		await page.goto(`${baseUrl}/console/reports?campaign=${campaign.id}`);
		await page.locator('.chart canvas').first().waitFor();
		await page.getByText('Results of Spring tents').first().waitFor();
		await shot(page, 'console-reports');
	});

	it("the bot builder: the lead-qualification bot on the canvas, a step's form, and the simulator beside it", async () => {
		const { token, email, password } = workspace(103);
		const made = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Lead qualification',
			trigger: { kind: 'new_conversation' },
			channels: ['widget'],
			definition: leadBot,
		});
		expect(made.status, JSON.stringify(made.body)).toBe(201);
		const id = (made.body as { id: string }).id;
		const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const page = await signedIn(context, email, password);
		await page.goto(`${baseUrl}/console/bots/${id}`);
		await page.locator('.react-flow__node[data-id="ask-email"]').click();
		await page.getByRole('button', { name: 'Tidy up' }).click();
		await page.waitForTimeout(400);
		// Close enough to read the first steps, as a builder works.
		await page.getByRole('button', { name: 'Zoom In' }).click();
		await page.getByRole('button', { name: 'Zoom In' }).click();
		await page.waitForTimeout(300);
		await shot(page, 'console-bot-builder');

		await page.getByRole('button', { name: 'Simulate' }).click();
		const answer = page.getByLabel('Answer as the visitor');
		for (const text of ['Ana', 'ana@example', 'ana@example.com', '529.982.247-25']) {
			await answer.fill(text);
			await answer.press('Enter');
			await page.waitForTimeout(400);
		}
		await page.locator('.builder-panel').getByRole('button', { name: '1-10' }).click();
		await page.locator('.step-node.trace-passed[data-step="small"]').waitFor();
		await shot(page, 'console-bot-simulator');
		await context.close();
	});

	it("the scenario builder: an order webhook's scenario after a test run", async () => {
		const { token, email, password } = workspace(104);
		const made = await api(baseUrl, token, 'POST', '/v3/scenarios', {
			name: 'Order paid → WhatsApp and CRM',
			trigger: { kind: 'webhook' },
			definition: {
				start: 'contact',
				steps: [
					{
						id: 'contact',
						type: 'create_contact',
						name: '{{ name }}',
						email: '{{ email }}',
						phone: '{{ phone }}',
						variable: 'contact',
						next: 'conversation',
						onError: 'failed',
					},
					{
						id: 'conversation',
						type: 'create_conversation',
						contact: '{{ contact.id }}',
						channel: 'api',
						message: 'Hi {{ name }}! Order {{ order }} is paid: we ship tomorrow.',
						variable: 'conversation',
						next: 'big',
					},
					{
						id: 'big',
						type: 'condition',
						branches: [{ condition: { fact: 'vars.total', operator: 'gte', value: 1000 }, next: 'deal' }],
						default: 'tag',
					},
					{
						id: 'deal',
						type: 'create_deal',
						contact: '{{ contact.id }}',
						funnel: 'Sales',
						stage: 'Won',
						name: 'Order {{ order }}',
						value: '{{ total }}',
						currency: 'BRL',
						next: 'tag',
						onError: 'tag',
					},
					{
						id: 'tag',
						type: 'apply_tag',
						tag: 'customer',
						target: 'contact',
						targetId: '{{ contact.id }}',
						next: 'notify',
					},
					{
						id: 'notify',
						type: 'http_request',
						method: 'POST',
						url: 'https://erp.example.com/orders/{{ order }}/paid',
						body: '{"contact": {{ contact.id | json }}}',
						next: 'done',
						onError: 'failed',
					},
					{ id: 'done', type: 'end', outcome: 'succeeded' },
					{ id: 'failed', type: 'end', outcome: 'failed', reason: 'order {{ order }} not processed' },
				],
			},
		});
		expect(made.status, JSON.stringify(made.body)).toBe(201);
		const id = (made.body as { id: string }).id;
		const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const page = await signedIn(context, email, password);
		await page.goto(`${baseUrl}/console/scenarios/${id}`);
		await page.getByRole('button', { name: 'Test run' }).click();
		await page
			.getByLabel('Sample payload (JSON)')
			.fill('{"name":"Ana Souza","email":"ana@example.com","phone":"+5511999990000","order":"1042","total":1890}');
		await page.getByRole('button', { name: 'Run the test' }).click();
		await page.locator('.step-node.trace-passed[data-step="done"]').waitFor();
		await shot(page, 'console-scenario-builder');
		await context.close();
	});
});

/** `total` spread over `days` in a weekly rhythm (fewer at weekends), whole numbers that add up to `total`. */
function spreadOver(days: number, total: number): number[] {
	const weights = Array.from({ length: days }, (_, i) => (i % 7 >= 5 ? 0.5 : 1) * (1 + 0.35 * Math.sin(i / 2.5)));
	const scale = total / weights.reduce((a, b) => a + b, 0);
	const counts = weights.map((w) => Math.floor(w * scale));
	let left = total - counts.reduce((a, b) => a + b, 0);
	const byRemainder = weights.map((w, i) => [w * scale - (counts[i] ?? 0), i] as const).sort((a, b) => b[0] - a[0]);
	for (const [, i] of byRemainder) {
		if (left-- <= 0) break;
		counts[i] = (counts[i] ?? 0) + 1;
	}
	return counts;
}
