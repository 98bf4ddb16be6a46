// The widget's capabilities from its settings: business hours and offline mode (clock set by the test), the
// messaging-app bubble, the pre-chat form, what bots ask, languages, small screens, and resilience when the
// service is away or the socket drops.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import {
	baseUrl,
	browserContexts,
	conversation,
	conversations,
	defineContactFields,
	kw,
	logText,
	messageTexts,
	putSettings,
	sendFromWidget,
	waitReady,
	widgetPage,
} from './widget-page';

const newContext = browserContexts();

const open = async (page: Page) => {
	await kw(page, 'open');
	await page.locator('parley-widget .panel').waitFor({ state: 'visible' });
};

async function onlyConversation(token: string) {
	await expect.poll(async () => (await conversations(token)).length, { timeout: 15_000 }).toBe(1);
	return (await conversations(token))[0] as { id: string };
}

const workingDay = [
	{ start: '09:00', end: '12:00' },
	{ start: '13:00', end: '18:00' },
];
const schedule = {
	businessHours: {
		enabled: true,
		timeZone: 'America/Sao_Paulo',
		weekly: { mon: workingDay, tue: workingDay, wed: workingDay, thu: workingDay, fri: workingDay, sat: [], sun: [] },
		holidays: ['2026-12-25'],
	},
	periodMessages: {
		inHours: 'We answer within minutes.',
		outOfHours: 'We are closed now; we open at 9.',
		weekend: 'Back on Monday!',
		holiday: 'Merry Christmas! We are back on the 28th.',
	},
};

describe('business hours', () => {
	it('offline at the weekend: the launcher says away and the chat asks for an e-mail to answer to', async () => {
		const { workspaceId, token } = workspace(16);
		await putSettings(token, schedule);
		const context = await newContext();
		// Saturday 21 November 2026, noon in São Paulo.
		await context.clock.setFixedTime(new Date('2026-11-21T15:00:00Z'));
		const { page } = await widgetPage(context, workspaceId);
		const launcher = page.locator('parley-widget .launcher');
		expect(await launcher.getAttribute('aria-label')).toBe('Chat with Support, Away');
		expect(await page.locator('parley-widget .launcher .dot.away').count()).toBe(1);
		await open(page);
		expect(await page.locator('parley-widget header p').textContent()).toBe('Back on Monday!');
		expect(await logText(page)).toContain('Leave us a message');
		await sendFromWidget(page, 'Do you have size 44?');
		expect(await page.locator('parley-widget .error').first().textContent()).toBe('Required');
		expect(await conversations(token)).toEqual([]);
		await page.locator('parley-widget input[name=email]').fill('buyer@example.com');
		await sendFromWidget(page, 'Do you have size 44?');
		const { id } = await onlyConversation(token);
		await expect.poll(() => logText(page)).toContain('We got your message and will reply by e-mail');
		expect((await conversation(token, id)).contact.claimedEmail).toBe('buyer@example.com');
	});

	it('online inside a split shift, offline in its lunch gap and on a holiday', async () => {
		const { workspaceId, token } = workspace(16);
		await putSettings(token, schedule);
		const cases: [string, string, string][] = [
			['2026-11-25T13:30:00Z', 'Online', 'We answer within minutes.'], // Wednesday 10:30 local
			['2026-11-25T15:30:00Z', 'Away', 'We are closed now; we open at 9.'], // Wednesday 12:30, the lunch gap
			['2026-12-25T13:30:00Z', 'Away', 'Merry Christmas! We are back on the 28th.'], // a Friday, a holiday
		];
		for (const [at, state, message] of cases) {
			const context = await newContext();
			await context.clock.setFixedTime(new Date(at));
			const { page } = await widgetPage(context, workspaceId);
			expect(await page.locator('parley-widget .launcher').getAttribute('aria-label')).toBe(
				`Chat with Support, ${state}`,
			);
			await open(page);
			expect(await page.locator('parley-widget header p').textContent()).toBe(message);
			expect(await page.locator('parley-widget input[name=email]').count()).toBe(state === 'Online' ? 0 : 1);
		}
	});
});

describe('the messaging-app bubble', () => {
	it('offers the app with the pre-filled text and a reference that keeps the campaign', async () => {
		const { workspaceId, token } = workspace(17);
		await putSettings(token, {
			messagingBubble: { enabled: true, phoneNumber: '+5511999998888', prefilledMessage: 'Hi! I saw your ad' },
		});
		const context = await newContext();
		await context.route('https://wa.me/**', (route) => route.fulfill({ contentType: 'text/html', body: 'app' }));
		const { page } = await widgetPage(context, workspaceId, {
			url: 'http://localhost:4510/?utm_source=google&utm_campaign=spring&gclid=Cj0-bubble',
		});
		await page.locator('parley-widget .launcher').click();
		const link = page.locator('parley-widget .menu a');
		await link.waitFor();
		const href = (await link.getAttribute('href')) ?? '';
		const ref = /^https:\/\/wa\.me\/5511999998888\?text=Hi!%20I%20saw%20your%20ad%20\(ref%20([0-9A-Z]{8})\)$/.exec(
			href,
		)?.[1];
		expect(ref, href).toBeDefined();
		const [app] = await Promise.all([context.waitForEvent('page'), link.click()]);
		await app.close();
		await expect.poll(async () => (await api(baseUrl, token, 'GET', `/v3/widget/handoffs/${ref}`)).status).toBe(200);
		const { body } = await api(baseUrl, token, 'GET', `/v3/widget/handoffs/${ref}`);
		expect(body).toMatchObject({
			ref,
			channel: 'whatsapp',
			origin: { utmSource: 'google', utmCampaign: 'spring', gclid: 'Cj0-bubble' },
		});
		// The other choice opens the chat here.
		await page.locator('parley-widget .launcher').click();
		await page.locator('parley-widget .menu button').click();
		await page.locator('parley-widget .panel').waitFor({ state: 'visible' });
	});
});

describe('the pre-chat form', () => {
	it('asks the required and custom fields, checks them in the browser, and the contact gets them', async () => {
		const { workspaceId, token } = workspace(18);
		await defineContactFields(token, { topic: ['Sales', 'Support'] });
		await putSettings(token, {
			requiredFields: ['name', 'email'],
			customFields: [{ name: 'topic', label: 'Topic', type: 'select', options: ['Sales', 'Support'], required: true }],
		});
		const context = await newContext();
		const { page } = await widgetPage(context, workspaceId);
		await open(page);
		await sendFromWidget(page, 'My order is late');
		expect(await page.locator('parley-widget .fields .error').allTextContents()).toEqual([
			'Required',
			'Required',
			'Required',
		]);
		await page.locator('parley-widget input[name=name]').fill('Bea');
		await page.locator('parley-widget input[name=email]').fill('bea@');
		await page.locator('parley-widget select[name=topic]').selectOption('Support');
		await sendFromWidget(page, 'My order is late');
		expect(await page.locator('parley-widget input[name=email]').getAttribute('aria-invalid')).toBe('true');
		expect(await conversations(token)).toEqual([]);
		await page.locator('parley-widget input[name=email]').fill('bea@example.com');
		await sendFromWidget(page, 'My order is late');
		const { id } = await onlyConversation(token);
		expect((await conversation(token, id)).contact).toMatchObject({
			name: 'Bea',
			claimedEmail: 'bea@example.com',
			customFields: { topic: 'Support' },
		});
		await expect.poll(() => page.locator('parley-widget .fields').count()).toBe(0);
	});

	it("kw('config') adds fields to the workspace's; what identify told is not asked again; the start goes through", async () => {
		const { workspaceId, token } = workspace(19);
		await defineContactFields(token, { orderId: 'text' });
		await putSettings(token, { requiredFields: ['email'] });
		const context = await newContext();
		const { page } = await widgetPage(context, workspaceId, {
			script: `kw('config',{requiredFields:['name','phone'],customFields:[{name:'orderId',label:'Order',type:'text',required:false}]});
				kw('identify',{name:'Caio'});`,
		});
		await open(page);
		const inputs = page.locator('parley-widget .fields input');
		await expect
			.poll(() => inputs.evaluateAll((all) => all.map((i) => (i as HTMLInputElement).name)))
			.toEqual(['email', 'phone', 'orderId']);
		await inputs.nth(0).fill('caio@example.com');
		await inputs.nth(1).fill('+55 11 99999-8888');
		await inputs.nth(2).fill('A-1001');
		await sendFromWidget(page, 'About my order');
		const { id } = await onlyConversation(token);
		expect((await conversation(token, id)).contact).toMatchObject({
			name: 'Caio',
			claimedEmail: 'caio@example.com',
			customFields: { orderId: 'A-1001' },
		});
	});
});

describe('what a bot asks', () => {
	it('renders quick replies, typed prompts and a rating, and sends the answers as messages', async () => {
		const { workspaceId, token } = workspace(20);
		const context = await newContext();
		const { page } = await widgetPage(context, workspaceId);
		await open(page);
		await sendFromWidget(page, 'Hi');
		const { id } = await onlyConversation(token);
		const ask = (body: object) => api(baseUrl, token, 'POST', '/v3/messages', { conversationId: id, ...body });

		await ask({
			text: 'Who do you want?',
			interactive: { type: 'buttons', buttons: [{ label: 'Sales' }, { label: 'Support' }] },
		});
		const choices = page.locator('parley-widget .choices button');
		await expect.poll(() => choices.allTextContents()).toEqual(['Sales', 'Support']);
		await choices.nth(1).click();
		await expect.poll(() => messageTexts(token, id)).toEqual(['Hi', 'Who do you want?', 'Support']);
		await expect.poll(() => choices.count()).toBe(0);

		await ask({ text: 'Your e-mail?', interactive: { type: 'input', input: 'email', placeholder: 'you@example.com' } });
		const field = page.locator('parley-widget .composer input[type=email]');
		await field.waitFor();
		expect(await field.getAttribute('placeholder')).toBe('you@example.com');
		await sendFromWidget(page, 'not-an-email');
		expect(await page.locator('parley-widget .composer .error').textContent()).toBe('Enter a valid e-mail address');
		await sendFromWidget(page, 'me@example.com');
		await expect.poll(async () => (await messageTexts(token, id)).at(-1)).toBe('me@example.com');

		await ask({ text: 'How did we do?', interactive: { type: 'rating', max: 5 } });
		const stars = page.locator('parley-widget .choices button');
		await expect.poll(() => stars.count()).toBe(5);
		expect(await stars.nth(3).getAttribute('aria-label')).toBe('Rate 4 out of 5');
		await stars.nth(3).click();
		await expect.poll(async () => (await messageTexts(token, id)).at(-1)).toBe('4');
		// After the answers the composer is a plain text box again.
		await page.locator('parley-widget .composer textarea').waitFor();
	});
});

describe('language and small screens', () => {
	it('speaks Portuguese to a Portuguese browser, unless init says otherwise', async () => {
		const { workspaceId } = workspace(21);
		const pt = await newContext({ locale: 'pt-BR' });
		const { page } = await widgetPage(pt, workspaceId);
		expect(await page.locator('parley-widget .launcher').getAttribute('aria-label')).toBe('Conversar com Support');
		await open(page);
		expect(await page.locator('parley-widget .composer textarea').getAttribute('placeholder')).toBe(
			'Escreva uma mensagem…',
		);
		const explicit = await widgetPage(await newContext({ locale: 'pt-BR' }), workspaceId, { init: { locale: 'en' } });
		expect(await explicit.page.locator('parley-widget .launcher').getAttribute('aria-label')).toBe('Chat with Support');
	});

	it("falls back to the workspace's language when the browser speaks neither", async () => {
		const { workspaceId, token } = workspace(22);
		await putSettings(token, { locale: 'pt' });
		const { page } = await widgetPage(await newContext({ locale: 'fr-FR' }), workspaceId);
		expect(await page.locator('parley-widget .launcher').getAttribute('aria-label')).toBe('Conversar com Support');
	});

	it('fills the screen under 480 px wide', async () => {
		const { workspaceId } = workspace(23);
		const context = await newContext({ viewport: { width: 390, height: 760 } });
		const { page } = await widgetPage(context, workspaceId);
		await open(page);
		expect(await page.locator('parley-widget .panel').boundingBox()).toEqual({ x: 0, y: 0, width: 390, height: 760 });
		expect(await page.locator('parley-widget .launcher').isHidden()).toBe(true);
	});
});

describe('when things go wrong', () => {
	it('keeps a message through a 429 and sends it when allowed, telling the visitor why it waits', async () => {
		const { workspaceId, token } = workspace(24);
		const context = await newContext();
		let refusals = 0;
		await context.route(`${baseUrl}/widget/${workspaceId}/conversations`, async (route) => {
			if (route.request().method() !== 'POST' || refusals >= 1) return route.continue();
			refusals++;
			await route.fulfill({
				status: 429,
				headers: {
					'Retry-After': '2',
					'Access-Control-Allow-Origin': '*',
					'Access-Control-Expose-Headers': 'Retry-After',
				},
				contentType: 'application/json',
				body: JSON.stringify({ error: 'Too Many Requests', message: 'Slow down.', statusCode: 429 }),
			});
		});
		const { page } = await widgetPage(context, workspaceId);
		await open(page);
		const before = (await conversations(token)).length;
		await sendFromWidget(page, 'Patience pays');
		const banner = page.locator('parley-widget .banner');
		await expect
			.poll(() => banner.textContent())
			.toBe('You are sending messages too fast. We will send yours in a moment.');
		expect(await page.locator('parley-widget .msg.mine.pending').count()).toBe(1);
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count(), { timeout: 10_000 }).toBe(1);
		expect(await banner.isHidden()).toBe(true);
		await expect.poll(async () => (await conversations(token)).length).toBe(before + 1);
		expect(await messageTexts(token, (await conversations(token))[0]?.id as string)).toEqual(['Patience pays']);
	});

	it('keeps messages typed offline across a reload and sends them, once and in order, when back', async () => {
		const { workspaceId, token } = workspace(25);
		const context = await newContext();
		const { page } = await widgetPage(context, workspaceId);
		await open(page);
		await sendFromWidget(page, 'one');
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(1);
		const [latest] = await conversations(token);
		await context.setOffline(true);
		await sendFromWidget(page, 'two');
		await sendFromWidget(page, 'three');
		await expect
			.poll(() => page.locator('parley-widget .banner').textContent())
			.toContain('can’t reach the chat service');
		await context.setOffline(false);
		await page.reload();
		await waitReady(page);
		await open(page);
		await expect
			.poll(() => messageTexts(token, latest?.id as string), { timeout: 15_000 })
			.toEqual(['one', 'two', 'three']);
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(3);
	});

	it('fills the gap after its socket drops: replies sent meanwhile show once, in order, and count as unread', async () => {
		const { workspaceId, token } = workspace(26);
		const context = await newContext();
		// Keep a handle on the page's sockets, to cut the widget's as a network drop would.
		await context.addInitScript(() => {
			const Native = WebSocket;
			const sockets: WebSocket[] = [];
			(window as unknown as { __sockets: WebSocket[] }).__sockets = sockets;
			window.WebSocket = class extends Native {
				constructor(url: string | URL, protocols?: string | string[]) {
					super(url, protocols);
					sockets.push(this);
				}
			};
		});
		const { page } = await widgetPage(context, workspaceId);
		await open(page);
		await sendFromWidget(page, 'Before the drop');
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(1);
		const id = (await conversations(token))[0]?.id as string;
		await expect
			.poll(() => page.evaluate(() => (window as unknown as { __sockets: WebSocket[] }).__sockets.at(-1)?.readyState))
			.toBe(1);
		// The visitor closes the chat; then the network drops, and the team answers meanwhile.
		await page.locator('parley-widget .launcher').click();
		await page.evaluate(() => (window as unknown as { __sockets: WebSocket[] }).__sockets.at(-1)?.close());
		for (const text of ['During 1', 'During 2'])
			await api(baseUrl, token, 'POST', '/v3/messages', { conversationId: id, text });
		await expect.poll(() => page.locator('parley-widget .badge').textContent(), { timeout: 10_000 }).toBe('2');
		const sockets = await page.evaluate(() =>
			(window as unknown as { __sockets: WebSocket[] }).__sockets.map((s) => new URL(s.url).searchParams.get('after')),
		);
		// The reconnect asked for what came after the last message it had.
		expect(sockets).toEqual(['0', '1']);
		await page.locator('parley-widget .launcher').click();
		const texts = await page.locator('parley-widget .msg .body').allTextContents();
		expect(texts.filter((t) => t.startsWith('During'))).toEqual(['During 1', 'During 2']);
	});

	it("shows the team's typing and sends the visitor's", async () => {
		const { workspaceId, token } = workspace(27);
		const context = await newContext();
		const { page } = await widgetPage(context, workspaceId);
		await open(page);
		await sendFromWidget(page, 'Typing test');
		await expect.poll(() => page.locator('parley-widget .msg.mine.sent').count()).toBe(1);
		const id = (await conversations(token))[0]?.id as string;
		const operator = new WebSocket(`${baseUrl.replace('http', 'ws')}/v3/conversations/${id}/live`, [
			'parley.v1',
			`bearer.${token}`,
		]);
		try {
			const frames: { type: string; author?: string; typing?: boolean }[] = [];
			operator.onmessage = (event) => frames.push(JSON.parse(String(event.data)));
			await expect.poll(() => frames.some((f) => f.type === 'synced')).toBe(true);
			operator.send(JSON.stringify({ type: 'typing', typing: true }));
			await expect.poll(() => page.locator('parley-widget .typing').textContent()).toBe('Support is typing…');
			await page.locator('parley-widget .composer textarea').pressSequentially('hel');
			await expect
				.poll(() => frames.find((f) => f.type === 'typing'))
				.toMatchObject({ author: 'contact', typing: true });
		} finally {
			operator.close();
		}
	});

	it('posts the automatic initial message after the first one', async () => {
		const { workspaceId, token } = workspace(28);
		await putSettings(token, { autoMessage: 'Thanks! A human will be with you shortly.' });
		const { page } = await widgetPage(await newContext(), workspaceId);
		await open(page);
		await sendFromWidget(page, 'Hello');
		await expect.poll(() => logText(page)).toContain('Thanks! A human will be with you shortly.');
	});
});
