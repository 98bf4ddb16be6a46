// `npm run screenshots`: the README's pictures of the console's automation pages (the rule editor, the reports,
// the bot and scenario builders), taken in the tests' Chromium. Skipped in `npm test`.
import { describe, expect, it } from 'vitest';
import { leadBot } from '../unit/bot-fixtures';
import { api, HOST_ORIGIN, workspace } from './harness';
import { screenshotBrowser, shot, signedIn } from './screenshot-kit';
import { baseUrl } from './widget-page';

const browser = screenshotBrowser();

describe.runIf(process.env.UPDATE_SCREENSHOTS)('screenshots of the automation pages for the README', () => {
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
		const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
		const page = await signedIn(context, email, password);
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

		const context = await browser().newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
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
		const context = await browser().newContext({ viewport: { width: 1440, height: 900 } });
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
		const context = await browser().newContext({ viewport: { width: 1440, height: 900 } });
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
