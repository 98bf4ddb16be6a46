// Automation › Rules and Assignment in a real Chromium against `wrangler dev`: a rule built in the form fires
// on real conversations (its tag and assignment seen through the API, its execution log in the console saying
// matched and skipped, and why), a refused field shows the API's problem beside it, and an assignment rule made
// and changed in the form routes new conversations as it says, a capacity set there holding the next one back.
import type { BrowserContext, Page } from 'playwright-core';
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
	expect(status, JSON.stringify(body)).toBe(200);
	return body as T;
}

async function created<T>(token: string, path: string, body: unknown): Promise<T> {
	const answer = await api(baseUrl, token, 'POST', path, body);
	expect(answer.status, JSON.stringify(answer.body)).toBe(201);
	return answer.body as T;
}

type Conversation = { id: string; assigneeId: string | null; tags: string[] };

/** A customer's new conversation through the API (a new contact each time). */
function customerWrites(token: string, email: string, text: string): Promise<Conversation> {
	return created<Conversation>(token, '/v3/conversations', {
		contact: { name: email.split('@')[0], email },
		message: { text },
	});
}

async function adminId(token: string): Promise<string> {
	return (await read<{ operator: { id: string } }>(token, '/v3/me')).operator.id;
}

async function openNewRule(page: Page): Promise<void> {
	await page.getByRole('link', { name: 'Rules' }).click();
	await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor();
	await page.getByRole('link', { name: 'New rule' }).first().click();
	await page.getByRole('heading', { name: 'New rule', level: 1 }).waitFor();
}

describe('automation rules in the console', () => {
	it('tells a template field what the chosen trigger fills, from the table the runner fills it from', async () => {
		const page = await consolePage(context, 89);
		await openNewRule(page);
		const hint = page.getByRole('listitem', { name: 'Action 1: Send a message' }).getByText(/^Liquid\./);
		await page.getByLabel('Trigger').selectOption({ label: 'Deal stage changed' });
		await expect.poll(() => hint.textContent()).toContain('deal.stage');
		expect(await hint.textContent()).toContain('agent.name');
		await page.getByLabel('Trigger').selectOption({ label: 'Tag applied' });
		await expect.poll(() => hint.textContent()).toContain('tag.name');
		expect(await hint.textContent()).not.toContain('deal.');
	});

	it('builds a rule in the form that fires on a matching conversation and logs why another was skipped', async () => {
		const { token } = workspace(89);
		const me = await adminId(token);
		const page = await consolePage(context, 89);
		await openNewRule(page);

		await page.getByLabel('Name').fill('Big accounts');
		await page.getByLabel('Trigger').selectOption({ label: 'New contact (no recent conversation)' });
		await page.getByRole('button', { name: 'Add condition' }).click();
		await page.getByLabel('Fact (Condition 1)').selectOption({ label: 'E-mail' });
		await page.getByLabel('Operator (Condition 1)').selectOption({ label: 'ends with' });
		await page.getByLabel('Value (Condition 1)').fill('@bigco.com');

		// The first action becomes a tag; a second assigns, and is moved above it with the keyboard.
		await page.getByLabel('Action 1', { exact: true }).selectOption({ label: 'Apply or remove a tag' });
		await page.getByRole('listitem', { name: 'Action 1: Apply or remove a tag' }).getByLabel('Tag').fill('vip');
		await page.getByLabel('Action to add').selectOption({ label: 'Assign the conversation' });
		await page.getByRole('button', { name: 'Add action' }).click();
		const assign = page.getByRole('listitem', { name: 'Action 2: Assign the conversation' });
		await assign.getByLabel('Operator', { exact: true }).selectOption(me);
		await page.getByRole('button', { name: 'Move action 2 up' }).focus();
		await page.keyboard.press('Enter');
		await page.getByRole('listitem', { name: 'Action 1: Assign the conversation' }).waitFor();

		await page.getByRole('button', { name: 'Create rule' }).click();
		await page.getByRole('heading', { name: 'Execution log' }).waitFor();
		const rules = await read<{ data: Array<Record<string, unknown>> }>(token, '/v3/automation-rules');
		expect(rules.data).toHaveLength(1);
		const rule = rules.data[0] as { id: string };
		expect(rule).toMatchObject({
			name: 'Big accounts',
			enabled: true,
			trigger: { kind: 'new_contact', windowDays: 30 },
			condition: { all: [{ fact: 'contact.email', operator: 'ends_with', value: '@bigco.com' }] },
			actions: [
				{ type: 'assign', operatorId: me },
				{ type: 'apply_tag', tag: 'vip', remove: false, target: 'conversation' },
			],
		});
		expect(page.url()).toBe(`${baseUrl}/console/rules/${rule.id}`);

		const big = await customerWrites(token, `ana-${Date.now()}@bigco.com`, 'We need 40 tents.');
		await expect
			.poll(async () => {
				const now = await read<Conversation>(token, `/v3/conversations/${big.id}`);
				return { assigneeId: now.assigneeId, tags: now.tags };
			})
			.toEqual({ assigneeId: me, tags: ['vip'] });
		const small = await customerWrites(token, `bob-${Date.now()}@smallshop.com`, 'One tent, please.');

		const log = page.getByRole('region', { name: 'Execution log' });
		const matched = log
			.getByRole('row')
			.filter({ has: page.getByRole('link', { name: `Conversation …${big.id.slice(-6)}` }) });
		const skipped = log
			.getByRole('row')
			.filter({ has: page.getByRole('link', { name: `Conversation …${small.id.slice(-6)}` }) });
		await expect.poll(() => skipped.count(), { timeout: 20_000 }).toBe(1);
		expect(await matched.textContent()).toContain('Matched');
		expect(await matched.textContent()).toContain('Every action done');
		expect(await skipped.textContent()).toContain('Skipped');
		expect(await skipped.textContent()).toContain('the condition does not hold');
		expect(
			(await read<Conversation>(token, `/v3/conversations/${small.id}`)).tags,
			'the skipped conversation is not tagged',
		).toEqual([]);

		// The list shows the rule with its recent executions; its switch turns it off through the API.
		await page.getByRole('link', { name: 'Rules', exact: true }).first().click();
		await page.getByRole('switch', { name: 'Enable Big accounts' }).click();
		await expect
			.poll(async () => (await read<{ enabled: boolean }>(token, `/v3/automation-rules/${rule.id}`)).enabled)
			.toBe(false);
	});

	it('shows a refused field beside it and creates nothing', async () => {
		const { token } = workspace(90);
		const page = await consolePage(context, 90);
		await openNewRule(page);
		await page.getByLabel('Name').fill('Broken greeting');
		await page.getByLabel('Action to add').selectOption({ label: 'Send a message' });
		await page.getByRole('button', { name: 'Add action' }).click();
		const second = page.getByRole('listitem', { name: 'Action 2: Send a message' });
		await page.getByRole('listitem', { name: 'Action 1: Send a message' }).getByLabel('Message').fill('Hello!');
		await second.getByLabel('Message').fill('Hi {{ contact.name');
		await page.getByRole('button', { name: 'Create rule' }).click();

		const field = second.getByLabel('Message');
		await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
		const problemId = (await field.getAttribute('aria-describedby')) ?? '';
		expect(await page.locator(`[id="${problemId}"]`).textContent()).toContain('not a valid template');
		expect(
			await page
				.getByRole('listitem', { name: 'Action 1: Send a message' })
				.getByLabel('Message')
				.getAttribute('aria-invalid'),
		).toBeNull();
		expect((await read<{ data: unknown[] }>(token, '/v3/automation-rules')).data).toEqual([]);
	});
});

describe('assignment in the console', () => {
	it('creates and changes an assignment rule in the form, and new conversations are routed as it says', async () => {
		const { token } = workspace(91);
		const me = await adminId(token);
		const sales = await created<{ id: string }>(token, '/v3/team/groups', { name: 'Sales' });
		expect((await api(baseUrl, token, 'PATCH', `/v3/team/members/${me}`, { groups: [sales.id] })).status).toBe(200);
		const page = await consolePage(context, 91);
		expect((await api(baseUrl, token, 'PUT', '/v3/me/status', { status: 'online' })).status).toBe(200);

		await page.getByRole('link', { name: 'Assignment' }).click();
		await page.getByRole('button', { name: 'New assignment rule' }).click();
		const form = page.getByRole('form', { name: 'New assignment rule' });
		await form.getByLabel('Name').fill('Sales in turn');
		await form.getByLabel('Strategy').selectOption({ label: 'Group based' });
		await form.getByLabel('Only operators of').selectOption({ label: 'Sales' });
		await form.getByRole('button', { name: 'Add condition' }).click();
		await form.getByLabel('Fact (Condition 1)').selectOption({ label: 'Channel' });
		await form.getByLabel('Value (Condition 1)').selectOption('api');
		await form.getByRole('button', { name: 'Create rule' }).click();
		await page.getByRole('listitem', { name: 'Sales in turn' }).waitFor();

		const rules = await read<{ data: Array<{ id: string }> }>(token, '/v3/assignment/rules');
		expect(rules.data).toHaveLength(1);
		expect(rules.data[0]).toMatchObject({
			name: 'Sales in turn',
			enabled: true,
			priority: 10,
			condition: { all: [{ fact: 'conversation.channel', operator: 'eq', value: 'api' }] },
			policy: {
				strategy: 'group_based',
				groupId: sales.id,
				onlyOnline: true,
				respectStatus: true,
				considerBusinessHours: false,
			},
		});

		const first = await customerWrites(token, `carla-${Date.now()}@example.com`, 'Is the Ridge 2 in stock?');
		await expect
			.poll(async () => (await read<Conversation>(token, `/v3/conversations/${first.id}`)).assigneeId, {
				timeout: 20_000,
			})
			.toBe(me);

		// Changed in the form: load balanced over everyone; and the admin takes one open conversation at most, which
		// it has: the next conversation waits in the queue the page shows.
		await page.getByRole('button', { name: 'Edit Sales in turn' }).click();
		const edit = page.getByRole('form', { name: 'Edit Sales in turn' });
		await edit.getByLabel('Strategy').selectOption({ label: 'Load balanced' });
		await edit.getByLabel('Only operators of').selectOption({ label: 'Any group' });
		await edit.getByRole('button', { name: 'Save' }).click();
		await expect
			.poll(
				async () => (await read<{ data: Array<{ policy: unknown }> }>(token, '/v3/assignment/rules')).data[0]?.policy,
			)
			.toEqual({
				strategy: 'load_balanced',
				groupId: null,
				onlyOnline: true,
				respectStatus: true,
				considerBusinessHours: false,
			});
		const capacities = page.getByRole('region', { name: 'Capacities' });
		await capacities.getByLabel('Admin', { exact: true }).fill('1');
		await capacities.getByRole('listitem').filter({ hasText: 'Admin' }).getByRole('button', { name: 'Save' }).click();
		await expect
			.poll(async () => (await read<{ capacity: number | null }>(token, `/v3/team/members/${me}`)).capacity)
			.toBe(1);
		const second = await customerWrites(token, `dan-${Date.now()}@example.com`, 'Do you rent stoves?');
		const queue = page.getByRole('region', { name: 'Waiting for an operator' });
		await queue.getByRole('link', { name: `Conversation …${second.id.slice(-6)}` }).waitFor({ timeout: 20_000 });
		expect((await read<Conversation>(token, `/v3/conversations/${second.id}`)).assigneeId).toBeNull();
	});
});
