// The inbox's search, status views and snooze in a real Chromium against `wrangler dev`: a word said in an
// older message (beyond the first page the conversation opens with) is found, shown marked, and opens the
// conversation scrolled to that message; `/` focuses the box; every status has its view in sight; a snooze
// moves a conversation to pending until its time.
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

/** A conversation with `name`, opened by the contact saying `first`, then `replies` answers of the team. */
async function conversationWith(n: number, name: string, first: string, replies = 0): Promise<string> {
	const { token } = workspace(n);
	const made = await api(baseUrl, token, 'POST', '/v3/conversations', {
		contact: { name, email: `${name.toLowerCase().replace(/\W+/g, '.')}@example.com` },
		message: { text: first, author: 'contact' },
	});
	expect(made.status, JSON.stringify(made.body)).toBe(201);
	const id = (made.body as { id: string }).id;
	for (let i = 1; i <= replies; i++) {
		const sent = await api(baseUrl, token, 'POST', '/v3/messages', { conversationId: id, text: `Update ${i} on it` });
		expect(sent.status).toBe(201);
	}
	return id;
}

function rowOf(page: Page, name: string) {
	return page.getByRole('option').filter({ hasText: name });
}

describe('the inbox search', () => {
	it('finds a word of an older message, marks it, and opens the conversation at that message', async () => {
		const id = await conversationWith(130, 'Greta Flores', 'Is the flamingo lamp back in stock?', 55);
		const page = await consolePage(context, 130);
		// `/` outside a field focuses the search box.
		await page.locator('body').press('/');
		const box = page.getByRole('searchbox', { name: 'Search conversations' });
		await expect.poll(() => box.evaluate((input) => input === document.activeElement)).toBe(true);
		await page.keyboard.type('flamingo lamp');
		const hit = page.getByTestId('search-hit').filter({ hasText: 'Greta Flores' });
		await hit.waitFor();
		expect(await hit.locator('mark').allTextContents()).toEqual(['flamingo', 'lamp']);
		await hit.click();
		await expect.poll(() => new URL(page.url()).pathname).toBe(`/console/conversations/${id}`);
		const found = page.getByTestId('found-message');
		await found.waitFor();
		expect(await found.textContent()).toContain('Is the flamingo lamp back in stock?');
		await expect
			.poll(() =>
				found.evaluate((el) => {
					const box = el.getBoundingClientRect();
					const list = (el.closest('.messages') as HTMLElement).getBoundingClientRect();
					return box.top >= list.top && box.bottom <= list.bottom;
				}),
			)
			.toBe(true);
		// Escape empties the box and the list is back.
		await box.press('Escape');
		await rowOf(page, 'Greta Flores').waitFor();
	});
});

describe('the status views and snooze', () => {
	it('shows each status in its own view without opening Filters, and snoozes to pending', async () => {
		const { token } = workspace(131);
		const closed = await conversationWith(131, 'Carla Closed', 'Thanks, all sorted');
		expect((await api(baseUrl, token, 'PATCH', `/v3/conversations/${closed}`, { status: 'closed' })).status).toBe(200);
		const snoozed = await conversationWith(131, 'Sam Snooze', 'Call me tomorrow please');
		const page = await consolePage(context, 131);
		const views = page.getByRole('group', { name: 'Status' });
		await rowOf(page, 'Sam Snooze').waitFor();
		expect(await rowOf(page, 'Carla Closed').count()).toBe(0);
		await views.getByRole('button', { name: 'Closed' }).click();
		await rowOf(page, 'Carla Closed').waitFor();
		await views.getByRole('button', { name: 'Any status' }).click();
		await rowOf(page, 'Sam Snooze').waitFor();
		await rowOf(page, 'Carla Closed').waitFor();

		await rowOf(page, 'Sam Snooze').click();
		await page.locator('details.snooze summary').click();
		await page.getByRole('button', { name: 'Tomorrow 9:00' }).click();
		await page.getByTestId('snoozed-until').waitFor();
		const stored = await api(baseUrl, token, 'GET', `/v3/conversations/${snoozed}`);
		expect(stored.body).toMatchObject({ status: 'pending' });
		expect(Date.parse((stored.body as { snoozedUntil: string }).snoozedUntil)).toBeGreaterThan(Date.now());
		await views.getByRole('button', { name: 'Pending' }).click();
		await rowOf(page, 'Sam Snooze').filter({ hasText: 'snoozed until' }).waitFor();
		await views.getByRole('button', { name: 'Open' }).click();
		await expect.poll(() => rowOf(page, 'Sam Snooze').count()).toBe(0);
	});
});
