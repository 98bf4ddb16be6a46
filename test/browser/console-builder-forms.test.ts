// The builders' forms and the rule editor tried as a new operator types: a step renamed while typing on loses
// no key, deals are placed by picking the workspace's funnels and stages, a question shows only the fields of
// its kind, a notify step names the member ticked, a decision and the simulator speak in words, and Enter in a rule's field never sends the rule.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { addStep, type Bot, node, panel, read } from './builder-page';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext({ viewport: { width: 1400, height: 1000 } });
});

async function openBot(n: number, definition: unknown): Promise<{ page: Page; id: string; token: string }> {
	const { token } = workspace(n);
	const made = await api(baseUrl, token, 'POST', '/v3/bots', {
		name: 'Forms',
		trigger: { kind: 'manual' },
		definition,
	});
	expect(made.status, JSON.stringify(made.body)).toBe(201);
	const id = (made.body as { id: string }).id;
	const page = await consolePage(context, n);
	page.setDefaultTimeout(15_000);
	await page.goto(`${baseUrl}/console/bots/${id}`);
	await node(page, (definition as { start: string }).start).waitFor();
	return { page, id, token };
}

async function saveDraft(page: Page): Promise<void> {
	await page.getByRole('button', { name: 'Save', exact: true }).click();
	await page
		.getByRole('status')
		.filter({ hasText: /^Saved$/ })
		.waitFor();
}

describe('the step form', () => {
	it('keeps every key typed after a step is renamed, and the links follow the new id', async () => {
		const { page, id, token } = await openBot(84, {
			start: 'ask',
			steps: [
				{
					id: 'ask',
					type: 'data_entry',
					prompt: 'Your order number?',
					input: 'text',
					variable: 'order',
					next: 'route',
				},
				{
					id: 'route',
					type: 'decision',
					branches: [{ condition: { all: [{ fact: 'answer', operator: 'eq', value: '42' }] }, next: 'bye' }],
					default: 'bye',
				},
				{ id: 'bye', type: 'end', message: 'Thanks!' },
			],
		});
		const stepId = panel(page).getByLabel('Step id');
		// Renamed, then straight on with a click in the message: the rename lands on the blur.
		await node(page, 'bye').click();
		await stepId.fill('goodbye');
		await panel(page).getByLabel('Message', { exact: true }).click();
		await page.keyboard.press('Control+a');
		await page.keyboard.type('See you soon.');
		await node(page, 'goodbye').waitFor();
		expect(await panel(page).getByLabel('Message', { exact: true }).inputValue()).toBe('See you soon.');

		// Renamed, then Tab to the next field and on typing.
		await node(page, 'ask').click();
		await stepId.fill('ask-order');
		await page.keyboard.press('Tab');
		await page.keyboard.type('Order');
		await node(page, 'ask-order').waitFor();
		expect(await panel(page).getByLabel('Title', { exact: true }).inputValue()).toBe('Order');

		// A condition's value, typed after the decision's rename.
		await node(page, 'route').click();
		await stepId.fill('check');
		const value = panel(page).getByLabel('Value (Condition 1)');
		await value.click();
		await page.keyboard.press('Control+a');
		await page.keyboard.type('43');
		await node(page, 'check').waitFor();
		expect(await value.inputValue()).toBe('43');

		await saveDraft(page);
		const bot = await read<Bot>(token, `/v3/bots/${id}`);
		expect(bot.draft).toMatchObject({
			start: 'ask-order',
			steps: [
				{
					id: 'ask-order',
					title: 'Order',
					type: 'data_entry',
					prompt: 'Your order number?',
					input: 'text',
					variable: 'order',
					next: 'check',
				},
				{
					id: 'check',
					type: 'decision',
					branches: [{ condition: { all: [{ fact: 'answer', operator: 'eq', value: '43' }] }, next: 'goodbye' }],
					default: 'goodbye',
				},
				{ id: 'goodbye', type: 'end', message: 'See you soon.' },
			],
		});
	});

	it("places a deal by picking the workspace's funnels and then that funnel's stages", async () => {
		const { token } = workspace(85);
		const funnel = async (name: string, stages: string[]) => {
			const made = await api(baseUrl, token, 'POST', '/v3/funnels', { name, stages });
			expect(made.status, JSON.stringify(made.body)).toBe(201);
			return made.body as { id: string; stages: Array<{ id: string; name: string }> };
		};
		const sales = await funnel('Sales', ['New', 'Proposal', 'Won']);
		const contracts = await funnel('Contracts', ['Trial', 'Signed']);
		const { page, id } = await openBot(85, {
			start: 'hello',
			steps: [{ id: 'hello', type: 'send_message', text: 'Hello!' }],
		});
		await node(page, 'hello').click();
		await addStep(page, 'create_deal', 'deal');
		const funnelPicker = panel(page).getByLabel('Funnel', { exact: true });
		const stagePicker = panel(page).getByLabel('Stage', { exact: true });
		const labels = (select: typeof funnelPicker) =>
			select.locator('option').evaluateAll((options) => options.map((o) => o.textContent));
		expect(await labels(funnelPicker)).toEqual(expect.arrayContaining(['Sales', 'Contracts']));
		await funnelPicker.selectOption({ label: 'Contracts' });
		// The stages offered are the chosen funnel's, and no other's.
		await expect.poll(() => labels(stagePicker)).toContain('Signed');
		expect(await labels(stagePicker)).not.toContain('Proposal');
		await stagePicker.selectOption({ label: 'Signed' });
		await panel(page).getByLabel('Name', { exact: true }).fill('{{ contact.name }}');

		await addStep(page, 'update_deal', 'move');
		await panel(page).getByRole('group', { name: 'Funnels' }).getByLabel('Sales').check();
		await panel(page).getByLabel('Stage', { exact: true }).selectOption({ label: 'Won' });

		await saveDraft(page);
		const steps = (await read<Bot>(token, `/v3/bots/${id}`)).draft.steps;
		const signed = contracts.stages.find((s) => s.name === 'Signed')?.id;
		const won = sales.stages.find((s) => s.name === 'Won')?.id;
		expect(steps.find((s) => s.id === 'deal')).toMatchObject({ funnel: contracts.id, stage: signed });
		expect(steps.find((s) => s.id === 'move')).toMatchObject({ funnels: [sales.id], stage: won });
	});

	it('shows a question only the fields of its kind: the reason prompt for a rating, not for an e-mail', async () => {
		const { page } = await openBot(86, {
			start: 'rate',
			steps: [{ id: 'rate', type: 'data_entry', prompt: 'Your e-mail?', input: 'email', variable: 'email' }],
		});
		await node(page, 'rate').click();
		const input = panel(page).getByLabel('Input', { exact: true });
		await input.waitFor();
		expect(await panel(page).getByLabel('Ask reason').count()).toBe(0);
		expect(await panel(page).getByLabel('Reason prompt').count()).toBe(0);
		expect(await panel(page).getByRole('button', { name: 'Add choice' }).count()).toBe(0);
		await input.selectOption('rating');
		await panel(page).getByLabel('Ask reason').check();
		await panel(page).getByLabel('Reason prompt').fill('What could we do better?');
		await input.selectOption('buttons');
		await panel(page).getByRole('button', { name: 'Add choice' }).waitFor();
		expect(await panel(page).getByLabel('Reason prompt').count()).toBe(0);
	});

	it('adds a notify step from the palette: its text and the one member ticked are what the draft keeps', async () => {
		const { token } = workspace(86);
		// A second member, so that ticking one box names one operator and not the whole team.
		const member = await api(baseUrl, token, 'POST', '/v3/team/members', {
			email: 'ada@e2e-86.local',
			name: 'Ada Lovelace',
			permissions: ['conversations:read'],
		});
		expect(member.status, JSON.stringify(member.body)).toBe(201);
		const ada = (member.body as { id: string }).id;
		const { page, id } = await openBot(86, {
			start: 'hello',
			steps: [
				{ id: 'hello', type: 'send_message', text: 'Hello!', next: 'bye' },
				{ id: 'bye', type: 'end', message: 'Someone will be with you.' },
			],
		});
		await node(page, 'hello').click();
		await addStep(page, 'notify', 'tell');
		expect(await panel(page).getByRole('heading', { name: 'Notify the team' }).count()).toBe(1);
		await panel(page).getByLabel('Text', { exact: true }).fill('{{ contact.name }} asked for a human');
		const whom = panel(page).getByRole('group', { name: /^Whom to notify/ });
		await whom.getByLabel('Ada Lovelace').check();
		await panel(page).getByLabel('Next', { exact: true }).selectOption('bye');
		// Linked in: `hello` leads to it now, and it on to `bye`.
		await node(page, 'hello').click();
		await panel(page).getByLabel('Next', { exact: true }).selectOption('tell');

		await saveDraft(page);
		const steps = (await read<Bot>(token, `/v3/bots/${id}`)).draft.steps;
		expect(steps.find((s) => s.id === 'hello')).toMatchObject({ next: 'tell' });
		expect(steps.find((s) => s.id === 'tell')).toEqual({
			id: 'tell',
			type: 'notify',
			text: '{{ contact.name }} asked for a human',
			operatorIds: [ada],
			next: 'bye',
		});
	});
});

describe('the canvas and the simulator', () => {
	it('labels a decision by its branch for people, and opens the simulation with no empty bubble', async () => {
		const { page } = await openBot(87, {
			start: 'welcome',
			steps: [
				{ id: 'welcome', type: 'send_message', text: 'Hi there!', typingSeconds: 2, next: 'ask' },
				{
					id: 'ask',
					type: 'data_entry',
					prompt: 'Sales or support?',
					input: 'buttons',
					variable: 'topic',
					choices: [{ label: 'Sales' }, { label: 'Support' }],
					next: 'route',
				},
				{
					id: 'route',
					type: 'decision',
					branches: [{ condition: { all: [{ fact: 'answer', operator: 'eq', value: 'Support' }] }, next: 'bye' }],
					default: 'sales',
				},
				{ id: 'sales', type: 'transfer', message: 'A salesperson is coming.' },
				{ id: 'bye', type: 'end', message: 'Our help center is at help.example.com.' },
			],
		});
		await page.getByRole('button', { name: 'Simulate' }).click();
		const transcript = page.getByRole('list', { name: 'Simulated conversation' });
		await expect.poll(() => transcript.textContent()).toContain('Sales or support?');
		const texts = await transcript.locator('li').allTextContents();
		expect(texts.length).toBeGreaterThan(0);
		for (const text of texts) expect(text.trim()).not.toBe('');
		expect(texts[0]).not.toContain('Hi there!'); // the typing pause comes first, said in words

		await panel(page).getByRole('button', { name: 'Support' }).click();
		const note = node(page, 'route').locator('.step-note');
		await expect.poll(() => note.textContent()).toBe('Branch 1: The last answer is Support');
		await panel(page).getByRole('button', { name: 'Restart' }).click();
		await panel(page).getByRole('button', { name: 'Sales' }).click();
		await expect.poll(() => note.textContent()).toBe('Otherwise');
	});
});

describe('the rule editor', () => {
	it('sends nothing when Enter is pressed in the tag or a name field of a rule or an assignment rule', async () => {
		const { token } = workspace(88);
		const page = await consolePage(context, 88);
		await page.getByRole('link', { name: 'Rules' }).click();
		await page.getByRole('link', { name: 'New rule' }).first().click();
		await page.getByRole('heading', { name: 'New rule', level: 1 }).waitFor();
		await page.getByLabel('Action 1', { exact: true }).selectOption({ label: 'Apply or remove a tag' });
		const tag = page.getByRole('listitem', { name: 'Action 1: Apply or remove a tag' }).getByLabel('Tag');
		await tag.fill('vip');
		await tag.press('Enter');
		const name = page.getByLabel('Name');
		await name.fill('Tag big accounts');
		await name.press('Enter');
		// Whatever Enter did, it had time to reach the API: nothing is there, and the form is still the new rule's.
		await page.waitForTimeout(1000);
		expect((await read<{ data: unknown[] }>(token, '/v3/automation-rules')).data).toEqual([]);
		expect(await page.getByRole('heading', { name: 'New rule', level: 1 }).count()).toBe(1);
		expect(await tag.inputValue()).toBe('vip');

		await page.getByRole('button', { name: 'Create rule' }).click();
		await page.getByRole('heading', { name: 'Execution log' }).waitFor();
		const rules = await read<{ data: Array<{ actions: unknown[] }> }>(token, '/v3/automation-rules');
		expect(rules.data.map((r) => r.actions)).toEqual([
			[{ type: 'apply_tag', tag: 'vip', remove: false, target: 'conversation' }],
		]);

		// An assignment rule's name, the same.
		await page.getByRole('link', { name: 'Assignment' }).click();
		await page.getByRole('button', { name: 'New assignment rule' }).click();
		const form = page.getByRole('form', { name: 'New assignment rule' });
		await form.getByLabel('Name').fill('Sales in turn');
		await form.getByLabel('Name').press('Enter');
		await page.waitForTimeout(1000);
		expect((await read<{ data: unknown[] }>(token, '/v3/assignment/rules')).data).toEqual([]);
		expect(await form.count()).toBe(1);
	});
});
