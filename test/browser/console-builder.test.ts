// The bot and scenario builders in a real Chromium against `wrangler dev`: a lead-qualification bot drawn from
// scratch with the keyboard and the mouse, simulated, published and then run in the widget on a customer's page;
// a scenario made through the API opened, edited on the canvas, saved and compared with what the API returns; a
// problem the API finds shown on its node and field.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts, logText, sendFromWidget, widgetPage } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext({ viewport: { width: 1400, height: 1000 } });
});

async function read<T>(token: string, path: string): Promise<T> {
	const { status, body } = await api(baseUrl, token, 'GET', path);
	expect(status, JSON.stringify(body)).toBe(200);
	return body as T;
}

const panel = (page: Page) => page.locator('.builder-panel');
const node = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);

/** Adds a step of `type` from the toolbar (linked from the selected step's open `next`) and renames it `id`. */
async function addStep(page: Page, type: string, id: string): Promise<void> {
	await page.getByRole('combobox', { name: 'Add a step…' }).selectOption(type);
	const field = panel(page).getByLabel('Step id');
	// The new step's form replaces the selected one's: its id is the type's (`data-entry-2`…) until renamed.
	await expect.poll(() => field.inputValue()).toMatch(new RegExp(`^${type.replace(/_/g, '-')}`));
	await node(page, await field.inputValue()).waitFor();
	await field.fill(id);
	await field.press('Enter');
	await node(page, id)
		.waitFor({ timeout: 10_000 })
		.catch(async (error) => {
			const ids = await page.locator('.react-flow__node').evaluateAll((ns) => ns.map((n) => n.dataset.id));
			throw new Error(`${error}: the canvas has ${ids.join(', ')}; the id field says ${await field.inputValue()}`);
		});
}

/** Draws a link with the mouse: from an outlet's handle of `from` to the top of `to`. */
async function drag(page: Page, from: string, outlet: string, to: string): Promise<void> {
	const handle = node(page, from).locator(`[data-outlet="${outlet}"] .react-flow__handle`);
	const target = node(page, to).locator('.react-flow__handle-top');
	const a = await handle.boundingBox();
	const b = await target.boundingBox();
	if (!a || !b) throw new Error('a handle is not on screen');
	await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
	await page.mouse.down();
	await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
	await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
	await page.mouse.up();
}

interface Bot {
	id: string;
	draft: { start: string; steps: Array<Record<string, unknown>> };
	publishedVersion: number | null;
	enabled: boolean;
}

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
		await panel(page).getByRole('button', { name: '1-10' }).click();
		await expect.poll(() => page.getByRole('status').filter({ hasText: 'Handed to a person' }).count()).toBe(1);
		for (const id of ['welcome', 'ask-name', 'ask-email', 'ask-size', 'smb', 'hours', 'handoff']) {
			await expect.poll(() => node(page, id).locator('.step-node').getAttribute('class')).toContain('trace-passed');
		}
		expect(await node(page, 'later').locator('.step-node').getAttribute('class')).not.toContain('trace-');
		expect(await page.locator('.react-flow__edge.traced').count()).toBe(7);

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
			.filter({ hasText: 'All changes saved' })
			.or(page.getByText('Saved'))
			.first()
			.waitFor();

		const after = await read<{ draft: typeof definition }>(token, `/v3/scenarios/${id}`);
		const expected = structuredClone(before.draft);
		(expected.steps[1] as { message: string }).message = 'Order {{ order }} confirmed: we will write when it ships.';
		expect(after.draft).toEqual(expected);

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

describe('versions and runs on the canvas', () => {
	const hello = (text: string) => ({
		start: 'hello',
		steps: [
			{ id: 'hello', type: 'send_message', text, next: 'bye' },
			{ id: 'bye', type: 'end', message: 'Bye!' },
		],
	});

	it('compares the draft with the published version, rolls back, and opens an old version to start again from it', async () => {
		const { token } = workspace(100);
		const made = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Greeter',
			trigger: { kind: 'manual' },
			definition: hello('Hello!'),
		});
		const id = (made.body as { id: string }).id;
		expect((await api(baseUrl, token, 'POST', `/v3/bots/${id}/publish`)).status).toBe(200);
		expect((await api(baseUrl, token, 'PATCH', `/v3/bots/${id}`, { definition: hello('Hi there!') })).status).toBe(200);
		expect((await api(baseUrl, token, 'POST', `/v3/bots/${id}/publish`)).status).toBe(200);

		const page = await consolePage(context, 100);
		await page.goto(`${baseUrl}/console/bots/${id}`);
		await page.getByText('Live: version 2').waitFor();
		await page.getByRole('button', { name: 'Versions' }).click();
		await panel(page).getByText('The draft is the published version.').waitFor();

		// An edit on the canvas shows as a change of that step's field.
		await page.getByRole('button', { name: 'Versions' }).click();
		await node(page, 'hello').click();
		await panel(page).getByLabel('Text', { exact: true }).fill('Good morning!');
		await page.getByRole('button', { name: 'Versions' }).click();
		const diff = panel(page).getByRole('list', { name: 'Draft compared with the published version' });
		await expect.poll(() => diff.textContent()).toBe('hello changed: text');

		// Roll back: version 1 is what new runs start with, the draft untouched.
		await panel(page).getByRole('button', { name: 'Roll back to v1' }).click();
		await expect.poll(async () => (await read<Bot>(token, `/v3/bots/${id}`)).publishedVersion).toBe(1);
		await page.getByText('Live: version 1').waitFor();

		// Version 1 opened on the canvas becomes the draft once saved.
		const v1 = panel(page).locator('.version-list li').filter({ hasText: 'v1' });
		await v1.getByRole('button', { name: 'Open on the canvas' }).click();
		await expect.poll(() => node(page, 'hello').textContent()).toContain('Hello!');
		await page.getByRole('button', { name: 'Save', exact: true }).click();
		const version1 = await read<{ definition: Bot['draft'] }>(token, `/v3/bots/${id}/versions/1`);
		await expect.poll(async () => (await read<Bot>(token, `/v3/bots/${id}`)).draft).toEqual(version1.definition);
	});

	it("opens a scenario's real run over the version it ran, with the steps it took", async () => {
		const { token } = workspace(101);
		const definition = {
			start: 'find',
			steps: [
				{
					id: 'find',
					type: 'find_contact',
					by: 'email',
					value: '{{ email }}',
					variable: 'contact',
					next: 'known',
					onNotFound: 'unknown',
				},
				{ id: 'known', type: 'end', outcome: 'succeeded' },
				{ id: 'unknown', type: 'end', outcome: 'failed', reason: 'no contact {{ email }}' },
			],
		};
		const made = await api(baseUrl, token, 'POST', '/v3/scenarios', { name: 'Lookup', definition });
		const id = (made.body as { id: string }).id;
		expect((await api(baseUrl, token, 'POST', `/v3/scenarios/${id}/publish`)).status).toBe(200);
		const started = await api(baseUrl, token, 'POST', `/v3/scenarios/${id}/runs`, { email: 'nobody@example.com' });
		expect(started.status, JSON.stringify(started.body)).toBeLessThan(300);
		const runId = (started.body as { runId: string }).runId;
		await expect
			.poll(async () => (await read<{ status: string }>(token, `/v3/scenarios/${id}/runs/${runId}`)).status, {
				timeout: 15_000,
			})
			.toBe('failed');

		const page = await consolePage(context, 101);
		await page.goto(`${baseUrl}/console/scenarios/${id}`);
		await page.getByRole('button', { name: 'Runs' }).click();
		await panel(page)
			.getByRole('button', { name: /Failed/ })
			.click();
		await page.getByText('A real run of version 1').waitFor();
		for (const stepId of ['find', 'unknown']) {
			await expect.poll(() => node(page, stepId).locator('.step-node').getAttribute('class')).toMatch(/trace-/);
		}
		expect(await node(page, 'known').locator('.step-node').getAttribute('class')).not.toMatch(/trace-/);
		await panel(page).getByRole('button', { name: 'Back to the draft' }).click();
		await page.getByRole('combobox', { name: 'Add a step…' }).waitFor();
		await expect.poll(() => node(page, 'find').locator('.step-node').getAttribute('class')).not.toMatch(/trace-/);
	});

	it("opens a conversation's bot run on its bot's canvas from the conversation", async () => {
		const { token } = workspace(102);
		const made = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Manual greeter',
			trigger: { kind: 'manual' },
			definition: {
				start: 'hello',
				steps: [
					{ id: 'hello', type: 'send_message', text: 'Hello!', next: 'ask' },
					{ id: 'ask', type: 'data_entry', prompt: 'Your e-mail?', input: 'email', variable: 'email', next: 'bye' },
					{ id: 'bye', type: 'end' },
				],
			},
		});
		const botId = (made.body as { id: string }).id;
		expect((await api(baseUrl, token, 'POST', `/v3/bots/${botId}/publish`)).status).toBe(200);
		const conversation = await api(baseUrl, token, 'POST', '/v3/conversations', {
			contact: { name: 'Rita Lima', email: 'rita@example.com' },
			message: { text: 'Hi' },
		});
		const conversationId = (conversation.body as { id: string }).id;
		const start = await api(baseUrl, token, 'POST', `/v3/conversations/${conversationId}/bot`, { botId });
		expect(start.status, JSON.stringify(start.body)).toBeLessThan(300);

		const page = await consolePage(context, 102);
		await page.goto(`${baseUrl}/console/conversations/${conversationId}`);
		await page.locator('details.bots summary').click();
		await page.getByRole('link', { name: 'Open on the canvas' }).click();
		await page.getByText('A real run of version 1').waitFor();
		await expect.poll(() => node(page, 'hello').locator('.step-node').getAttribute('class')).toContain('trace-passed');
		await expect.poll(() => node(page, 'ask').locator('.step-node').getAttribute('class')).toContain('trace-waiting');
		expect(await node(page, 'bye').locator('.step-node').getAttribute('class')).not.toMatch(/trace-/);
	});
});
