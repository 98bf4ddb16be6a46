// Versions and real runs on the builders' canvas in a real Chromium against `wrangler dev`: the draft compared
// with the published version, a roll back and an old version reopened; a scenario's run and a conversation's bot
// run drawn over the version each ran.
import type { BrowserContext } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Bot, node, panel, read } from './builder-page';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext({ viewport: { width: 1400, height: 1000 } });
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
		// It left the search by its not-found path, and only by it.
		expect(await page.locator('.react-flow__edge[data-id="find:onNotFound"]').getAttribute('class')).toContain(
			'traced',
		);
		expect(await page.locator('.react-flow__edge[data-id="find:next"]').getAttribute('class')).not.toContain('traced');
		await expect.poll(() => node(page, 'find').textContent()).toContain('not found');
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

describe('the builder in Portuguese', () => {
	it("names a step's type, its fields and its list's items in the browser's language", async () => {
		const { token } = workspace(107);
		const made = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Triagem',
			trigger: { kind: 'manual' },
			definition: {
				start: 'plano',
				steps: [
					{
						id: 'plano',
						type: 'data_entry',
						prompt: 'Qual plano?',
						input: 'buttons',
						variable: 'plano',
						choices: [{ label: 'Básico' }, { label: 'Pro' }],
						next: 'fim',
					},
					{ id: 'fim', type: 'end', message: 'Obrigado!' },
				],
			},
		});
		const id = (made.body as { id: string }).id;
		// Signed in in English (the helper's labels), then the same session in a Portuguese browser.
		await consolePage(context, 107);
		const portuguese = await newContext({
			viewport: { width: 1400, height: 1000 },
			locale: 'pt-BR',
			storageState: await context.storageState(),
		});
		const page = await portuguese.newPage();
		await page.goto(`${baseUrl}/console/bots/${id}`);
		await node(page, 'plano').click();
		await panel(page).getByRole('heading', { name: 'Coletar dado' }).waitFor();
		expect(await panel(page).getByLabel('Pergunta', { exact: true }).inputValue()).toBe('Qual plano?');
		await panel(page).getByRole('button', { name: 'Adicionar opção' }).waitFor();
		await panel(page).getByRole('button', { name: 'Remover Opção 2' }).waitFor();
		expect(await node(page, 'plano').textContent()).toContain('Básico');
	});
});
