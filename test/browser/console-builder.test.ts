// The bot and scenario builders in a real Chromium against `wrangler dev`: a lead-qualification bot drawn from
// scratch with the keyboard and the mouse, simulated, published and then run in the widget on a customer's page;
// a scenario made through the API opened, edited on the canvas, saved and compared with what the API returns; a
// problem the API finds shown on its node and field; a message's buttons, one handle each, linked and simulated.
import type { BrowserContext } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { addStep, type Bot, drag, node, panel, read } from './builder-page';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts, logText, sendFromWidget, widgetPage } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext({ viewport: { width: 1400, height: 1000 } });
});

describe('the bot builder', () => {
	it('builds the lead-qualification bot from scratch, simulates it, publishes it, and the widget runs it', async () => {
		const { token, workspaceId } = workspace(97);
		const page = await consolePage(context, 97);
		page.setDefaultTimeout(15_000);
		await page.getByRole('link', { name: 'Bots' }).click();
		await page.getByLabel('New bot').fill('Lead qualification');
		await page.getByRole('button', { name: 'Create' }).click();
		await page.getByRole('heading', { name: 'Lead qualification', level: 1 }).waitFor();

		// The first step is there; write the greeting with the keyboard.
		await node(page, 'welcome').click();
		await panel(page).getByLabel('Text', { exact: true }).fill('Hi! I am the *Acme* assistant.');

		await addStep(page, 'data_entry', 'ask-name');
		await panel(page).getByLabel('Prompt', { exact: true }).fill('What is your name?');
		await panel(page).getByLabel('Variable', { exact: true }).fill('name');

		await addStep(page, 'data_entry', 'ask-email');
		await panel(page).getByLabel('Prompt', { exact: true }).fill('Thanks {{ name }}! Your e-mail?');
		await panel(page).getByLabel('Input', { exact: true }).selectOption('email');
		await panel(page).getByLabel('Variable', { exact: true }).fill('email');
		await panel(page).getByRole('button', { name: 'Add validation' }).click();
		await panel(page).getByLabel('Message', { exact: true }).fill('That does not look like an e-mail.');

		await addStep(page, 'data_entry', 'ask-cpf');
		await panel(page).getByLabel('Prompt', { exact: true }).fill('Your CPF, for the quote?');
		await panel(page).getByLabel('Variable', { exact: true }).fill('cpf');
		await panel(page).getByRole('button', { name: 'Add validation' }).click();
		await panel(page).getByLabel('Format', { exact: true }).selectOption('cpf');
		await panel(page).getByLabel('Message', { exact: true }).fill('That CPF is not valid: 11 digits, please.');

		await addStep(page, 'data_entry', 'ask-size');
		await panel(page).getByLabel('Prompt', { exact: true }).fill('Team size?');
		await panel(page).getByLabel('Input', { exact: true }).selectOption('buttons');
		await panel(page).getByLabel('Variable', { exact: true }).fill('size');
		await panel(page).getByRole('button', { name: 'Add choice' }).click();
		await panel(page).getByLabel('Label', { exact: true }).first().fill('1-10');
		await panel(page).getByRole('button', { name: 'Add choice' }).click();
		await panel(page).getByLabel('Label', { exact: true }).nth(1).fill('11+');

		await addStep(page, 'transfer', 'handoff');
		await panel(page).getByLabel('Message', { exact: true }).fill('Connecting you to our sales team…');

		// A tag for small teams, reached by the first button: linked with the mouse.
		await node(page, 'ask-size').click();
		// Adding from a step whose `next` is taken links nothing: the new step stands alone until drawn.
		await addStep(page, 'apply_tag', 'smb');
		await panel(page).getByRole('textbox', { name: 'Tag', exact: true }).fill('smb');

		// Then a Decision on business hours (linked from the tag's open `next`), its condition in the kernel's form.
		await addStep(page, 'decision', 'hours');
		const condition = panel(page).getByRole('group', { name: 'Condition 1' });
		await condition.getByLabel('Fact (Condition 1)').selectOption({ label: 'Within business hours' });
		await condition.getByLabel('Operator (Condition 1)').selectOption({ label: 'is' });
		await condition.getByLabel('Value (Condition 1)').selectOption({ label: 'Yes' });
		await panel(page).getByLabel('Next', { exact: true }).selectOption('handoff');
		await addStep(page, 'end', 'later');
		await panel(page).getByLabel('Message', { exact: true }).fill('We are closed now: we will e-mail you first thing.');
		await node(page, 'hours').click();
		await panel(page).getByLabel('Default', { exact: true }).selectOption('later');
		await expect.poll(() => node(page, 'smb').locator('.step-node').getAttribute('class')).toContain('unreachable');
		await page.getByRole('button', { name: 'Tidy up' }).click();
		await page.waitForTimeout(400); // the fit's 200 ms animation
		await drag(page, 'ask-size', 'choices.0.next', 'smb');
		await expect.poll(() => node(page, 'smb').locator('.step-node').getAttribute('class')).not.toContain('unreachable');

		// Simulate the unsaved canvas: the path is drawn on it.
		await page.getByRole('button', { name: 'Simulate' }).click();
		const transcript = page.getByRole('list', { name: 'Simulated conversation' });
		await expect.poll(() => transcript.textContent()).toContain('What is your name?');
		const answer = page.getByLabel('Answer as the visitor');
		await answer.fill('Ana');
		await answer.press('Enter');
		await expect.poll(() => transcript.textContent()).toContain('Thanks Ana! Your e-mail?');
		await answer.fill('not-an-email');
		await answer.press('Enter');
		await expect.poll(() => transcript.textContent()).toContain('That does not look like an e-mail.');
		await answer.fill('ana@example.com');
		await answer.press('Enter');
		await expect.poll(() => transcript.textContent()).toContain('Your CPF, for the quote?');
		await answer.fill('123.456.789-00');
		await answer.press('Enter');
		await expect.poll(() => transcript.textContent()).toContain('That CPF is not valid: 11 digits, please.');
		await answer.fill('529.982.247-25');
		await answer.press('Enter');
		await panel(page).getByRole('button', { name: '1-10' }).click();
		await expect.poll(() => page.getByRole('status').filter({ hasText: 'Handed to a person' }).count()).toBe(1);
		for (const id of ['welcome', 'ask-name', 'ask-email', 'ask-cpf', 'ask-size', 'smb', 'hours', 'handoff']) {
			await expect.poll(() => node(page, id).locator('.step-node').getAttribute('class')).toContain('trace-passed');
		}
		expect(await node(page, 'later').locator('.step-node').getAttribute('class')).not.toContain('trace-');
		expect(await page.locator('.react-flow__edge.traced').count()).toBe(8);

		// Undo and redo walk the history of edits.
		await page.getByRole('button', { name: 'Undo' }).click();
		await expect.poll(() => node(page, 'smb').locator('.step-node').getAttribute('class')).toContain('unreachable');
		await page.getByRole('button', { name: 'Redo' }).click();
		await expect.poll(() => node(page, 'smb').locator('.step-node').getAttribute('class')).not.toContain('unreachable');

		// Turn it on, save and publish.
		await page.getByRole('button', { name: 'Settings' }).click();
		await panel(page).getByLabel('Enabled').check();
		await panel(page).getByRole('button', { name: 'Save settings' }).click();
		await panel(page).getByRole('status').filter({ hasText: 'Saved' }).waitFor();
		await page.getByRole('button', { name: 'Publish' }).click();
		await page.getByText('Live: version 1').waitFor();

		const [saved] = (await read<{ data: Bot[] }>(token, '/v3/bots')).data;
		expect(saved?.enabled).toBe(true);
		expect(saved?.publishedVersion).toBe(1);
		expect(saved?.draft.start).toBe('welcome');
		expect(saved?.draft.steps.find((s) => s.id === 'ask-cpf')).toMatchObject({
			validation: { format: 'cpf', message: 'That CPF is not valid: 11 digits, please.' },
			next: 'ask-size',
		});
		expect(saved?.draft.steps.find((s) => s.id === 'ask-size')).toMatchObject({
			input: 'buttons',
			variable: 'size',
			choices: [{ label: '1-10', next: 'smb' }, { label: '11+' }],
			next: 'handoff',
		});
		expect(saved?.draft.steps.find((s) => s.id === 'smb')).toMatchObject({
			type: 'apply_tag',
			tag: 'smb',
			next: 'hours',
		});
		expect(saved?.draft.steps.find((s) => s.id === 'hours')).toEqual({
			id: 'hours',
			type: 'decision',
			branches: [
				{ condition: { all: [{ fact: 'businessHours.open', operator: 'eq', value: true }] }, next: 'handoff' },
			],
			default: 'later',
		});

		// A visitor on the customer's page meets the published bot.
		const widget = await widgetPage(context, workspaceId);
		await widget.page.locator('parley-widget .launcher').click();
		await sendFromWidget(widget.page, 'Hello there');
		await expect.poll(() => logText(widget.page), { timeout: 15_000 }).toContain('What is your name?');
		await sendFromWidget(widget.page, 'Bruno');
		await expect.poll(() => logText(widget.page), { timeout: 15_000 }).toContain('Thanks Bruno! Your e-mail?');
	});

	it('draws a handle per button of a message, links one by the mouse, and simulates the choice', async () => {
		const { token } = workspace(95);
		const made = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Front desk',
			trigger: { kind: 'manual' },
			definition: {
				start: 'menu',
				steps: [
					{
						id: 'menu',
						type: 'send_message',
						text: 'Sales or support?',
						buttons: [{ label: 'Sales', next: 'sales' }, 'Support'],
						next: 'other',
					},
					{ id: 'sales', type: 'end', message: 'Sales it is.' },
					{ id: 'other', type: 'end', message: 'Tell us more.' },
				],
			},
		});
		expect(made.status, JSON.stringify(made.body)).toBe(201);
		const id = (made.body as { id: string }).id;
		const page = await consolePage(context, 95);
		await page.goto(`${baseUrl}/console/bots/${id}`);
		const outlet = (handle: string) => node(page, 'menu').locator(`[data-outlet="${handle}"]`);
		await expect.poll(() => outlet('buttons.0.next').textContent()).toBe('Sales');
		expect(await outlet('buttons.1.next').textContent()).toBe('Support');
		expect(await outlet('buttons.0.next').getAttribute('class')).not.toContain('open');
		expect(await outlet('buttons.1.next').getAttribute('class')).toContain('open');

		// The label-only button gets a link of its own: it is saved in full.
		await drag(page, 'menu', 'buttons.1.next', 'sales');
		await expect.poll(() => outlet('buttons.1.next').getAttribute('class')).not.toContain('open');
		await node(page, 'menu').click();
		expect(await panel(page).getByLabel('Label', { exact: true }).nth(1).inputValue()).toBe('Support');
		await page.getByRole('button', { name: 'Save', exact: true }).click();
		await expect
			.poll(async () => (await read<Bot>(token, `/v3/bots/${id}`)).draft.steps[0]?.buttons)
			.toEqual([
				{ label: 'Sales', next: 'sales' },
				{ label: 'Support', next: 'sales' },
			]);

		// The simulator shows the buttons and waits; a click follows that button's link.
		await page.getByRole('button', { name: 'Simulate' }).click();
		const transcript = page.getByRole('list', { name: 'Simulated conversation' });
		await expect.poll(() => transcript.textContent()).toContain('Sales or support?');
		const support = panel(page).getByRole('button', { name: 'Support', exact: true });
		await support.click();
		await expect.poll(() => transcript.textContent()).toContain('Sales it is.');
		expect(await transcript.textContent()).not.toContain('Tell us more.');
		await expect.poll(() => node(page, 'sales').locator('.step-node').getAttribute('class')).toContain('trace-passed');
	});

	it('shows a problem the API finds on its node and at its field', async () => {
		const { token } = workspace(98);
		const made = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Order status',
			trigger: { kind: 'manual' },
			definition: {
				start: 'ask',
				steps: [
					{
						id: 'ask',
						type: 'data_entry',
						prompt: 'Your order number?',
						input: 'text',
						variable: 'order',
						next: 'bye',
					},
					{ id: 'bye', type: 'end', message: 'Thanks!' },
				],
			},
		});
		expect(made.status).toBe(201);
		const id = (made.body as { id: string }).id;
		const page = await consolePage(context, 98);
		await page.goto(`${baseUrl}/console/bots/${id}`);
		await node(page, 'ask').click();
		await panel(page).getByRole('button', { name: 'Add validation' }).click();
		await panel(page).getByLabel('Pattern', { exact: true }).fill('(a+)+$');
		await page.getByRole('button', { name: 'Save', exact: true }).click();
		await expect.poll(() => node(page, 'ask').textContent()).toContain('1 problem(s)');
		const field = panel(page).getByLabel('Pattern', { exact: true });
		await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
		await expect.poll(() => panel(page).locator('.field-problem').textContent()).toMatch(/repeated group|backtrack/i);
		// Nothing was saved.
		const bot = await read<Bot>(token, `/v3/bots/${id}`);
		expect(bot.draft.steps[0]).not.toHaveProperty('validation');
	});

	it('removes a step with the Delete key as one step of history: one Undo brings it back with its links', async () => {
		const { token } = workspace(106);
		const definition = {
			start: 'ask',
			steps: [
				{
					id: 'ask',
					type: 'data_entry',
					prompt: 'Sales or support?',
					input: 'buttons',
					variable: 'topic',
					choices: [{ label: 'Sales', next: 'sales' }, { label: 'Support' }],
					next: 'route',
				},
				{
					id: 'route',
					type: 'decision',
					branches: [{ condition: { fact: 'answer', operator: 'eq', value: 'Support' }, next: 'bye' }],
					default: 'sales',
				},
				{ id: 'sales', type: 'transfer', message: 'A salesperson is coming.' },
				{ id: 'bye', type: 'end', message: 'Our help center is at help.example.com.' },
			],
		};
		const made = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Router',
			trigger: { kind: 'manual' },
			definition,
		});
		expect(made.status, JSON.stringify(made.body)).toBe(201);
		const id = (made.body as { id: string }).id;
		const page = await consolePage(context, 106);
		await page.goto(`${baseUrl}/console/bots/${id}`);
		await node(page, 'sales').click();
		// Held as a person holds a key: React Flow reads Delete as a key that is down during a render.
		await page.keyboard.down('Delete');
		await page.waitForTimeout(100);
		await page.keyboard.up('Delete');
		await node(page, 'sales').waitFor({ state: 'detached' });
		// The button's optional link to it is cleared; the decision's required default still names it: dangling,
		// and said so.
		const edge = (edgeId: string) => page.locator(`.react-flow__edge[data-id="${edgeId}"]`);
		await expect.poll(() => edge('ask:choices.0.next').count()).toBe(0);
		await expect.poll(() => node(page, 'route').textContent()).toContain('Links to a missing step');
		await page.getByText('link(s) lead to a step that does not exist').waitFor();
		await page.locator('.react-flow__pane').click();
		await page.keyboard.press('Control+z');
		await node(page, 'sales').waitFor();
		await expect.poll(() => node(page, 'route').textContent()).not.toContain('Links to a missing step');
		// Back exactly as it was, its links with it: the draft equals the saved one, so there is nothing to save.
		await expect.poll(() => edge('ask:choices.0.next').count()).toBe(1);
		expect(await edge('route:default').count()).toBe(1);
		await page.getByRole('status').filter({ hasText: 'All changes saved' }).waitFor();
		expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
	});
});

describe('the scenario builder', () => {
	it('opens a scenario made through the API, edits a step, saves it, and the API returns exactly the change', async () => {
		const { token } = workspace(99);
		const definition = {
			start: 'contact',
			steps: [
				{
					id: 'contact',
					type: 'create_contact',
					name: '{{ name }}',
					email: '{{ email }}',
					variable: 'contact',
					next: 'conversation',
					onError: 'failed',
				},
				{
					id: 'conversation',
					type: 'create_conversation',
					contact: '{{ contact.id }}',
					channel: 'api',
					message: 'Your order {{ order }} is confirmed.',
					variable: 'conversation',
					next: 'done',
				},
				{ id: 'done', type: 'end', outcome: 'succeeded' },
				{ id: 'failed', type: 'end', outcome: 'failed', reason: 'no contact' },
			],
		};
		const made = await api(baseUrl, token, 'POST', '/v3/scenarios', { name: 'Order to conversation', definition });
		expect(made.status, JSON.stringify(made.body)).toBe(201);
		const id = (made.body as { id: string }).id;
		const before = await read<{ draft: typeof definition }>(token, `/v3/scenarios/${id}`);

		const page = await consolePage(context, 99);
		await page.goto(`${baseUrl}/console/scenarios/${id}`);
		// Laid out: every step has a place, one below the other along the links.
		for (const step of definition.steps) await node(page, step.id).waitFor();
		const top = async (stepId: string) => (await node(page, stepId).boundingBox())?.y ?? 0;
		expect(await top('contact')).toBeLessThan(await top('conversation'));
		expect(await top('conversation')).toBeLessThan(await top('done'));

		await node(page, 'conversation').click();
		await panel(page)
			.getByLabel('Message', { exact: true })
			.fill('Order {{ order }} confirmed: we will write when it ships.');
		await page.getByRole('button', { name: 'Save', exact: true }).click();
		await page
			.getByRole('status')
			.filter({ hasText: /^Saved$/ })
			.waitFor();

		const expected = structuredClone(before.draft);
		(expected.steps[1] as { message: string }).message = 'Order {{ order }} confirmed: we will write when it ships.';
		await expect
			.poll(async () => (await read<{ draft: typeof definition }>(token, `/v3/scenarios/${id}`)).draft)
			.toEqual(expected);

		// The test run with a sample payload draws the steps it took.
		await page.getByRole('button', { name: 'Test run' }).click();
		await panel(page)
			.getByLabel('Sample payload (JSON)')
			.fill('{"name":"Ana","email":"ana@example.com","order":"1042"}');
		await panel(page).getByRole('button', { name: 'Run the test' }).click();
		await panel(page).getByRole('status').filter({ hasText: 'Succeeded' }).waitFor();
		for (const stepId of ['contact', 'conversation', 'done']) {
			await expect.poll(() => node(page, stepId).locator('.step-node').getAttribute('class')).toContain('trace-passed');
		}
		expect(await node(page, 'failed').locator('.step-node').getAttribute('class')).not.toContain('trace');
	});
});
