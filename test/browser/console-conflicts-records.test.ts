// Two editors of one deal, one contact, one assignment rule and one workspace's widget settings, in a real
// Chromium against `wrangler dev`: both open it, both change it, the first saves; the second's save is refused
// (the console sent the ETag it loaded as If-Match) with "Changed by someone else since you opened it", nothing
// of it is stored, and Reload brings the first one's change into its editor. A deal dragged on a board that no
// longer shows it as it is stays where it was, and the board says so and redraws.
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

const CHANGED = 'Changed by someone else since you opened it';

async function created<T>(token: string, path: string, body: unknown): Promise<T> {
	const answer = await api(baseUrl, token, 'POST', path, body);
	expect(answer.status, JSON.stringify(answer.body)).toBe(201);
	return answer.body as T;
}

async function read<T>(token: string, path: string): Promise<T> {
	const { status, body } = await api(baseUrl, token, 'GET', path);
	expect(status).toBe(200);
	return body as T;
}

/** Two pages of one console session (workspace `n`'s admin), both at `path`. */
async function twoEditors(n: number, path: string): Promise<[Page, Page]> {
	const first = await consolePage(context, n);
	const second = await context.newPage();
	for (const page of [first, second]) await page.goto(`${baseUrl}/console${path}`);
	return [first, second];
}

/** An in-place field of `panel` opened, given `value` and saved. */
async function editInPlace(panel: Locator, label: string, value: string): Promise<void> {
	await panel.getByRole('button', { name: label, exact: true }).click();
	await panel.getByLabel(label, { exact: true }).fill(value);
	await panel.getByRole('button', { name: 'Save', exact: true }).click();
}

async function dealWithFunnel(token: string, name: string) {
	const funnel = await created<{ id: string }>(token, '/v3/funnels', {
		name: `Sales ${Date.now()}`,
		stages: ['Lead', 'Proposal', 'Won'],
	});
	const deal = await created<{ id: string }>(token, '/v3/deals', { funnel: funnel.id, stage: 'Lead', name });
	return { funnel, deal };
}

describe('two editors of one record', () => {
	it('a deal: the second save is refused, stores nothing, and Reload shows the first change', async () => {
		const { token } = workspace(96);
		const { deal } = await dealWithFunnel(token, 'Tents for 40');
		const dealName = async () => (await read<{ name: string }>(token, `/v3/deals/${deal.id}`)).name;
		const [first, second] = await twoEditors(96, `/deals?deal=${deal.id}`);
		const [one, two] = [first, second].map((page) => page.getByRole('complementary', { name: 'Deal' }));
		for (const panel of [one, two]) await panel?.getByRole('heading', { name: 'Tents for 40' }).waitFor();

		await editInPlace(one as Locator, 'Name', 'Tents for 40 (first)');
		await expect.poll(dealName).toBe('Tents for 40 (first)');
		await editInPlace(two as Locator, 'Name', 'Tents for 40 (second)');
		const notice = (two as Locator).getByRole('alert').filter({ hasText: CHANGED });
		await notice.waitFor();
		expect(await dealName()).toBe('Tents for 40 (first)');

		await notice.getByRole('button', { name: 'Reload' }).click();
		await (two as Locator).getByRole('heading', { name: 'Tents for 40 (first)' }).waitFor();
		await notice.waitFor({ state: 'detached' });
		// The reloaded version is the one its next save is based on.
		await editInPlace(two as Locator, 'Name', 'Tents for 40 (second, again)');
		await expect.poll(dealName).toBe('Tents for 40 (second, again)');
	});

	it('the widget settings: the second save is refused, stores nothing, and Reload shows the first change', async () => {
		const { token } = workspace(108);
		const displayName = async () => (await read<{ displayName: string }>(token, '/v3/widget/settings')).displayName;
		const [first, second] = await twoEditors(108, '/settings/widget');
		for (const page of [first, second]) await page.getByLabel('Display name', { exact: true }).waitFor();

		await first.getByLabel('Display name', { exact: true }).fill('Acme (first)');
		await second.getByLabel('Display name', { exact: true }).fill('Acme (second)');
		await first.getByRole('button', { name: 'Save changes' }).click();
		await first.getByText('All changes saved.').waitFor();
		expect(await displayName()).toBe('Acme (first)');

		await second.getByRole('button', { name: 'Save changes' }).click();
		const notice = second.getByRole('alert').filter({ hasText: CHANGED });
		await notice.waitFor();
		expect(await displayName()).toBe('Acme (first)');

		await notice.getByRole('button', { name: 'Reload' }).click();
		await expect.poll(() => second.getByLabel('Display name', { exact: true }).inputValue()).toBe('Acme (first)');
		await notice.waitFor({ state: 'detached' });
	});

	it('a contact: the second save is refused, stores nothing, and Reload shows the first change', async () => {
		const { token } = workspace(110);
		const contact = await created<{ id: string }>(token, '/v3/contacts', { name: 'Elisa Faria' });
		const contactName = async () => (await read<{ name: string }>(token, `/v3/contacts/${contact.id}`)).name;
		const [first, second] = await twoEditors(110, `/contacts/${contact.id}`);
		const [one, two] = [first, second].map((page) => page.getByRole('complementary', { name: 'Contact' }));
		for (const panel of [one, two]) await panel?.getByRole('heading', { name: 'Elisa Faria' }).waitFor();

		await editInPlace(one as Locator, 'Name', 'Elisa Faria (first)');
		await expect.poll(contactName).toBe('Elisa Faria (first)');
		await editInPlace(two as Locator, 'Name', 'Elisa Faria (second)');
		const notice = (two as Locator).getByRole('alert').filter({ hasText: CHANGED });
		await notice.waitFor();
		expect(await contactName()).toBe('Elisa Faria (first)');

		await notice.getByRole('button', { name: 'Reload' }).click();
		await (two as Locator).getByRole('heading', { name: 'Elisa Faria (first)' }).waitFor();
		await notice.waitFor({ state: 'detached' });
	});

	it('an assignment rule: the second save is refused, stores nothing, and Reload shows the first change', async () => {
		const { token } = workspace(96);
		const rule = await created<{ id: string }>(token, '/v3/assignment/rules', {
			name: 'Daytime',
			policy: { strategy: 'round_robin' },
		});
		const ruleName = async () => (await read<{ name: string }>(token, `/v3/assignment/rules/${rule.id}`)).name;
		const [first, second] = await twoEditors(96, '/assignment');
		// Located by kind, not by name: the form is named after the rule, whose name is what changes.
		const [one, two] = [first, second].map((page) => page.locator('form.assignment-form'));
		for (const page of [first, second]) await page.getByRole('button', { name: 'Edit Daytime' }).click();
		for (const form of [one, two]) await form?.getByLabel('Name', { exact: true }).waitFor();

		await (one as Locator).getByLabel('Name', { exact: true }).fill('Daytime (first)');
		await (two as Locator).getByLabel('Name', { exact: true }).fill('Daytime (second)');
		await (one as Locator).getByRole('button', { name: 'Save', exact: true }).click();
		await expect.poll(ruleName).toBe('Daytime (first)');
		await (two as Locator).getByRole('button', { name: 'Save', exact: true }).click();
		const notice = (two as Locator).getByRole('alert').filter({ hasText: CHANGED });
		await notice.waitFor();
		expect(await ruleName()).toBe('Daytime (first)');

		await notice.getByRole('button', { name: 'Reload' }).click();
		await expect.poll(() => (two as Locator).getByLabel('Name', { exact: true }).inputValue()).toBe('Daytime (first)');
		await notice.waitFor({ state: 'detached' });
	});

	it('a deal dragged on a board that no longer shows it as it is stays put, and the board says so', async () => {
		const { token } = workspace(110);
		const { funnel, deal } = await dealWithFunnel(token, 'Chairs for 12');
		const page = await consolePage(context, 110);
		await page.goto(`${baseUrl}/console/deals`);
		await page.getByRole('combobox', { name: 'Funnel' }).selectOption(funnel.id);
		const card = page.getByRole('article', { name: 'Chairs for 12' });
		await card.waitFor();
		const renamed = await api(baseUrl, token, 'PATCH', `/v3/deals/${deal.id}`, { name: 'Chairs for 14' });
		expect(renamed.status).toBe(200);

		await card.dragTo(page.getByRole('region', { name: 'Proposal' }));
		await page.getByRole('alert').filter({ hasText: 'Chairs for 12' }).waitFor();
		expect((await read<{ stage: { name: string } }>(token, `/v3/deals/${deal.id}`)).stage.name).toBe('Lead');
		// The board is drawn again as the deal now is, in the stage it is in.
		await expect.poll(() => page.getByRole('region', { name: 'Lead' }).textContent()).toContain('Chairs for 14');
	});
});
