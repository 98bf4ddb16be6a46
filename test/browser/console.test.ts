// The operator console in a real Chromium against `wrangler dev`: signing in, the live inbox with a visitor on
// the widget in another page, the conversation's actions, keyboard-only use, and the API page.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { consolePage, signIn } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts, conversations, kw, logText, sendFromWidget, widgetPage } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

/** A visitor on the customer's site (its own browser context) who has sent `text`, and its conversation id. */
async function visitorSays(n: number, text: string) {
	const visitorContext = await newContext();
	const { page } = await widgetPage(visitorContext, workspace(n).workspaceId);
	await kw(page, 'open');
	await sendFromWidget(page, text);
	await expect
		.poll(async () => (await conversations(workspace(n).token)).length, { timeout: 15_000 })
		.toBeGreaterThan(0);
	const [latest] = await conversations(workspace(n).token);
	return { visitor: page, conversationId: latest?.id ?? '' };
}

/** One more failed sign-in for `email`, sent as the console sends it; a try refused for the back-off waits it out. */
async function failSignIn(email: string): Promise<void> {
	for (;;) {
		const answer = await fetch(`${baseUrl}/v3/auth/sign-in`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', Origin: baseUrl },
			body: JSON.stringify({ email, password: 'still not the password' }),
		});
		if (answer.status === 401) return;
		expect(answer.status, await answer.text()).toBe(429);
		await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after')) * 1000));
	}
}

/** The rows of the inbox's conversation list. */
function conversationRows(page: Page) {
	return page.getByRole('listbox', { name: 'Conversations' }).getByRole('option');
}

describe('signing in', () => {
	it('refuses a wrong password in place, then signs in and lands on the inbox', async () => {
		const { email, password } = workspace(61);
		const page = await context.newPage();
		await signIn(page, email, 'not the password at all');
		await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong e-mail or password.');
		await page.getByLabel('Password').fill(password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.getByRole('link', { name: 'Inbox' }).waitFor();
		const cookies = await context.cookies(baseUrl);
		expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([['__Host-parley_session', true, 'Lax']]);
		// A reload keeps the session, and its first read carries the D1 bookmark sign-in answered with (kept in
		// localStorage), so a read replica cannot answer it from before the session existed; signing out ends
		// both.
		const sessionRead = page.waitForRequest((r) => r.url().endsWith('/v3/auth/session') && r.method() === 'GET');
		await page.reload();
		expect((await sessionRead).headers()['x-d1-bookmark']).toMatch(/^[0-9a-f]+(-[0-9a-f]+)+$/);
		await page.getByRole('button', { name: 'Sign out' }).click();
		await page.getByRole('button', { name: 'Sign in' }).waitFor();
		expect(await page.evaluate(() => localStorage.getItem('parley.d1Bookmark'))).toBeNull();
	});

	it('slows down repeated failures: a try within the back-off is refused before the password is checked', async () => {
		const { email, password } = workspace(62);
		const page = await context.newPage();
		for (let i = 0; i < 4; i++) {
			await signIn(page, email, `wrong password ${i}`);
			await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong e-mail or password.');
		}
		// Four failures cost nothing; the fifth try must wait 1 s after the fourth, then the waits double. A page
		// that takes over a second to send its next try (a loaded machine) would find the wait over, so three more
		// failures are sent as the console sends them, each after the refusal's Retry-After: the next try must
		// wait 8 s.
		for (let i = 0; i < 3; i++) await failSignIn(email);
		await page.getByLabel('Password').fill(password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await expect
			.poll(() => page.getByRole('alert').textContent())
			.toMatch(/Too many failed sign-ins: try again in \d+ s\./);
		// The right password was not even checked: the console is still on the sign-in form.
		expect(await page.getByRole('link', { name: 'Inbox' }).count()).toBe(0);
		// Eight sign-ins, each a deliberate password hash, and the back-off's waits: beside the whole suite on two
		// cores, over a minute.
	}, 150_000);
});

describe('the inbox', () => {
	it('shows a visitor’s message live, and the reply reaches the widget on the other page, which reads it', async () => {
		const page = await consolePage(context, 63);
		const { visitor, conversationId } = await visitorSays(63, 'Is the Ridge 2 tent in stock?');
		const row = conversationRows(page).first();
		await row.click();
		await expect.poll(() => page.url()).toBe(`${baseUrl}/console/conversations/${conversationId}`);
		const messages = page.locator('.messages');
		await expect.poll(() => messages.textContent()).toContain('Is the Ridge 2 tent in stock?');
		await visitor.bringToFront();
		await sendFromWidget(visitor, 'Size L please');
		await expect.poll(() => messages.textContent(), { timeout: 15_000 }).toContain('Size L please');
		await page.getByLabel('Reply', { exact: true }).fill('Yes, in green and orange.');
		await page.getByRole('button', { name: 'Send' }).click();
		await expect.poll(() => logText(visitor), { timeout: 15_000 }).toContain('Yes, in green and orange.');
		await expect.poll(() => page.locator('.message.pending').count()).toBe(0);
		// The open widget reads it: the console marks the team's last message seen.
		await expect
			.poll(() => page.locator('.message.team', { hasText: 'Yes, in green and orange.' }).textContent())
			.toContain('Seen by the visitor');
	});

	it('keeps a private note from the visitor, names a colleague in it with @, and fills in a saved reply typed as /shortcut', async () => {
		const { token } = workspace(80);
		const saved = await api(baseUrl, token, 'POST', '/v3/canned-replies', {
			shortcut: 'sizes',
			text: 'Hi {{ contact.name | default: "there" }}, our sizes run large: take one smaller.',
		});
		expect(saved.status).toBe(201);
		const colleague = await api(baseUrl, token, 'POST', '/v3/team/members', {
			email: 'maria@e2e-80.local',
			name: 'Maria Lopes',
			permissions: ['conversations:read', 'messages:send'],
		});
		expect(colleague.status).toBe(201);
		const page = await consolePage(context, 80);
		const { visitor, conversationId } = await visitorSays(80, 'Which size should I take?');
		await page.goto(`${baseUrl}/console/conversations/${conversationId}`);
		const messages = page.locator('.messages');
		await expect.poll(() => messages.textContent()).toContain('Which size should I take?');

		await page.getByLabel('Private note').check();
		const noteBox = page.getByLabel('Note for the team');
		// `@` and the start of a name offer the members it matches; Enter takes the one shown.
		await noteBox.pressSequentially('Returning customer: offer free exchange. @lop');
		await page.getByRole('option', { name: '@"Maria Lopes"' }).waitFor();
		await noteBox.press('Enter');
		await noteBox.pressSequentially('agrees.');
		expect(await noteBox.inputValue()).toBe('Returning customer: offer free exchange. @"Maria Lopes" agrees.');
		await page.getByRole('button', { name: 'Add note' }).click();
		await expect.poll(() => page.locator('.message.note:not(.pending)').textContent()).toContain('free exchange');

		await page.getByLabel('Reply to the visitor').check();
		const composer = page.getByLabel('Reply', { exact: true });
		await composer.fill('/siz');
		await page.getByRole('option', { name: /\/sizes/ }).waitFor();
		await composer.press('Enter');
		await expect.poll(() => composer.inputValue()).toBe('Hi there, our sizes run large: take one smaller.');
		await composer.press('Enter');
		// The reply comes after the note in the conversation: once the widget shows it, the note would have come first.
		await expect.poll(() => logText(visitor), { timeout: 15_000 }).toContain('our sizes run large');
		expect(await logText(visitor)).not.toContain('free exchange');
		const stored = (await api(baseUrl, token, 'GET', `/v3/conversations/${conversationId}/messages`)).body as {
			data: { text: string; private: boolean }[];
		};
		expect(stored.data.filter((m) => m.private).map((m) => m.text)).toEqual([
			'Returning customer: offer free exchange. @"Maria Lopes" agrees.',
		]);
	});

	it('assigns to me, closes and reopens, each seen by the API', async () => {
		const page = await consolePage(context, 64);
		const { conversationId } = await visitorSays(64, 'Hello there');
		const { token, operatorId } = workspace(64);
		await page.goto(`${baseUrl}/console/conversations/${conversationId}`);
		const state = async () => {
			const { body } = await api(baseUrl, token, 'GET', `/v3/conversations/${conversationId}`);
			const { status, assigneeId } = body as { status: string; assigneeId: string | null };
			return `${status} ${assigneeId}`;
		};
		await page.getByRole('button', { name: 'Assign to me' }).click();
		await expect.poll(state).toBe(`open ${operatorId}`);
		await page.getByRole('button', { name: 'Close', exact: true }).click();
		await expect.poll(state).toBe(`closed ${operatorId}`);
		await page.getByRole('button', { name: 'Reopen' }).click();
		await expect.poll(state).toBe(`open ${operatorId}`);
	});

	it('works from the keyboard alone: next conversation, assign, reply, close', async () => {
		const page = await consolePage(context, 65);
		await visitorSays(65, 'first visitor');
		await visitorSays(65, 'second visitor');
		const { token, operatorId } = workspace(65);
		await page.bringToFront();
		await expect.poll(() => conversationRows(page).count(), { timeout: 15_000 }).toBe(2);
		await page.keyboard.press('j');
		await expect.poll(() => page.url()).toContain('/console/conversations/');
		const id = page.url().split('/').at(-1) ?? '';
		// The conversation is on screen (its shortcuts listen from then on).
		await expect.poll(() => page.locator('.messages').textContent()).toMatch(/visitor/);
		await page.keyboard.press('a');
		await expect
			.poll(async () => {
				const { body } = await api(baseUrl, token, 'GET', `/v3/conversations/${id}`);
				return (body as { assigneeId: string | null }).assigneeId;
			})
			.toBe(operatorId);
		await page.keyboard.press('r');
		await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('composer');
		await page.keyboard.type('Typed without a mouse');
		await page.keyboard.press('Enter');
		await expect
			.poll(async () => {
				const { body } = await api(baseUrl, token, 'GET', `/v3/conversations/${id}/messages`);
				return (body as { data: { text: string }[] }).data.map((m) => m.text);
			})
			.toContain('Typed without a mouse');
		// Escape leaves the composer, so the next keys are shortcuts again.
		await page.keyboard.press('Escape');
		await page.keyboard.press('x');
		await expect
			.poll(async () => {
				const { body } = await api(baseUrl, token, 'GET', `/v3/conversations/${id}`);
				const { status, assigneeId } = body as { status: string; assigneeId: string };
				return `${status} ${assigneeId}`;
			})
			.toBe(`closed ${operatorId}`);
		await page.keyboard.press('j');
		await expect.poll(() => page.url()).not.toContain(id);
	});
});

describe('Integrations > API', () => {
	// The log reaches D1 through a Queue batch a few seconds after each request: this test waits for two of them.
	it('regenerates the token: the old one is refused, and the API log, filtered, shows the calls', {
		timeout: 120_000,
	}, async () => {
		const { token } = workspace(66);
		const page = await consolePage(context, 66);
		expect((await api(baseUrl, token, 'GET', '/v3/me')).status).toBe(200);
		await page.getByRole('link', { name: 'API' }).click();
		page.once('dialog', (dialog) => dialog.accept());
		await page.getByRole('button', { name: 'Regenerate token' }).click();
		const issued = (await page.getByTestId('issued-token').textContent()) ?? '';
		expect(issued).toMatch(/^prly_/);
		expect((await api(baseUrl, token, 'GET', '/v3/me')).status).toBe(401);
		expect((await api(baseUrl, issued, 'GET', '/v3/me')).status).toBe(200);
		// The log is written a few seconds after each request, and this page's own reloads add to it: each look
		// narrows it with the page's filters, as an admin would.
		const logWhere = async (filter: string, value: string) => {
			await page.reload();
			await page.getByLabel(filter).selectOption(value);
			// Rows, or the word that there are none yet (then the next look reloads).
			await page.locator('tbody tr').or(page.getByText('No requests yet.')).first().waitFor();
			return page.locator('table').textContent();
		};
		await expect
			.poll(() => logWhere('Method', 'POST'), { timeout: 20_000 })
			.toMatch(/POST \/v3\/tokens\/regenerate.*201/s);
		await expect
			.poll(() => logWhere('Credential', 'token'), { timeout: 20_000 })
			.toContain(`prly_…${issued.slice(-4)}`);
	});
});
