// Flood protection in the console, in a real Chromium against `wrangler dev`: an admin sets the workspace's
// limit on the scenarios page (the API's 422 at the field), a scenario's webhook fired past it pauses the
// scenario, the admin's open console says so wherever they are, the list marks it paused, and Resume starts
// runs again.
import type { BrowserContext } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext({ viewport: { width: 1400, height: 1000 } });
});

/** A scenario that only keeps what it was sent. */
const echo = { start: 'keep', steps: [{ id: 'keep', type: 'set_variables', values: { got: '{{ n }}' } }] };

describe('flood protection in the console', () => {
	it('sets the limit, tells the admin a scenario was paused, marks it in the list, and resumes it', async () => {
		const { token } = workspace(60);
		const call = async (method: string, path: string, body?: unknown) => {
			const res = await api(baseUrl, token, method, path, body);
			expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
			return res.body as Record<string, unknown>;
		};
		const scenario = await call('POST', '/v3/scenarios', { name: 'Order sync', definition: echo });
		await call('POST', `/v3/scenarios/${scenario.id}/publish`);
		const hook = await call('POST', `/v3/scenarios/${scenario.id}/webhooks`, { name: 'Shop', auth: 'open' });
		const fire = (n: number) => api(baseUrl, null, 'POST', `/v3/workflows/webhook/${hook.id}`, { n });
		const limitSaved = async () =>
			((await call('GET', '/v3/automation-settings')) as { scenarioRunsPerMinute: number }).scenarioRunsPerMinute;
		const runs = async () =>
			((await call('GET', `/v3/scenarios/${scenario.id}/runs`)) as { data: unknown[] }).data.length;

		// The limit, set on the scenarios page; a value the API refuses is shown at the field.
		const page = await consolePage(context, 60);
		await page.goto(`${baseUrl}/console/scenarios`);
		const limit = page.getByLabel('Runs one scenario may start in a minute');
		await expect.poll(() => limit.inputValue()).toBe('100');
		await limit.fill('0');
		await page.getByRole('button', { name: 'Save limit' }).click();
		await expect.poll(() => limit.getAttribute('aria-invalid')).toBe('true');
		const problem = page.locator(`#${await limit.getAttribute('id')}-problem`);
		expect(await problem.textContent()).toMatch(/>=\s*1|at least|too small/i);
		expect(await limitSaved()).toBe(100);
		await limit.fill('2');
		await page.getByRole('button', { name: 'Save limit' }).click();
		await expect.poll(limitSaved).toBe(2);
		expect(await limit.getAttribute('aria-invalid')).toBeNull();

		// The admin is elsewhere (the inbox, its feed open) when the webhook is fired past the limit.
		await page.getByRole('link', { name: 'Inbox' }).click();
		await page.getByText('Reconnecting… lists update again once back.').waitFor({ state: 'hidden' });
		expect((await fire(1)).status).toBe(202);
		expect((await fire(2)).status).toBe(202);
		expect((await fire(3)).status).toBe(409);
		const notice = page.getByRole('alert').filter({ hasText: 'Order sync' });
		await notice.waitFor({ timeout: 15_000 });
		expect(await notice.textContent()).toContain(
			'Scenario “Order sync” was paused: it started more than 2 runs in a minute, the workspace’s limit.',
		);

		// Its link opens the scenario, whose settings say it is paused, when and why.
		await notice.getByRole('link', { name: 'Open the scenario' }).click();
		await page.waitForURL(`${baseUrl}/console/scenarios/${scenario.id}`);
		await page.getByRole('button', { name: 'Settings', exact: true }).click();
		const paused = page.getByRole('region', { name: 'Paused by flood protection' });
		await paused.waitFor();
		expect(await paused.textContent()).toContain('more than 2 runs a minute');
		await paused.getByRole('button', { name: 'Resume' }).waitFor();

		// The list marks it paused too; Resume there starts it again.
		await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scenarios' }).click();
		const row = page.locator('.documents li').filter({ hasText: 'Order sync' });
		await row.getByText('Paused', { exact: true }).waitFor();
		expect(await row.textContent()).toContain('more than 2 runs a minute');
		await row.getByRole('button', { name: 'Resume' }).click();
		await row.getByText('On', { exact: true }).waitFor();
		expect(await row.getByText('Paused', { exact: true }).count()).toBe(0);
		expect(await call('GET', `/v3/scenarios/${scenario.id}`)).toMatchObject({ enabled: true, paused: null });
		expect(await runs()).toBe(2);
		expect((await fire(4)).status).toBe(202);
		expect(await runs()).toBe(3);
	});
});
