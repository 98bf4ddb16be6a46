// Alerts in the operator console, in a real Chromium against `wrangler dev`: the navigation's unread counts
// and the tab's title follow a visitor's messages while the operator is on another page, and clear as it reads;
// a desktop notification appears while the tab is hidden, and its click opens the conversation; with no console
// open, the alert is pushed (to the fake push service, which decrypts it), delivered to the console's service
// worker (CDP's ServiceWorker.deliverPushMessage, as headless Chromium reaches no real push service), shown by
// it, and its click opens the conversation in the console.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { visitorStarts, WATCH_NOTIFICATIONS } from './visitor';
import { baseUrl, browserContexts } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;
const fakePush = inject('fakePushUrl');

beforeEach(async () => {
	context = await newContext();
	await context.grantPermissions(['notifications'], { origin: baseUrl });
});

const count = (page: Page, view: string) =>
	page.locator(`.unread-nav .unread-${view} .count`).evaluate((e) => e.firstChild?.textContent ?? '');
const notes = (page: Page) =>
	page.evaluate(() =>
		(window as unknown as { __notes: Array<{ title: string; body: string }> }).__notes.map((n) => ({
			title: n.title,
			body: n.body,
		})),
	);

describe('unread counts and desktop notifications', () => {
	it('counts a visitor’s messages on another page, notifies while hidden, and clears as the operator reads', async () => {
		const { workspaceId, token, operatorId } = workspace(118);
		await context.addInitScript(WATCH_NOTIFICATIONS);
		const page = await consolePage(context, 118);
		await page.getByRole('link', { name: 'Contacts' }).click();
		await page.waitForURL(/\/console\/contacts$/);
		await expect.poll(() => count(page, 'all')).toBe('0');
		expect(await page.title()).toBe('Parley');

		const visitor = await visitorStarts(workspaceId, 'Hello, anyone there?');
		await expect.poll(() => count(page, 'unassigned')).toBe('1');
		expect([await count(page, 'mine'), await count(page, 'all')]).toEqual(['0', '1']);
		await expect.poll(() => page.title()).toBe('(1) Parley');
		// Visible: no desktop notification.
		expect(await notes(page)).toEqual([]);

		const assigned = await api(baseUrl, token, 'PATCH', `/v3/conversations/${visitor.conversationId}`, {
			assigneeId: operatorId,
		});
		expect(assigned.status).toBe(200);
		await expect.poll(() => count(page, 'mine')).toBe('1');
		expect(await count(page, 'unassigned')).toBe('0');

		await page.evaluate(() => (window as unknown as { __setHidden(h: boolean): void }).__setHidden(true));
		await visitor.write('My order has not arrived');
		await expect
			.poll(() => notes(page))
			.toContainEqual({
				title: `Visitor ${await contactRef(token, visitor.conversationId)}`,
				body: 'My order has not arrived',
			});

		// The click brings the conversation up; reading it clears the counts and the title.
		await page.evaluate(() => (window as unknown as { __setHidden(h: boolean): void }).__setHidden(false));
		await page.evaluate(() => {
			const all = (window as unknown as { __notes: Array<{ note: Notification }> }).__notes;
			all.at(-1)?.note.onclick?.(new Event('click'));
		});
		await page.waitForURL(new RegExp(`/console/conversations/${visitor.conversationId}$`));
		await page.getByText('My order has not arrived').waitFor();
		await expect.poll(() => count(page, 'all'), { timeout: 15_000 }).toBe('0');
		await expect.poll(() => page.title()).toBe('Parley');
	});
});

/** The short label a contact known by nothing goes by ("Visitor 2PEKZ"). */
async function contactRef(token: string, conversationId: string): Promise<string> {
	const { body } = await api(baseUrl, token, 'GET', `/v3/conversations/${conversationId}`);
	return (body as { contactId: string }).contactId.slice(-5).toUpperCase();
}

describe('Web Push', () => {
	it('is shown by the service worker when no console is open, and its click opens the conversation', async () => {
		const { workspaceId, token, operatorId } = workspace(119);
		const page = await consolePage(context, 119);
		// The console registers its service worker; wait until it controls the scope.
		await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
		const cdp = await context.newCDPSession(page);
		const registrationId = new Promise<string>((resolve) => {
			cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
				const found = registrations.find((r) => r.scopeURL === `${baseUrl}/console/`);
				if (found) resolve(found.registrationId);
			});
		});
		await cdp.send('ServiceWorker.enable');

		// This browser's subscription (headless Chromium has no push service: the fake makes it, keys and all).
		const subscription = (await (await fetch(`${fakePush}/__fake/subscriptions`, { method: 'POST' })).json()) as {
			id: string;
			endpoint: string;
			keys: { p256dh: string; auth: string };
		};
		const { id, ...body } = subscription;
		expect((await api(baseUrl, token, 'POST', '/v3/me/push-subscriptions', body)).status).toBe(201);

		const visitor = await visitorStarts(workspaceId, 'Hi');
		await api(baseUrl, token, 'PATCH', `/v3/conversations/${visitor.conversationId}`, { assigneeId: operatorId });
		// No console open: the page leaves for a page of the same origin outside the console.
		await page.goto(`${baseUrl}/health`);
		type Received = { ok: boolean; reason?: string; payload?: string };
		const received = async () => (await (await fetch(`${fakePush}/__fake/received/${id}`)).json()) as Received[];
		// The feed's socket closes as the page leaves; a message sent before the hub saw it close reaches no one,
		// so the visitor writes until a push arrives.
		const ofMessage = async () =>
			(await received()).find((r) => r.ok && (JSON.parse(r.payload ?? '{}') as { kind?: string }).kind === 'message');
		await expect
			.poll(
				async () => {
					const found = await ofMessage();
					if (!found) await visitor.write('Still waiting for my parcel');
					return !!found;
				},
				{ timeout: 20_000, interval: 2_000 },
			)
			.toBe(true);
		for (const got of await received()) expect(got.ok, got.reason).toBe(true);
		const push = await ofMessage();
		const alert = JSON.parse(push?.payload ?? '{}') as { kind: string; conversationId: string; text: string };
		expect(alert).toMatchObject({ kind: 'message', conversationId: visitor.conversationId });

		// Headless Chromium has no notification platform: its service workers are refused `showNotification`
		// whatever the context granted. The worker's own method is wrapped to record what it is asked to show (as the
		// page's Notification is in the other test), then the push is delivered as a push service would.
		const [worker] = context.serviceWorkers();
		expect(worker).toBeTruthy();
		await worker?.evaluate(() => {
			const scope = self as unknown as { registration: ServiceWorkerRegistration; __shown: unknown[] };
			scope.__shown = [];
			scope.registration.showNotification = async (title: string, options?: NotificationOptions) => {
				scope.__shown.push({ title, body: options?.body, tag: options?.tag, data: options?.data });
			};
		});
		await cdp.send('ServiceWorker.deliverPushMessage', {
			origin: baseUrl,
			registrationId: await registrationId,
			data: push?.payload ?? '',
		});
		type Shown = { title: string; body: string; tag: string; data: { conversationId: string } };
		const shown = async () =>
			((await worker?.evaluate(() => (self as unknown as { __shown: unknown[] }).__shown)) ?? []) as Shown[];
		await expect.poll(async () => (await shown()).length).toBe(1);
		const [notification] = await shown();
		expect(notification).toMatchObject({
			title: `Visitor ${await contactRef(token, visitor.conversationId)}`,
			// What the visitor wrote: the first message ("Hi", in the queue when the conversation was assigned) or a later one.
			body: alert.text,
			data: { conversationId: visitor.conversationId },
		});

		// The click, with the console open on another page: the service worker has it show the conversation. The
		// event is the browser's part, which headless Chromium cannot raise without a notification: a stand-in
		// with the notification's data runs the worker's own handler.
		await page.goto(`${baseUrl}/console/contacts`);
		await page.getByRole('link', { name: 'Inbox' }).waitFor();
		await worker?.evaluate((conversationId) => {
			const click = new Event('notificationclick') as Event & Record<string, unknown>;
			click.notification = { data: { conversationId }, close() {} };
			click.waitUntil = (promise: Promise<unknown>) => promise;
			self.dispatchEvent(click);
		}, visitor.conversationId);
		await page.waitForURL(new RegExp(`/console/conversations/${visitor.conversationId}$`));
	});
});
