// A visitor and a closed conversation, in a real Chromium against `wrangler dev`: with the workspace's
// `closedConversationReply` "reopen" (the default) writing reopens it; with "new" the visitor starts another.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import {
	baseUrl,
	browserContexts,
	conversations,
	logText,
	messageTexts,
	putSettings,
	sendFromWidget,
	waitReady,
	widgetPage,
} from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext();
});

/** The visitor starts a conversation in the widget; returns its id once the API lists it. */
async function startConversation(page: Page, token: string, text: string): Promise<string> {
	await page.locator('parley-widget .launcher').click();
	await sendFromWidget(page, text);
	await expect.poll(async () => (await conversations(token)).length, { timeout: 15_000 }).toBe(1);
	return (await conversations(token))[0]?.id as string;
}

/** The team closes the conversation through the API. */
async function closeConversation(token: string, id: string): Promise<void> {
	expect((await api(baseUrl, token, 'PATCH', `/v3/conversations/${id}`, { status: 'closed' })).status).toBe(200);
}

async function statusInApi(token: string, id: string): Promise<string | undefined> {
	return (await conversations(token)).find((c) => c.id === id)?.status;
}

/** After a reload the widget shows no closed conversation by itself: the visitor picks it from the list. */
async function reopenPanelOnClosed(page: Page, earlierText: string, listLabel = 'Your conversations'): Promise<void> {
	await page.reload();
	await waitReady(page);
	await page.locator('parley-widget .launcher').click();
	await page.locator(`parley-widget header button[aria-label="${listLabel}"]`).click();
	await page.locator('parley-widget .list li').nth(1).locator('button').click();
	await expect.poll(() => logText(page)).toContain(earlierText);
}

const composer = (page: Page) => page.locator('parley-widget .composer');
const listItems = (page: Page) => page.locator('parley-widget .list li');

describe('closedConversationReply "reopen" (the default)', () => {
	it('keeps the composer on a closed conversation; the visitor writes and it is open again in the API and the widget', async () => {
		const { workspaceId, token } = workspace(49);
		const { page } = await widgetPage(context, workspaceId);
		const id = await startConversation(page, token, 'My order is late');
		await closeConversation(token, id);
		await reopenPanelOnClosed(page, 'My order is late');
		expect(await logText(page)).toContain('This conversation is closed. Write to reopen it.');
		expect(await composer(page).isVisible()).toBe(true);

		await sendFromWidget(page, 'It arrived, but broken');
		await expect.poll(() => messageTexts(token, id)).toEqual(['My order is late', 'It arrived, but broken']);
		expect(await statusInApi(token, id)).toBe('open');
		// The widget shows it open: the note is gone, the message sent, and the list no longer says closed.
		await expect.poll(() => logText(page)).not.toContain('This conversation is closed.');
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(2);
		await page.locator('parley-widget header button[aria-label="Your conversations"]').click();
		await expect.poll(() => listItems(page).count()).toBe(2);
		expect(await listItems(page).nth(1).textContent()).not.toContain('closed');
		// A new page shows it by itself, as the visitor's latest open conversation.
		await page.reload();
		await waitReady(page);
		await page.locator('parley-widget .launcher').click();
		await expect.poll(() => logText(page)).toContain('It arrived, but broken');
		expect(await logText(page)).not.toContain('This conversation is closed.');
	});

	it('shows it closed again when the team closed it after the message: the Worker has the last word', async () => {
		const { workspaceId, token } = workspace(53);
		const { page } = await widgetPage(context, workspaceId);
		const id = await startConversation(page, token, 'Where is my parcel?');
		await closeConversation(token, id);
		await reopenPanelOnClosed(page, 'Where is my parcel?');
		// The team closes it again once the visitor's message has reopened it, before the widget looks.
		let closedAgain = false;
		await page.route(`${baseUrl}/widget/${workspaceId}/conversations`, async (route) => {
			if (route.request().method() === 'GET' && !closedAgain) {
				await expect.poll(() => statusInApi(token, id)).toBe('open');
				await closeConversation(token, id);
				closedAgain = true;
			}
			await route.continue();
		});
		await sendFromWidget(page, 'Found it, thanks');
		await expect.poll(() => messageTexts(token, id)).toEqual(['Where is my parcel?', 'Found it, thanks']);
		await expect.poll(() => closedAgain).toBe(true);
		await expect.poll(() => logText(page)).toContain('This conversation is closed. Write to reopen it.');
		expect(await statusInApi(token, id)).toBe('closed');
	});

	it('a message written offline on a closed conversation goes out when back online and reopens it (in Portuguese)', async () => {
		const { workspaceId, token } = workspace(50);
		const { page } = await widgetPage(context, workspaceId, { init: { locale: 'pt' } });
		const id = await startConversation(page, token, 'Is the tent waterproof?');
		await closeConversation(token, id);
		await reopenPanelOnClosed(page, 'Is the tent waterproof?', 'Suas conversas');
		expect(await logText(page)).toContain('Esta conversa foi encerrada. Escreva para reabri-la.');
		await context.setOffline(true);
		await sendFromWidget(page, 'And the poles?');
		await expect.poll(() => logText(page)).toContain('Enviando…');
		expect(await messageTexts(token, id)).toEqual(['Is the tent waterproof?']);

		await context.setOffline(false);
		await expect
			.poll(() => messageTexts(token, id), { timeout: 15_000 })
			.toEqual(['Is the tent waterproof?', 'And the poles?']);
		expect(await statusInApi(token, id)).toBe('open');
		await expect.poll(() => logText(page)).not.toContain('Esta conversa foi encerrada.');
		expect(await logText(page)).not.toContain('Enviando…');
	});
});

describe('closedConversationReply "new"', () => {
	it('shows no composer on a closed conversation and starts a new one from its note', async () => {
		const { workspaceId, token } = workspace(51);
		await putSettings(token, { closedConversationReply: 'new' });
		const { page } = await widgetPage(context, workspaceId);
		const id = await startConversation(page, token, 'Do you ship to Portugal?');
		await closeConversation(token, id);
		await reopenPanelOnClosed(page, 'Do you ship to Portugal?');
		expect(await logText(page)).toContain('This conversation is closed.');
		expect(await logText(page)).not.toContain('Write to reopen it.');
		expect(await composer(page).isVisible()).toBe(false);

		await page.locator('parley-widget .note-box button').click();
		await expect.poll(() => composer(page).isVisible()).toBe(true);
		expect(await logText(page)).not.toContain('Do you ship to Portugal?');
		await sendFromWidget(page, 'And to Spain?');
		await expect.poll(async () => (await conversations(token)).length, { timeout: 15_000 }).toBe(2);
		const [newest] = await conversations(token);
		expect(newest?.id).not.toBe(id);
		await expect.poll(() => messageTexts(token, newest?.id as string)).toEqual(['And to Spain?']);
		expect(await messageTexts(token, id)).toEqual(['Do you ship to Portugal?']);
		expect(await statusInApi(token, id)).toBe('closed');
	});

	it('a message refused with 409 (closed while the widget showed it open) moves to a new conversation', async () => {
		const { workspaceId, token } = workspace(52);
		await putSettings(token, { closedConversationReply: 'new' });
		const { page } = await widgetPage(context, workspaceId);
		const id = await startConversation(page, token, 'Hello?');
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(1);
		// The widget still shows it open: the Worker refuses the next message with 409.
		await closeConversation(token, id);
		await sendFromWidget(page, 'Still there?');

		await expect.poll(async () => (await conversations(token)).length, { timeout: 15_000 }).toBe(2);
		const [newest] = await conversations(token);
		expect(newest?.id).not.toBe(id);
		await expect.poll(() => messageTexts(token, newest?.id as string)).toEqual(['Still there?']);
		expect(await messageTexts(token, id)).toEqual(['Hello?']);
		// The widget follows it there: sent, not stuck as "Sending…" nor shown refused.
		await expect.poll(() => logText(page)).not.toContain('Hello?');
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(1);
		expect(await logText(page)).not.toMatch(/Sending…|Not sent/);
		// The list agrees: the new one open, the earlier one closed.
		await page.locator('parley-widget header button[aria-label="Your conversations"]').click();
		await expect.poll(() => listItems(page).count()).toBe(3);
		expect(await listItems(page).nth(1).textContent()).not.toContain('closed');
		expect(await listItems(page).nth(2).textContent()).toContain('This conversation is closed.');
	});
});
