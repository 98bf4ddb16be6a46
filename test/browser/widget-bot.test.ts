// A bot in the widget, in Chromium: its formatting and media, quick-reply buttons, a typed e-mail prompt, a
// rating and a file upload each advance it; a message's buttons wait and branch; a refused answer is told in
// the bot's own words.
import type { BrowserContext } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import {
	baseUrl,
	browserContexts,
	conversations,
	logText,
	messageTexts,
	sendFromWidget,
	widgetPage,
} from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

/** A valid 1x1 PNG. */
const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
	'base64',
);

const shopBot = {
	start: 'hi',
	steps: [
		{
			id: 'hi',
			type: 'send_message',
			text: '*Welcome* to _Acme_ outdoor!',
			media: [
				{ kind: 'image', url: 'https://cdn.example.com/tent.png', name: 'Ridge tent' },
				{ kind: 'video', url: 'https://cdn.example.com/setup.mp4', name: 'Setting it up' },
				{ kind: 'document', url: 'https://cdn.example.com/manual.pdf', name: 'Manual' },
			],
			typingSeconds: 2,
			next: 'pick',
		},
		{
			id: 'pick',
			type: 'data_entry',
			prompt: 'What are you shopping for?',
			input: 'buttons',
			variable: 'product',
			choices: [{ label: 'Tent' }, { label: 'Stove' }],
			next: 'email',
		},
		{
			id: 'email',
			type: 'data_entry',
			prompt: 'Your e-mail for the quote?',
			input: 'email',
			variable: 'email',
			next: 'rate',
		},
		{
			id: 'rate',
			type: 'data_entry',
			prompt: 'How was this chat so far?',
			input: 'rating',
			variable: 'rating',
			next: 'receipt',
		},
		{
			id: 'receipt',
			type: 'data_entry',
			prompt: 'Last: a photo of your old tent?',
			input: 'file',
			variable: 'photo',
			next: 'bye',
		},
		{
			id: 'bye',
			type: 'end',
			message: 'Thanks! {{ product }} quote to {{ email }}, rated {{ rating }}, got {{ photo.name }}.',
		},
	],
};

describe('a bot in the widget', () => {
	it('advances on a button, a typed e-mail, a rating and a file, and shows its formatting and media', async () => {
		const { workspaceId, token } = workspace(57);
		const created = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Shop assistant',
			trigger: { kind: 'new_conversation' },
			channels: ['widget'],
			definition: shopBot,
		});
		expect(created.status, JSON.stringify(created.body)).toBe(201);
		const botId = (created.body as { id: string }).id;
		expect((await api(baseUrl, token, 'POST', `/v3/bots/${botId}/publish`)).status).toBe(200);

		const { page } = await widgetPage(context, workspaceId);
		await page.locator('parley-widget .launcher').click();
		await sendFromWidget(page, 'Hi there');
		// The bot's typing pause: the visitor sees the team typing, then the message.
		await expect.poll(() => page.locator('parley-widget .typing').textContent(), { interval: 50 }).toContain('typing');
		const choices = page.locator('parley-widget .choices button');
		await expect.poll(() => choices.allTextContents(), { timeout: 15_000 }).toEqual(['Tent', 'Stove']);
		await expect.poll(() => page.locator('parley-widget .msg.team strong').allTextContents()).toContain('Welcome');
		expect(await page.locator('parley-widget .msg.team em').allTextContents()).toContain('Acme');
		expect(await page.locator('parley-widget .msg.team img').getAttribute('src')).toBe(
			'https://cdn.example.com/tent.png',
		);

		await choices.filter({ hasText: 'Tent' }).click();
		const email = page.locator('parley-widget .composer input[type=email]');
		await email.waitFor({ timeout: 15_000 });
		await email.fill('ana@example.com');
		await email.press('Enter');

		const four = page.locator('parley-widget .choices button[aria-label="Rate 4 out of 5"]');
		await four.waitFor({ timeout: 15_000 });
		await four.click();

		const file = page.locator('parley-widget .composer input[type=file]');
		await file.waitFor({ state: 'attached', timeout: 15_000 });
		expect(await file.getAttribute('accept')).toContain('application/pdf');
		await file.setInputFiles({ name: 'old-tent.png', mimeType: 'image/png', buffer: PNG });
		await page.locator('parley-widget .composer button[type=submit]').click();

		await expect
			.poll(() => logText(page), { timeout: 15_000 })
			.toContain('Thanks! Tent quote to ana@example.com, rated 4, got old-tent.png.');
		const [started] = await conversations(token);
		const runs = (await api(baseUrl, token, 'GET', `/v3/conversations/${started?.id}/bot-runs`)).body as {
			data: Array<{ status: string; variables: Record<string, unknown> }>;
		};
		expect(runs.data[0]).toMatchObject({
			status: 'finished',
			variables: { product: 'Tent', email: 'ana@example.com', rating: 4, photo: { name: 'old-tent.png' } },
		});
	});
});

/** A published bot started by the widget's new conversations, in the seeded workspace `n`. */
async function publishedBot(n: number, definition: unknown) {
	const { workspaceId, token } = workspace(n);
	const created = await api(baseUrl, token, 'POST', '/v3/bots', {
		name: 'Front desk',
		trigger: { kind: 'new_conversation' },
		channels: ['widget'],
		definition,
	});
	expect(created.status, JSON.stringify(created.body)).toBe(201);
	const botId = (created.body as { id: string }).id;
	expect((await api(baseUrl, token, 'POST', `/v3/bots/${botId}/publish`)).status).toBe(200);
	return { workspaceId, token };
}

describe('a message with quick-reply buttons in the widget', () => {
	it('shows the buttons and waits; a click disables them and the clicked button’s branch follows', async () => {
		const { workspaceId } = await publishedBot(93, {
			start: 'menu',
			steps: [
				{
					id: 'menu',
					type: 'send_message',
					text: 'Sales or support?',
					buttons: [{ label: 'Sales', next: 'sales' }, { label: 'Support', next: 'support' }, 'Other'],
					next: 'other',
				},
				{ id: 'sales', type: 'end', message: 'Our sales team will write to you.' },
				{ id: 'support', type: 'end', message: 'Our support team will write to you.' },
				{ id: 'other', type: 'end', message: 'Tell us more.' },
			],
		});
		const { page } = await widgetPage(context, workspaceId);
		await page.locator('parley-widget .launcher').click();
		await sendFromWidget(page, 'Hello');
		const choices = page.locator('parley-widget .choices button');
		await expect.poll(() => choices.allTextContents(), { timeout: 15_000 }).toEqual(['Sales', 'Support', 'Other']);
		// The bot waits at its buttons: nothing follows them until the visitor chooses.
		await new Promise((resolve) => setTimeout(resolve, 1000));
		expect(await logText(page)).not.toContain('write to you');
		expect(await choices.allTextContents()).toEqual(['Sales', 'Support', 'Other']);

		// Clicked, and looked at in the same task (before any answer can come back): every button is disabled at
		// once, so a second click sends nothing, and the chosen one shows as pressed.
		const after = await choices.filter({ hasText: 'Support' }).evaluate((clicked) => {
			(clicked as HTMLButtonElement).click();
			return [...(clicked.parentElement?.querySelectorAll('button') ?? [])].map((b) => [
				b.disabled,
				b.getAttribute('aria-pressed'),
			]);
		});
		expect(after).toEqual([
			[true, null],
			[true, 'true'],
			[true, null],
		]);
		await expect.poll(() => logText(page), { timeout: 15_000 }).toContain('Our support team will write to you.');
		expect(await logText(page)).not.toContain('Our sales team');
		// The answer is the visitor's own message now; the buttons are gone.
		expect(await page.locator('parley-widget .msg.mine').allTextContents()).toEqual(['Hello', 'Support']);
		expect(await choices.count()).toBe(0);
	});
});

describe('a refused answer in the widget', () => {
	it('is told in the bot’s own validation message, verbatim, not in the widget’s words', async () => {
		const { workspaceId, token } = await publishedBot(94, {
			start: 'email',
			steps: [
				{
					id: 'email',
					type: 'data_entry',
					prompt: 'Your e-mail for the quote?',
					input: 'email',
					variable: 'email',
					validation: { message: 'Hmm, that is no e-mail: try name@company.com' },
					next: 'bye',
				},
				{ id: 'bye', type: 'end', message: 'Quote on its way to {{ email }}.' },
			],
		});
		const { page } = await widgetPage(context, workspaceId);
		await page.locator('parley-widget .launcher').click();
		await sendFromWidget(page, 'Hi');
		const email = page.locator('parley-widget .composer input[type=email]');
		await email.waitFor({ timeout: 15_000 });
		await email.fill('ana at example');
		await email.press('Enter');
		await expect
			.poll(() => page.locator('parley-widget .msg.team .body').last().textContent(), { timeout: 15_000 })
			.toBe('Hmm, that is no e-mail: try name@company.com');
		expect(await logText(page)).not.toContain('Enter a valid e-mail address');
		expect(await page.locator('parley-widget .composer .error').count()).toBe(0);
		// The console's view of the conversation holds the same words.
		const [started] = await conversations(token);
		expect(await messageTexts(token, started?.id as string)).toContain('Hmm, that is no e-mail: try name@company.com');
		await email.fill('ana@example.com');
		await email.press('Enter');
		await expect.poll(() => logText(page), { timeout: 15_000 }).toContain('Quote on its way to ana@example.com.');
	});
});
