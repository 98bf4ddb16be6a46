// `npm run screenshots`: the README's pictures of the automation pages in the states a person meets less often:
// a save refused because someone else changed the rule, a scenario paused by flood protection, and a message
// whose buttons each lead their own way. Skipped in `npm test`.
import { describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import { screenshotBrowser, shot, signedIn } from './screenshot-kit';
import { baseUrl } from './widget-page';

const browser = screenshotBrowser();

/** `path` called with `token`, its answer's body; a refused call fails the test with the API's reason. */
async function call(token: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
	const res = await api(baseUrl, token, method, path, body);
	expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
	return res.body as Record<string, unknown>;
}

describe.runIf(process.env.UPDATE_SCREENSHOTS)('screenshots of the automation pages in particular states', () => {
	it('the rule editor: a save refused because a colleague changed the rule since it was opened', async () => {
		const { token, email, password } = workspace(63);
		const rule = await call(token, 'POST', '/v3/automation-rules', {
			name: 'Out-of-hours reply',
			priority: 10,
			trigger: { kind: 'message_outside_hours' },
			actions: [
				{
					type: 'send_message',
					text: 'Thanks for writing, {{ contact.name | default: "there" }}! We are back Monday to Friday, 9:00–18:00, and will answer first thing.',
				},
				{ type: 'apply_tag', tag: 'after-hours', remove: false, target: 'conversation' },
			],
		});
		const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
		const page = await signedIn(context, email, password);
		await page.goto(`${baseUrl}/console/rules/${rule.id}`);
		await page.getByRole('heading', { name: 'Out-of-hours reply', level: 1 }).waitFor();

		// With the page open, a colleague raises the rule's priority through the API; then this admin edits the reply.
		await call(token, 'PATCH', `/v3/automation-rules/${rule.id}`, { priority: 20 });
		const message = page.getByRole('listitem', { name: /^Action 1/ }).getByLabel('Message', { exact: true });
		await message.fill(
			'Thanks for writing, {{ contact.name | default: "there" }}! We are back Monday to Friday, 9:00–18:00. Order questions: your tracking link is in the confirmation e-mail.',
		);
		await page.getByRole('button', { name: 'Save', exact: true }).click();
		await page.getByRole('alert').filter({ hasText: 'Changed by someone else since you opened it' }).waitFor();
		await page.evaluate(() => document.getElementById('rule-then')?.scrollIntoView({ block: 'start' }));
		await shot(page, 'console-changed-elsewhere');
		await context.close();
	});

	it('Automation › Scenarios: a scenario paused by flood protection, the admin told, the limit under the list', {
		timeout: 120_000,
	}, async () => {
		const { token, email, password } = workspace(70);
		const scenario = (name: string, definition: unknown, extra: Record<string, unknown> = {}) =>
			call(token, 'POST', '/v3/scenarios', { name, definition, ...extra });
		const lead = await scenario('Website form → new lead', {
			start: 'contact',
			steps: [
				{
					id: 'contact',
					type: 'create_contact',
					name: '{{ name }}',
					email: '{{ email }}',
					variable: 'contact',
					next: 'deal',
				},
				{
					id: 'deal',
					type: 'create_deal',
					contact: '{{ contact.id }}',
					funnel: 'Sales',
					stage: 'New',
					name: '{{ company }}',
					next: 'done',
				},
				{ id: 'done', type: 'end', outcome: 'succeeded' },
			],
		});
		await call(token, 'POST', `/v3/scenarios/${lead.id}/publish`);
		const sync = await scenario(
			'Nightly CRM contact sync',
			{
				start: 'fetch',
				steps: [
					{
						id: 'fetch',
						type: 'http_request',
						method: 'GET',
						url: 'https://crm.example.com/contacts/changed',
						next: 'done',
						onError: 'failed',
					},
					{ id: 'done', type: 'end', outcome: 'succeeded' },
					{ id: 'failed', type: 'end', outcome: 'failed', reason: 'the CRM did not answer' },
				],
			},
			{ trigger: { kind: 'schedule', cron: '0 2 * * *' } },
		);
		await call(token, 'POST', `/v3/scenarios/${sync.id}/publish`);
		await scenario(
			'Abandoned cart reminder',
			{
				start: 'contact',
				steps: [
					{ id: 'contact', type: 'create_contact', email: '{{ email }}', variable: 'contact', next: 'remind' },
					{
						id: 'remind',
						type: 'create_conversation',
						contact: '{{ contact.id }}',
						channel: 'api',
						message: 'You left {{ item }} in your cart: it is still there when you are ready.',
						next: 'done',
					},
					{ id: 'done', type: 'end', outcome: 'succeeded' },
				],
			},
			{ enabled: false },
		);
		// The one a shop's misconfigured retry will flood: it only keeps the order it was sent.
		const orders = await scenario('Order paid → thank-you message', {
			start: 'keep',
			steps: [
				{ id: 'keep', type: 'set_variables', values: { order: '{{ order }}' }, next: 'done' },
				{ id: 'done', type: 'end', outcome: 'succeeded' },
			],
		});
		await call(token, 'POST', `/v3/scenarios/${orders.id}/publish`);
		const hook = await call(token, 'POST', `/v3/scenarios/${orders.id}/webhooks`, { name: 'Shop', auth: 'open' });
		await call(token, 'PATCH', '/v3/automation-settings', { scenarioRunsPerMinute: 20 });

		const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
		const page = await signedIn(context, email, password);
		await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scenarios' }).click();
		await page.getByRole('link', { name: 'Order paid → thank-you message' }).waitFor();
		await page.getByText('Reconnecting… lists update again once back.').waitFor({ state: 'hidden' });
		// The shop sends the same order again and again until flood protection refuses it.
		let status = 0;
		for (let n = 1; n <= 40 && status !== 409; n++)
			status = (await api(baseUrl, null, 'POST', `/v3/workflows/webhook/${hook.id}`, { order: `1042-${n}` })).status;
		expect(status).toBe(409);
		await page.getByRole('alert').filter({ hasText: 'Order paid' }).waitFor({ timeout: 15_000 });
		const row = page.locator('.documents li').filter({ hasText: 'Order paid' });
		await row.getByText('Paused', { exact: true }).waitFor();
		await page.getByLabel('Runs one scenario may start in a minute').waitFor();
		await shot(page, 'console-scenario-paused');
		await context.close();
	});

	it('the bot builder: a menu whose buttons each have their own link, and the simulator offering them', async () => {
		const { token, email, password } = workspace(71);
		const bot = await call(token, 'POST', '/v3/bots', {
			name: 'Front desk',
			trigger: { kind: 'new_conversation' },
			channels: ['widget'],
			definition: {
				start: 'menu',
				steps: [
					{
						id: 'menu',
						type: 'send_message',
						text: 'Hi! I am the Trailhead assistant. What can we help you with today?',
						buttons: [
							{ label: 'Track order', next: 'order-number' },
							{ label: 'Returns', next: 'returns' },
							{ label: 'Other', next: 'handover' },
						],
						next: 'handover',
					},
					{
						id: 'handover',
						type: 'transfer',
						message: 'Connecting you with our support team: we usually answer within 5 minutes.',
					},
					{
						id: 'returns',
						type: 'end',
						message: 'Anything unused can come back within 30 days: start at trailhead.example/returns.',
					},
					{
						id: 'order-number',
						type: 'data_entry',
						prompt: 'What is your order number? It starts with TR, like TR-10482.',
						input: 'text',
						variable: 'order',
						validation: { pattern: '^TR-?\\d{4,6}$', message: 'It looks like TR-10482: TR and 4 to 6 digits.' },
						next: 'order-handover',
					},
					{
						id: 'order-handover',
						type: 'transfer',
						message: 'Thanks! A teammate is checking {{ order }} and will answer here in a few minutes.',
					},
				],
			},
		});
		const context = await browser().newContext({ viewport: { width: 1440, height: 900 } });
		const page = await signedIn(context, email, password);
		await page.goto(`${baseUrl}/console/bots/${bot.id}`);
		const menu = page.locator('.react-flow__node[data-id="menu"]');
		await menu.locator('[data-outlet="buttons.2.next"]').waitFor();
		await page.getByRole('button', { name: 'Tidy up' }).click();
		await page.waitForTimeout(400);
		// Tidy up puts the order branch on the right: swapped, the buttons' links run side by side, in their order.
		const box = async (id: string) => {
			const found = await page.locator(`.react-flow__node[data-id="${id}"]`).boundingBox();
			if (!found) throw new Error(`${id} is not on screen`);
			return found;
		};
		const [left, right, below] = [await box('handover'), await box('order-number'), await box('order-handover')];
		// Dragged until it is there (a drag moves a node a little less than the mouse), each one dropped where
		// nothing is, so no node lands on another.
		const moveTo = async (id: string, x: number, y: number) => {
			for (let tries = 0; tries < 4; tries++) {
				const at = await box(id);
				if (Math.abs(at.x - x) < 3 && Math.abs(at.y - y) < 3) return;
				await page.mouse.click(at.x + at.width / 2, at.y + 12);
				await page.mouse.down();
				await page.mouse.move(x + at.width / 2, y + 12, { steps: 8 });
				await page.mouse.up();
				await page.waitForTimeout(300);
			}
		};
		await moveTo('order-handover', left.x, below.y);
		await moveTo('handover', right.x, below.y);
		await moveTo('order-number', left.x, right.y);
		await moveTo('handover', right.x, left.y);
		await page.mouse.click(left.x + 10, below.y + below.height + 40);
		await page.getByRole('button', { name: 'Simulate' }).click();
		await page.locator('.builder-panel').getByRole('button', { name: 'Returns', exact: true }).waitFor();
		await page.waitForTimeout(300);
		await shot(page, 'console-bot-buttons');
		await context.close();
	});
});
