// Settings › Notifications in the operator console, in a real Chromium against `wrangler dev`: a member sees
// their own mail alerts with the defaults, saves a change in one PUT that the API then reads back, and a
// minutes value the API refuses shows the API's problem under its field.
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

describe('Settings › Notifications', () => {
	it('shows the defaults, saves a change the API reads back, and shows a refused minutes value under its field', async () => {
		const { token } = workspace(115);
		const page = await consolePage(context, 115);
		// The settings links are drawn again once the session says the member is an admin (the workspace's pages
		// join Notifications): wait for that, so the click does not land on a link being replaced.
		await page.getByRole('link', { name: 'E-mail', exact: true }).waitFor();
		await page.getByRole('link', { name: 'Notifications', exact: true }).click();
		await page.waitForURL(/\/console\/settings\/notifications$/);
		await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
		expect(await page.getByText('No mail goes out until an admin sets the workspace’s sender').count()).toBe(1);

		const assigned = page.getByLabel('Assigned to me while I am offline');
		const unanswered = page.getByLabel('A new conversation nobody took');
		const minutes = page.getByLabel('Minutes before that mail');
		const mentions = page.getByLabel('Mentioned in a private note');
		const rules = page.getByLabel('A rule or a bot notifies me');
		await assigned.waitFor();
		expect(await assigned.isChecked()).toBe(true);
		expect(await unanswered.isChecked()).toBe(false);
		expect(await minutes.inputValue()).toBe('10');
		expect(await minutes.isDisabled()).toBe(true);
		expect(await mentions.isChecked()).toBe(true);
		expect(await rules.isChecked()).toBe(true);
		// Each choice is described by its line; the mention's says the syntax.
		const hintOf = async (id: string) => page.locator(`#${id}`).textContent();
		expect(await hintOf((await mentions.getAttribute('aria-describedby')) ?? 'none')).toContain('@"Full Name"');

		// The minutes open with their switch, from the keyboard as well.
		await unanswered.focus();
		await page.keyboard.press('Space');
		expect(await minutes.isDisabled()).toBe(false);
		await minutes.fill('25');
		await mentions.click();
		await page.getByRole('button', { name: 'Save' }).click();
		await expect.poll(() => page.getByRole('status').filter({ hasText: 'All changes saved' }).count()).toBe(1);
		const saved = {
			assignedWhileOffline: true,
			unanswered: true,
			unansweredAfterMinutes: 25,
			mentions: false,
			ruleNotifications: true,
		};
		expect((await api(baseUrl, token, 'GET', '/v3/me/notifications')).body).toEqual(saved);

		// A value the API refuses: its problem under the minutes, nothing saved.
		await minutes.fill('0');
		await page.getByRole('button', { name: 'Save' }).click();
		const problem = page.locator('#notify-minutes-problem');
		await problem.waitFor();
		// The words are the API's own: what it says of the same value sent to it directly.
		const refused = await api(baseUrl, token, 'PUT', '/v3/me/notifications', { unansweredAfterMinutes: 0 });
		expect(refused.status).toBe(422);
		const { message } = refused.body as { message: string };
		expect(message).toContain('json.unansweredAfterMinutes: ');
		expect(`json.unansweredAfterMinutes: ${await problem.textContent()}`).toBe(message);
		expect(await minutes.getAttribute('aria-invalid')).toBe('true');
		expect(await minutes.getAttribute('aria-describedby')).toBe('notify-minutes-problem');
		expect((await api(baseUrl, token, 'GET', '/v3/me/notifications')).body).toEqual(saved);
	});
});
