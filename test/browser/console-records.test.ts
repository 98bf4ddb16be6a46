// The console's conversation tools, contacts, deals and tasks in a real Chromium against `wrangler dev`: assigning
// to a colleague, tagging, editing the contact in place, merging a duplicate, dragging a deal to another stage and
// ticking off a task, each checked through the API.
import type { BrowserContext } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

async function read<T>(token: string, path: string): Promise<T> {
	const { status, body } = await api(baseUrl, token, 'GET', path);
	expect(status).toBe(200);
	return body as T;
}

async function created<T>(token: string, path: string, body: unknown): Promise<T> {
	const answer = await api(baseUrl, token, 'POST', path, body);
	expect(answer.status, JSON.stringify(answer.body)).toBe(201);
	return answer.body as T;
}

describe('a conversation in the console', () => {
	it('is assigned to a colleague, tagged and untagged, and its contact edited in place', async () => {
		const { token } = workspace(77);
		const colleague = await created<{ id: string }>(token, '/v3/team/members', {
			name: 'Bruno Costa',
			email: `bruno-${Date.now()}@example.com`,
			permissions: ['conversations:read', 'messages:send'],
		});
		const conversation = await created<{ id: string; contactId: string }>(token, '/v3/conversations', {
			contact: { name: 'Carla Dias', email: 'carla@example.com' },
			message: { text: 'Do you ship to Porto?' },
		});
		const page = await consolePage(context, 77);
		await page.goto(`${baseUrl}/console/conversations/${conversation.id}`);
		await page.getByRole('heading', { name: 'Carla Dias', level: 2 }).waitFor();

		await page.getByLabel('Assignee').selectOption(colleague.id);
		await expect
			.poll(
				async () =>
					(await read<{ assigneeId: string | null }>(token, `/v3/conversations/${conversation.id}`)).assigneeId,
			)
			.toBe(colleague.id);

		await page.getByLabel('Tags', { exact: true }).fill('shipping');
		await page.getByLabel('Tags', { exact: true }).press('Enter');
		const tags = async () => (await read<{ tags: string[] }>(token, `/v3/conversations/${conversation.id}`)).tags;
		await expect.poll(tags).toEqual(['shipping']);
		await page.getByRole('button', { name: 'Remove tag shipping' }).click();
		await expect.poll(tags).toEqual([]);

		const panel = page.getByRole('complementary', { name: 'Contact' });
		await panel.getByRole('button', { name: 'E-mail' }).click();
		await panel.getByLabel('E-mail').fill('carla.dias@example.com');
		await panel.getByRole('button', { name: 'Save' }).click();
		await expect
			.poll(async () => (await read<{ email: string }>(token, `/v3/contacts/${conversation.contactId}`)).email)
			.toBe('carla.dias@example.com');
		// A refused value keeps the field open with the API's message beside it, and changes nothing.
		await panel.getByRole('button', { name: 'E-mail' }).click();
		await panel.getByLabel('E-mail').fill('not an e-mail');
		await panel.getByRole('button', { name: 'Save' }).click();
		await expect.poll(() => panel.getByRole('alert').textContent()).toContain('email');
		expect((await read<{ email: string }>(token, `/v3/contacts/${conversation.contactId}`)).email).toBe(
			'carla.dias@example.com',
		);
	});
});

describe('contacts', () => {
	it('merges a duplicate found by name into the open contact', async () => {
		const { token } = workspace(78);
		const keep = await created<{ id: string }>(token, '/v3/contacts', {
			name: 'Diego Alves',
			email: 'diego@example.com',
		});
		const duplicate = await created<{ id: string }>(token, '/v3/contacts', {
			name: 'Diego A.',
			phone: '+5511988887777',
		});
		const page = await consolePage(context, 78);
		page.on('dialog', (dialog) => dialog.accept());
		await page.getByRole('link', { name: 'Contacts' }).click();
		await page.getByRole('link', { name: 'Diego Alves' }).click();
		await page.getByLabel('Merge a duplicate (search by name, e-mail or phone)').fill('Diego A.');
		await page.getByRole('button', { name: 'Merge into this contact' }).click();
		await expect.poll(async () => (await api(baseUrl, token, 'GET', `/v3/contacts/${duplicate.id}`)).status).toBe(404);
		expect((await read<{ phone: string | null }>(token, `/v3/contacts/${keep.id}`)).phone).toBe('+5511988887777');
	});
});

describe('deals and tasks', () => {
	it('moves a deal to another stage by dragging its card, and by its stage menu', async () => {
		const { token } = workspace(79);
		const funnel = await created<{ id: string; stages: { id: string; name: string }[] }>(token, '/v3/funnels', {
			name: 'Sales',
			stages: ['Lead', 'Proposal', 'Won'],
		});
		const deal = await created<{ id: string }>(token, '/v3/deals', {
			funnel: funnel.id,
			stage: 'Lead',
			name: 'Tents for 40',
		});
		const page = await consolePage(context, 79);
		await page.getByRole('link', { name: 'Deals' }).click();
		const card = page.getByRole('article', { name: 'Tents for 40' });
		await card.dragTo(page.getByRole('region', { name: 'Proposal' }));
		const stage = async () => (await read<{ stage: { name: string } }>(token, `/v3/deals/${deal.id}`)).stage.name;
		await expect.poll(stage).toBe('Proposal');
		await expect.poll(() => page.getByRole('region', { name: 'Proposal' }).textContent()).toContain('Tents for 40');

		await page.getByLabel('Move Tents for 40 to stage').selectOption({ label: 'Won' });
		await expect.poll(stage).toBe('Won');
	});

	it('lists my tasks due today and ticks one off', async () => {
		const { token, operatorId } = workspace(79);
		const task = await created<{ id: string }>(token, '/v3/tasks', {
			title: 'Call Carla about shipping',
			assigneeId: operatorId,
			dueAt: new Date(Date.now() - 3600_000).toISOString(),
		});
		const page = await consolePage(context, 79);
		await page.getByRole('link', { name: 'Tasks' }).click();
		// A click, not Playwright's check(): a ticked task leaves the list as soon as the Worker confirms it, which
		// can be before check() looks for the box again to see it ticked.
		const box = page.getByLabel('Mark “Call Carla about shipping” done');
		await box.click();
		await expect.poll(async () => (await read<{ done: boolean }>(token, `/v3/tasks/${task.id}`)).done).toBe(true);
		await expect.poll(() => box.count()).toBe(0);
	});
});
