// Two editors of one rule in a real Chromium against `wrangler dev`: both open it, both change it, the first
// saves; the second's save is refused (the console sent the ETag it loaded as If-Match) with "Changed by
// someone else since you opened it", and Reload brings the first one's change into its form.
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

describe('two editors of one rule', () => {
	it('tells the second saver that the rule changed since it was opened, and Reload shows the first change', async () => {
		const { token } = workspace(109);
		const made = await api(baseUrl, token, 'POST', '/v3/automation-rules', {
			name: 'Closing note',
			trigger: { kind: 'conversation_closed' },
			actions: [{ type: 'apply_tag', tag: 'closed' }],
		});
		expect(made.status, JSON.stringify(made.body)).toBe(201);
		const { id } = made.body as { id: string };

		const first = await consolePage(context, 109);
		const second = await context.newPage();
		for (const page of [first, second]) {
			await page.goto(`${baseUrl}/console/rules/${id}`);
			await page.getByLabel('Name').waitFor();
			expect(await page.getByLabel('Name').inputValue()).toBe('Closing note');
		}

		await first.getByLabel('Name').fill('Closing note (first)');
		await second.getByLabel('Name').fill('Closing note (second)');
		await first.getByRole('button', { name: 'Save', exact: true }).click();
		await expect
			.poll(
				async () => ((await api(baseUrl, token, 'GET', `/v3/automation-rules/${id}`)).body as { name: string }).name,
			)
			.toBe('Closing note (first)');

		await second.getByRole('button', { name: 'Save', exact: true }).click();
		const notice = second.getByRole('alert').filter({ hasText: 'Changed by someone else since you opened it' });
		await notice.waitFor();
		const stored = await api(baseUrl, token, 'GET', `/v3/automation-rules/${id}`);
		expect((stored.body as { name: string }).name).toBe('Closing note (first)');

		await notice.getByRole('button', { name: 'Reload' }).click();
		await expect.poll(() => second.getByLabel('Name').inputValue()).toBe('Closing note (first)');
		await notice.waitFor({ state: 'detached' });
	});
});
