// The console's settings pages in a real Chromium against `wrangler dev`: the widget's settings with the real
// widget previewing them (and a customer's page showing the saved color), an API error in place, business hours,
// inviting a member by link, revoking a session, an outbound webhook with its deliveries, and keyboard-only use.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PNG_1X1 } from '../images';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts, widgetPage } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

/** The launcher's background color, as the browser computes it (`rgb(r, g, b)`). */
function launcherColor(launcher: Locator): Promise<string> {
	return launcher.evaluate((element) => getComputedStyle(element).backgroundColor);
}

async function widgetSettings(token: string) {
	const { status, body } = await api(baseUrl, token, 'GET', '/v3/widget/settings');
	expect(status).toBe(200);
	return body as {
		primaryColor: string;
		businessHours: { enabled: boolean; timeZone: string; weekly: Record<string, unknown>; holidays: string[] };
		periodMessages: Record<string, string>;
	};
}

describe('Settings › Widget', () => {
	it('uploads a logo that the form then shows, refuses an SVG in place, and removes it', async () => {
		const { token } = workspace(76);
		const page = await consolePage(context, 76);
		await page.getByRole('link', { name: 'Widget' }).click();
		const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
		await page.getByLabel('Logo', { exact: true }).setInputFiles({
			name: 'logo.svg',
			mimeType: 'image/svg+xml',
			buffer: Buffer.from(svg),
		});
		await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/PNG|JPEG|type/i);
		expect(((await widgetSettings(token)) as { logoUrl?: string | null }).logoUrl ?? null).toBeNull();

		await page.getByLabel('Logo', { exact: true }).setInputFiles({
			name: 'logo.png',
			mimeType: 'image/png',
			buffer: Buffer.from(PNG_1X1),
		});
		await expect
			.poll(async () => ((await widgetSettings(token)) as { logoUrl?: string | null }).logoUrl)
			.toMatch(/^\/widget\/ws_\w+\/logo\/[0-9a-f]{64}\.png$/);
		const preview = page.locator('.logo-slot img');
		await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
		await page.getByRole('button', { name: 'Remove the logo' }).click();
		await expect.poll(async () => ((await widgetSettings(token)) as { logoUrl?: string | null }).logoUrl).toBeNull();
	});

	it('previews a new primary color live, saves it, and a customer page embedding the widget shows it', async () => {
		const { workspaceId, token } = workspace(67);
		const page = await consolePage(context, 67);
		await page.getByRole('link', { name: 'Widget' }).click();
		const preview = page.frameLocator('iframe[title="Preview of the widget"]').locator('parley-widget .launcher');
		await expect.poll(() => launcherColor(preview)).toBe('rgb(31, 111, 235)');
		// The snippet to paste is the real one.
		expect(await page.locator('pre.snippet').textContent()).toContain(`kw('init',{workspaceId:"${workspaceId}"})`);

		await page.getByLabel('Primary color', { exact: true }).fill('#d6336c');
		// Unsaved, the preview already follows.
		await expect.poll(() => launcherColor(preview)).toBe('rgb(214, 51, 108)');
		expect((await widgetSettings(token)).primaryColor).toBe('#1f6feb');
		await page.getByRole('button', { name: 'Save changes' }).click();
		await page.getByText('All changes saved.').waitFor();
		expect((await widgetSettings(token)).primaryColor).toBe('#d6336c');
		// The preview reloads with the saved settings, and keeps the color.
		await expect.poll(() => launcherColor(preview)).toBe('rgb(214, 51, 108)');

		const customer = await widgetPage(await newContext(), workspaceId);
		await expect.poll(() => launcherColor(customer.page.locator('parley-widget .launcher'))).toBe('rgb(214, 51, 108)');
	});

	it('serves the preview page to a signed-in member of that workspace only, framed by its own origin, not for search engines', async () => {
		const preview = (n: number) => `${baseUrl}/console/preview?workspaceId=${workspace(n).workspaceId}`;
		// Nobody signed in: the page would run the workspace's live chat on the console's origin.
		expect((await fetch(preview(67))).status).toBe(401);
		const page = await consolePage(context, 67);
		const response = await page.request.get(preview(67));
		expect(response.status()).toBe(200);
		expect(response.headers()['x-frame-options']).toBe('SAMEORIGIN');
		expect(response.headers()['x-robots-tag']).toBe('noindex');
		expect(response.headers()['content-security-policy']).toContain("frame-ancestors 'self'");
		// Signed in, but to another workspace.
		expect((await page.request.get(preview(68))).status()).toBe(403);
		expect((await fetch(`${baseUrl}/console/preview?workspaceId=<x>`)).status).toBe(400);
		// The console itself may frame only its own origin's pages, and nobody may frame it.
		const console = await fetch(`${baseUrl}/console/settings/widget`);
		expect(console.headers.get('Content-Security-Policy')).toMatch(/frame-src 'self'.*frame-ancestors 'none'/);
	});

	it('shows the API’s 422 message in place for an invalid hex color, and saves nothing', async () => {
		const { token } = workspace(68);
		const page = await consolePage(context, 68);
		await page.goto(`${baseUrl}/console/settings/widget`);
		const field = page.getByLabel('Primary color', { exact: true });
		await field.fill('#12345z');
		await page.getByRole('button', { name: 'Save changes' }).click();
		await expect
			.poll(() => page.getByRole('alert').textContent())
			.toContain('json.primaryColor: must be a hex color such as #1f6feb');
		// Under the field too, tied to it.
		expect(await field.getAttribute('aria-invalid')).toBe('true');
		const problem = await field.getAttribute('aria-describedby');
		expect(await page.locator(`#${problem}`).textContent()).toBe('must be a hex color such as #1f6feb');
		expect((await widgetSettings(token)).primaryColor).toBe('#1f6feb');
		// Corrected, it saves.
		await field.fill('#2b8a3e');
		await page.getByRole('button', { name: 'Save changes' }).click();
		await page.getByText('All changes saved.').waitFor();
		expect((await widgetSettings(token)).primaryColor).toBe('#2b8a3e');
	});
});

describe('Settings › Business hours', () => {
	it('saves a split-shift schedule, time zone, holiday and a period message, and reads them back', async () => {
		const { token } = workspace(69);
		const page = await consolePage(context, 69);
		await page.getByRole('link', { name: 'Business hours' }).click();
		await page.getByRole('switch', { name: /Consider business hours/ }).check();
		await page.getByLabel('Time zone').selectOption('America/Sao_Paulo');
		// Monday: 09:00–12:00 and 13:00–18:00.
		await page.getByLabel('Monday, period 1: closes').fill('12:00');
		await page.getByRole('button', { name: 'Add a period to Monday' }).click();
		await page.getByLabel('Monday, period 2: opens').fill('13:00');
		await page.getByLabel('Monday, period 2: closes').fill('18:00');
		// Saturday morning, and Friday closed.
		await page.getByRole('button', { name: 'Add a period to Saturday' }).click();
		await page.getByLabel('Saturday, period 1: closes').fill('12:00');
		await page.getByRole('button', { name: 'Remove Friday period 1' }).click();
		await page.getByLabel('Holiday date').fill('2026-12-25');
		await page.getByRole('button', { name: 'Add holiday' }).click();
		await page.getByLabel('Out of hours').fill('Back at 9, promise.');
		await page.getByRole('button', { name: 'Save changes' }).click();
		await page.getByText('All changes saved.').waitFor();

		const { businessHours, periodMessages } = await widgetSettings(token);
		expect(businessHours).toEqual({
			enabled: true,
			timeZone: 'America/Sao_Paulo',
			weekly: {
				mon: [
					{ start: '09:00', end: '12:00' },
					{ start: '13:00', end: '18:00' },
				],
				tue: [{ start: '09:00', end: '18:00' }],
				wed: [{ start: '09:00', end: '18:00' }],
				thu: [{ start: '09:00', end: '18:00' }],
				fri: [],
				sat: [{ start: '09:00', end: '12:00' }],
				sun: [],
			},
			holidays: ['2026-12-25'],
		});
		expect(periodMessages.outOfHours).toBe('Back at 9, promise.');

		await page.reload();
		expect(await page.getByLabel('Time zone').inputValue()).toBe('America/Sao_Paulo');
		expect(await page.getByLabel('Monday, period 2: opens').inputValue()).toBe('13:00');
		expect(await page.getByLabel('Out of hours').inputValue()).toBe('Back at 9, promise.');
		expect(await page.getByRole('list', { name: 'Holidays' }).textContent()).toContain('2026');
		await expect.poll(() => page.getByTestId('availability').textContent()).toMatch(/(Open|Closed) now/);
	});
});

describe('Settings › Team', () => {
	it('invites a member: the one-time link sets a password and signs them in', async () => {
		const page = await consolePage(context, 70);
		await page.getByRole('link', { name: 'Team' }).click();
		const invite = page.getByRole('region', { name: 'Invite a member' });
		await invite.getByLabel('Name').fill('Grace Hopper');
		await invite.getByLabel('E-mail').fill('grace@e2e-70.local');
		await invite.getByRole('button', { name: 'Invite and get the link' }).click();
		const link = (await page.getByTestId('invite-link').textContent()) ?? '';
		expect(link).toMatch(new RegExp(`^${baseUrl}/console/set-password#token=`));
		await expect.poll(() => page.getByRole('list', { name: 'Members' }).textContent()).toContain('Grace Hopper');

		const invited = await (await newContext()).newPage();
		await invited.goto(link);
		await invited.getByLabel('Password').fill('a long enough password');
		await invited.getByRole('button', { name: 'Save and sign in' }).click();
		await invited.getByRole('link', { name: 'Inbox' }).waitFor();
		expect(await invited.locator('.who').textContent()).toContain('Grace Hopper');
		// Not an admin: no settings.
		expect(await invited.getByRole('link', { name: 'Team' }).count()).toBe(0);
	});

	it('revokes another browser’s session: that browser is signed out at its next request', async () => {
		const page = await consolePage(context, 71);
		const other = await consolePage(await newContext(), 71);
		await page.goto(`${baseUrl}/console/settings/team`);
		await page.getByRole('button', { name: 'Manage Admin' }).click();
		const sessions = page.getByTestId('session');
		await expect.poll(() => sessions.count()).toBe(2);
		await sessions.filter({ hasNotText: 'this browser' }).getByRole('button', { name: 'Revoke' }).click();
		await expect.poll(() => sessions.count()).toBe(1);
		expect(await sessions.textContent()).toContain('this browser');
		await other.reload();
		await other.getByRole('button', { name: 'Sign in' }).waitFor();
	});
});

describe('Settings › Webhooks', () => {
	let server: Server;
	let receiver = '';
	const received: string[] = [];
	const held: (() => void)[] = [];
	beforeAll(async () => {
		server = createServer((req, res) => {
			received.push(String(req.headers['webhook-id']));
			req.resume();
			// `/slow` answers only when the test lets it (`held`), to hold a try open.
			const answer = () => res.writeHead(200).end('ok');
			req.on('end', () => (req.url === '/slow' ? held.push(answer) : answer()));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}/parley`;
	});
	afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

	it('creates an endpoint (its secret shown once), lists its deliveries by status, and re-sends one', async () => {
		const { token } = workspace(72);
		const page = await consolePage(context, 72);
		await page.getByRole('link', { name: 'Webhooks' }).click();
		await page.getByLabel('URL (https)').fill(receiver);
		await page.getByLabel('tag.created').check();
		await page.getByRole('button', { name: 'Add endpoint' }).click();
		expect(await page.getByTestId('webhook-secret').textContent()).toMatch(/^whsec_/);
		await page.getByTestId('endpoint').getByText(receiver).waitFor();

		expect((await api(baseUrl, token, 'POST', '/v3/tags', { name: 'vip' })).status).toBe(201);
		await page.getByRole('button', { name: 'Deliveries' }).click();
		const rows = page.getByTestId('delivery');
		/**
		 * The first row's text once it matches `wanted`, refreshing the list only while it does not: a row's last
		 * answer loads after the row (showing "…" meanwhile), and a refresh before every read could keep a loaded
		 * machine from ever seeing it (a CI run read "Delivered" and "…" until the poll gave up).
		 */
		const firstRowOnceIt = async (wanted: RegExp) => {
			const text = (await rows.count()) > 0 ? ((await rows.first().textContent()) ?? '') : '';
			if (!wanted.test(text)) await page.getByRole('button', { name: 'Refresh' }).click();
			return text;
		};
		const delivered = /tag\.created.*Delivered.*1.*200/;
		await expect.poll(() => firstRowOnceIt(delivered), { timeout: 20_000 }).toMatch(delivered);
		await page.getByLabel('Show deliveries').selectOption('failed');
		await page.getByText('No deliveries yet.').waitFor();
		await page.getByLabel('Show deliveries').selectOption('succeeded');
		await expect.poll(() => rows.count()).toBe(1);

		await rows
			.first()
			.getByRole('button', { name: /^Re-send tag\.created/ })
			.click();
		await expect.poll(() => received.length, { timeout: 20_000 }).toBe(2);
		expect(received[1]).toBe(received[0]);
		const resent = /Delivered.*2.*200/;
		await expect.poll(() => firstRowOnceIt(resent)).toMatch(resent);
	});

	it("shows a try's answer once it has one, though the list first showed the try on its way", async () => {
		const { token } = workspace(199);
		const slow = receiver.replace(/\/parley$/, '/slow');
		const made = await api(baseUrl, token, 'POST', '/v3/webhooks', { url: slow, events: ['tag.created'] });
		expect(made.status).toBe(201);
		const page = await consolePage(context, 199);
		await page.getByRole('link', { name: 'Webhooks' }).click();
		await page.getByTestId('endpoint').getByText(slow).waitFor();
		const before = held.length;
		expect((await api(baseUrl, token, 'POST', '/v3/tags', { name: 'slow' })).status).toBe(201);
		// The try has started (it is counted) and waits for its answer: the console reads the delivery now.
		await expect.poll(() => held.length, { timeout: 20_000 }).toBe(before + 1);
		const detailRead = page.waitForResponse((response) => /\/deliveries\/dlv_/.test(response.url()));
		await page.getByRole('button', { name: 'Deliveries' }).click();
		const row = page.getByTestId('delivery').first();
		await expect.poll(() => row.textContent()).toMatch(/tag\.created.*Pending.*1.*…/);
		// The row's detail was read while the try had no answer yet; only then does the receiver answer.
		expect(((await (await detailRead).json()) as { attemptLog: unknown[] }).attemptLog).toEqual([]);
		held.at(-1)?.();
		// The list reads itself again every 10 s; the row's answer follows once the try is settled.
		await expect.poll(() => row.textContent(), { timeout: 25_000 }).toMatch(/Delivered.*1.*200/);
	});
});

/** Presses Tab until `target` has the focus (at most 40 times); each stop must show a visible focus. */
async function tabTo(page: Page, target: Locator) {
	for (let i = 0; i < 40; i++) {
		if (await target.evaluate((e) => e === document.activeElement)) return;
		await page.keyboard.press('Tab');
		expect(await page.evaluate(() => document.activeElement?.matches(':focus-visible'))).toBe(true);
	}
	throw new Error('Tab never reached the field');
}

describe('keyboard', () => {
	it('fills and saves the widget form from the keyboard alone', async () => {
		const { token } = workspace(73);
		const page = await consolePage(context, 73);
		await page.goto(`${baseUrl}/console/settings/widget`);
		const name = page.getByLabel('Display name');
		await name.waitFor();
		await tabTo(page, name);
		await page.keyboard.press('Control+A');
		await page.keyboard.type('Acme Help');
		// The position's radio buttons: Tab enters the group at the checked one, an arrow moves the choice.
		await tabTo(page, page.getByRole('radio', { name: 'Bottom right' }));
		await page.keyboard.press('ArrowLeft');
		expect(await page.getByRole('radio', { name: 'Bottom left' }).isChecked()).toBe(true);
		await tabTo(page, page.getByLabel('Call to action'));
		await page.keyboard.press('Control+A');
		await page.keyboard.type('Talk to us');
		// Enter in a text field submits the form.
		await page.keyboard.press('Enter');
		await page.getByText('All changes saved.').waitFor();
		const { body } = await api(baseUrl, token, 'GET', '/v3/widget/settings');
		expect(body).toMatchObject({ displayName: 'Acme Help', position: 'left', ctaText: 'Talk to us' });
	});
});
