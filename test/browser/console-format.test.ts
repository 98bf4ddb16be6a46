// One message format in Chromium: a visitor's `*bold*` and links shown formatted and clickable (and safe) in
// the console and the widget, the same author labels in the inbox and the thread, `dir="auto"` per message,
// the widget's dark theme (the visitor's color scheme, or forced), and the console's keyboard shortcuts with
// their `?` overlay.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts, conversations, kw, putSettings, sendFromWidget, widgetPage } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

const LONG_URL = `https://docs.example.com/${'very-long-path-segment/'.repeat(8)}guide?ref=chat`;

/** A visitor on the site (its own context) who opened the chat and said `text`; its conversation id. */
async function visitorSays(n: number, text: string, options: Parameters<typeof newContext>[0] = {}) {
	const { page } = await widgetPage(await newContext(options), workspace(n).workspaceId);
	await kw(page, 'open');
	await sendFromWidget(page, text);
	await expect.poll(async () => (await conversations(workspace(n).token)).length, { timeout: 15_000 }).toBe(1);
	const [only] = await conversations(workspace(n).token);
	return { site: page, conversationId: only?.id ?? '' };
}

const attributes = (page: Page, selector: string) =>
	page.locator(selector).evaluate((a) => ({
		href: a.getAttribute('href'),
		target: a.getAttribute('target'),
		rel: a.getAttribute('rel'),
		text: a.textContent,
	}));

describe('one message format', () => {
	it('shows bold, italic and safe links alike in the console and the widget, labels authors alike, and sets dir=auto', async () => {
		const { token } = workspace(143);
		const said = `*Free* shipping? See ${LONG_URL}. And javascript:alert(1) שלום עולם`;
		const { site, conversationId } = await visitorSays(143, said);
		const page = await consolePage(context, 143);

		// The inbox's preview: the text without its markers, no "Operator" where the thread says a name.
		const row = page.getByRole('listbox', { name: 'Conversations' }).getByRole('option').first();
		await expect.poll(() => row.locator('.preview').textContent()).toContain('Free shipping? See https://docs');
		expect(await row.locator('.preview').getAttribute('dir')).toBe('auto');

		await row.click();
		const visitorMessage = page.locator('.message').filter({ hasText: 'shipping?' });
		await expect.poll(() => visitorMessage.locator('.text strong').textContent()).toBe('Free');
		expect(await visitorMessage.locator('.text').getAttribute('dir')).toBe('auto');
		expect(await visitorMessage.locator('.text strong').evaluate((b) => getComputedStyle(b).fontWeight)).toBe('700');
		expect(await attributes(page, `.message .text a`)).toEqual({
			href: LONG_URL,
			target: '_blank',
			rel: 'noopener noreferrer nofollow',
			text: LONG_URL,
		});
		// Only web and mail links: `javascript:` stays text, and the stars are gone from what shows.
		expect(await visitorMessage.locator('.text a').count()).toBe(1);
		expect(await visitorMessage.locator('.text').textContent()).toContain('javascript:alert(1)');
		expect(await visitorMessage.locator('.text').textContent()).not.toContain('*');
		// A long URL wraps inside its bubble rather than widening it.
		const widths = await visitorMessage.evaluate((m) => ({ bubble: m.clientWidth, scroll: m.scrollWidth }));
		expect(widths.scroll).toBeLessThanOrEqual(widths.bubble);

		// The team's reply, formatted, with a mail link; named "Admin" (the seeded operator) in the thread and
		// in the inbox's preview alike.
		await page.getByLabel('Reply', { exact: true }).fill('_Yes_, *free* over $50: write to help@acme.example');
		await page.getByRole('button', { name: 'Send' }).click();
		const reply = page.locator('.message.team').filter({ hasText: 'free over' });
		await expect.poll(() => reply.locator('.meta').textContent()).toMatch(/^Admin · /);
		expect(await reply.locator('.text em').textContent()).toBe('Yes');
		expect(await reply.locator('.text a').getAttribute('href')).toBe('mailto:help@acme.example');
		await expect
			.poll(() => row.locator('.preview').textContent(), { timeout: 15_000 })
			.toMatch(/^Admin: Yes, free over/);

		// The widget: the same tree, by DOM calls.
		const team = site.locator('parley-widget .msg.team').filter({ hasText: 'free over' });
		await expect.poll(() => team.locator('.body em').textContent(), { timeout: 15_000 }).toBe('Yes');
		expect(await team.locator('.body strong').textContent()).toBe('free');
		// Shown bold and italic, not only marked up so (the launcher's reset sets every font to inherit).
		expect(await team.locator('.body strong').evaluate((b) => getComputedStyle(b).fontWeight)).toBe('700');
		expect(await team.locator('.body em').evaluate((i) => getComputedStyle(i).fontStyle)).toBe('italic');
		expect(await team.locator('.body a').getAttribute('href')).toBe('mailto:help@acme.example');
		expect(await team.locator('.body').getAttribute('dir')).toBe('auto');
		const mine = site.locator('parley-widget .msg.mine').filter({ hasText: 'shipping?' });
		expect(await mine.locator('.body strong').textContent()).toBe('Free');
		expect(await attributes(site, 'parley-widget .msg.mine .body a')).toEqual({
			href: LONG_URL,
			target: '_blank',
			rel: 'noopener noreferrer nofollow',
			text: LONG_URL,
		});
		// Right-to-left text in a message reads right to left in both (dir=auto takes its first strong letter).
		await api(baseUrl, token, 'POST', '/v3/messages', { conversationId, text: 'שלום, *תודה* on the order' });
		const hebrew = site.locator('parley-widget .msg.team .body').filter({ hasText: 'on the order' });
		await expect.poll(() => hebrew.evaluate((b) => getComputedStyle(b).direction), { timeout: 15_000 }).toBe('rtl');
		const hebrewThread = page.locator('.message .text').filter({ hasText: 'on the order' });
		await expect.poll(() => hebrewThread.evaluate((b) => getComputedStyle(b).direction)).toBe('rtl');
		expect(await visitorMessage.locator('.text').evaluate((b) => getComputedStyle(b).direction)).toBe('ltr');
	});
});

describe("the widget's dark theme", () => {
	const panelColors = (page: Page) =>
		page
			.locator('parley-widget .panel')
			.evaluate((p) => [getComputedStyle(p).backgroundColor, getComputedStyle(p).color]);
	const DARK = ['rgb(22, 27, 34)', 'rgb(230, 237, 243)'];
	const LIGHT = ['rgb(255, 255, 255)', 'rgb(31, 35, 40)'];

	it('follows the visitor’s prefers-color-scheme, or the theme the workspace forces', async () => {
		const { workspaceId, token } = workspace(144);
		const open = async (colorScheme: 'light' | 'dark') => {
			const { page } = await widgetPage(await newContext({ colorScheme }), workspaceId);
			await kw(page, 'open');
			await page.locator('parley-widget .panel').waitFor();
			return page;
		};
		// auto (the default): the system's scheme.
		expect(await panelColors(await open('dark'))).toEqual(DARK);
		expect(await panelColors(await open('light'))).toEqual(LIGHT);
		// Forced: whatever the system says.
		await putSettings(token, { theme: 'dark' });
		expect(await panelColors(await open('light'))).toEqual(DARK);
		await putSettings(token, { theme: 'light' });
		expect(await panelColors(await open('dark'))).toEqual(LIGHT);
	});
});

describe('keyboard', () => {
	it('n writes a note, x closes, shortcuts never fire while typing, and ? lists them in a dialog that keeps the focus', async () => {
		const { token } = workspace(145);
		const { conversationId } = await visitorSays(145, 'Need help with my order');
		const page = await consolePage(context, 145);
		await page.goto(`${baseUrl}/console/conversations/${conversationId}`);
		await page.locator('.message').first().waitFor();

		await page.keyboard.press('n');
		await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('composer');
		expect(await page.getByRole('radio', { name: 'Private note' }).isChecked()).toBe(true);
		// Typed in the box, j, k, x and ? are letters, not shortcuts.
		await page.keyboard.type('just a note: jkx?');
		await page.keyboard.press('Enter');
		// The stored note (not its "Sending…" copy, which a loaded machine may still show for a moment beside it:
		// a CI run saw both, and the strict locator failed on two; the moment is a known glitch, not this test's).
		const note = page.locator('.message.note:not(.pending)').filter({ hasText: 'just a note: jkx?' });
		await note.waitFor();
		// And the copy goes: once stored, the note is shown once.
		await expect.poll(() => page.locator('.message.note').filter({ hasText: 'just a note: jkx?' }).count()).toBe(1);
		expect(page.url()).toBe(`${baseUrl}/console/conversations/${conversationId}`);
		expect(await page.getByRole('dialog').count()).toBe(0);
		await page.keyboard.press('Escape');
		await page.keyboard.press('r');
		expect(await page.getByRole('radio', { name: 'Reply to the visitor' }).isChecked()).toBe(true);
		await page.keyboard.press('Escape');

		// ? opens the overlay: every shortcut listed, the focus inside it even after many Tabs, Escape closes it.
		await page.keyboard.press('?');
		const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
		await dialog.waitFor();
		const listed = await dialog.locator('dd').allTextContents();
		for (const action of [
			'Next conversation',
			'Previous conversation',
			'Reply',
			'Private note',
			'Assign to me',
			'Search',
		])
			expect(listed).toContain(action);
		expect(listed).toContain('Close or reopen the conversation');
		for (let i = 0; i < 4; i++) {
			await page.keyboard.press('Tab');
			expect(await page.evaluate(() => !!document.activeElement?.closest('dialog[open]'))).toBe(true);
		}
		// While it is open, the page's shortcuts do not fire.
		await page.keyboard.press('x');
		await page.keyboard.press('Escape');
		await expect.poll(() => dialog.count()).toBe(0);
		const status = async () =>
			((await api(baseUrl, token, 'GET', `/v3/conversations/${conversationId}`)).body as { status: string }).status;
		expect(await status()).toBe('open');

		// x closes the conversation.
		await page.keyboard.press('x');
		await expect.poll(status).toBe('closed');
	});
});
