// The alerts section of `npm run bench -- --only alerts`: how long after a visitor's message its operator's
// console, open on another page with its tab hidden, shows the desktop notification. One console in Chromium
// (signed in as the workspace's admin, on Contacts, its tab hidden, notifications allowed) and four visitor
// conversations assigned to that admin (a visitor may send 20 messages a minute); then, one at a time, a visitor
// sends a message (POST
// /widget/{ws}/conversations/{id}/messages) and the clock runs until the page makes its Notification
// (scripts/notification-watch.mjs records `performance.now()` in the page; the page's clock is turned into
// the epoch with `performance.timeOrigin`, the same machine's clock as the sender's `Date.now()`). The path
// measured: the message stored by the room, its event through the Queue (a batch window of 1 s, as deployed)
// to the consumer, the hub's `alert` frame on the console's feed, and the console's Notification. The
// baseline: GET /health one request at a time, in the same run.
import { launchChromium } from '../scripts/chromium.mjs';
import { WATCH_NOTIFICATIONS } from '../scripts/notification-watch.mjs';
import { latencySummary, timedRequest } from './load.mjs';
import { ratio } from './report-format.mjs';

const SAMPLES = 40;
const WARMUP = 3;
const TIMEOUT_MS = 20_000;
const HEALTH_REQUESTS = 200;
const VISITORS = 4;

async function json(url, init) {
	const res = await fetch(url, init);
	const body = await res.json().catch(() => null);
	if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: HTTP ${res.status} ${JSON.stringify(body)}`);
	return body;
}

/** A visitor's conversation, assigned to the admin; returns a function that sends one more message. */
async function visitorConversation(baseUrl, { workspaceId, token, operatorId }) {
	const headers = { 'Content-Type': 'application/json' };
	const { sessionToken } = await json(`${baseUrl}/widget/${workspaceId}/sessions`, {
		method: 'POST',
		headers,
		body: '{}',
	});
	const withSession = { ...headers, 'Parley-Session': sessionToken };
	const started = await json(`${baseUrl}/widget/${workspaceId}/conversations`, {
		method: 'POST',
		headers: withSession,
		body: JSON.stringify({ message: { text: 'Hello', clientMessageId: crypto.randomUUID() } }),
	});
	const conversationId = started.conversation.id;
	await json(`${baseUrl}/v3/conversations/${conversationId}`, {
		method: 'PATCH',
		headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ assigneeId: operatorId }),
	});
	return (text) =>
		json(`${baseUrl}/widget/${workspaceId}/conversations/${conversationId}/messages`, {
			method: 'POST',
			headers: withSession,
			body: JSON.stringify({ text, clientMessageId: crypto.randomUUID() }),
		});
}

/** Waits until the page has made more than `count` notifications; returns the newest one's epoch time. */
async function nextNotification(page, count) {
	const handle = await page.waitForFunction(
		(n) => {
			const notes = window.__notes;
			return notes.length > n ? performance.timeOrigin + notes[notes.length - 1].at : false;
		},
		count,
		{ timeout: TIMEOUT_MS, polling: 'raf' },
	);
	return handle.jsonValue();
}

export async function measureAlerts({ baseUrl, workspace, warnings, log }) {
	log('alerts: GET /health one at a time');
	const health = [];
	for (let i = 0; i < HEALTH_REQUESTS; i++) health.push((await timedRequest(`${baseUrl}/health`)).latencyMs);
	const healthSummary = latencySummary(health);
	const browser = await launchChromium();
	try {
		const context = await browser.newContext();
		await context.grantPermissions(['notifications'], { origin: baseUrl });
		await context.addInitScript(WATCH_NOTIFICATIONS);
		const page = await context.newPage();
		await page.goto(`${baseUrl}/console/`);
		await page.getByLabel('E-mail').fill(workspace.email);
		await page.getByLabel('Password').fill(workspace.password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.getByRole('link', { name: 'Contacts' }).click();
		await page.waitForURL(/\/console\/contacts$/);
		// A visitor may send 20 messages a minute: the messages go round a few visitors' conversations.
		const visitors = [];
		for (let v = 0; v < VISITORS; v++) visitors.push(await visitorConversation(baseUrl, workspace));
		await page.evaluate(() => window.__setHidden(true));
		log(`alerts: ${WARMUP + SAMPLES} visitor messages, each until its desktop notification`);
		const latencies = [];
		for (let i = 0; i < WARMUP + SAMPLES; i++) {
			const count = await page.evaluate(() => window.__notes.length);
			const sentAt = Date.now();
			await visitors[i % VISITORS](`Message ${i}: is my order on its way?`);
			try {
				const shownAt = await nextNotification(page, count);
				if (i >= WARMUP) latencies.push(shownAt - sentAt);
			} catch {
				warnings.push(`alerts: message ${i} made no notification within ${TIMEOUT_MS / 1000} s`);
			}
		}
		const alert = latencySummary(latencies);
		return {
			samples: latencies.length,
			health: { p50Ms: healthSummary.p50Ms, p99Ms: healthSummary.p99Ms },
			notification: alert,
			p50VsHealth: ratio(alert.p50Ms, healthSummary.p50Ms),
			p99VsHealth: ratio(alert.p99Ms, healthSummary.p99Ms),
		};
	} finally {
		await browser.close();
	}
}
