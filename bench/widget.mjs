// The widget measurement, in Chromium against the running Worker: what a first visit downloads (gzip, against
// the size budgets), what the snippet costs a host page's load event, how soon the widget is ready and the chat
// opens, and how long a message takes from the widget to an operator's socket and from the API to the widget.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../scripts/chromium.mjs';
import { widgetSnippet } from '../src/domain/widget-snippet.ts';
import { latencySummary } from './load.mjs';

/** The budgets the widget is built to (see README, "The chat widget"): a first visit, then with the chat. */
const BUDGET_BEFORE_OPEN = 10 * 1024;
const BUDGET_AFTER_OPEN = 30 * 1024;
/** Visits that warm the Worker and Chromium up; not recorded. Each visit has a fresh context: an empty cache. */
const WARMUP_VISITS = 2;
/** Each visitor may send 20 messages a minute (fixed): the opening, a warm-up one and these stay under. */
const VISITOR_MESSAGES = 17;
const API_MESSAGES = 20;
const TIMEOUT_MS = 10_000;
/** Time for anything the widget fetches after `ready` to show up in the count of requests before opening. */
const SETTLE_MS = 250;

const round = (value, digits = 3) => (value === null ? null : Number(value.toFixed(digits)));
const ratio = (a, b) => (a === null || b === null || b === 0 ? null : round(a / b));
/** Milliseconds since the epoch with sub-millisecond precision; Chromium's pages have the same clock. */
const epochNow = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A small shop's page. It runs a script of its own, as real pages do, so the snippet is not the first one. */
function hostHtml(endOfBody) {
	return (
		'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme shop</title>' +
		"<script>document.documentElement.className='js'</script></head>" +
		`<body><h1>Acme shop</h1><p>Welcome.</p>${endOfBody}</body></html>`
	);
}

/**
 * The fake customer site, served by Node on http://localhost:<port>: cross-origin to the Worker on
 * 127.0.0.1, as a real site is. Not Playwright's page.route: while a route is set, Chromium hands every
 * request (the Worker's too) to Playwright before sending it, which would add to each figure.
 */
async function startHostSite(pages) {
	const server = createServer((request, response) => {
		const html = pages[new URL(request.url ?? '/', 'http://localhost').pathname];
		if (html === undefined) response.writeHead(404).end();
		else response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(html);
	});
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	return {
		origin: `http://localhost:${server.address().port}`,
		close: () => {
			server.closeAllConnections();
			return new Promise((resolve) => server.close(resolve));
		},
	};
}

/** Clicks the launcher and resolves with the milliseconds until the composer is visible (timed in the page). */
function timeOpen(page) {
	return page.evaluate((timeoutMs) => {
		const root = document.querySelector('parley-widget').shadowRoot;
		const visible = () => root.querySelector('.composer textarea')?.checkVisibility() === true;
		return new Promise((resolve, reject) => {
			const started = performance.now();
			const observer = new MutationObserver(() => {
				if (!visible()) return;
				observer.disconnect();
				clearTimeout(timer);
				resolve(performance.now() - started);
			});
			const timer = setTimeout(() => {
				observer.disconnect();
				reject(new Error('the composer was not visible within the timeout'));
			}, timeoutMs);
			observer.observe(root, { subtree: true, childList: true, attributes: true });
			root.querySelector('.launcher').click();
		});
	}, TIMEOUT_MS);
}

async function closeChat(page) {
	await page.evaluate(() => document.querySelector('parley-widget').shadowRoot.querySelector('.launcher').click());
	await page.locator('parley-widget .panel').waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
}

/**
 * One first visit in a fresh context: the load event, and with the widget the time to `ready`, the Worker's
 * requests and response bodies before and after opening, and the first and second open.
 */
async function visit(browser, url, workerOrigin, withWidget) {
	const context = await browser.newContext();
	const responses = [];
	let opened = false;
	context.on('response', (response) => {
		if (!response.url().startsWith(workerOrigin)) return;
		const path = new URL(response.url()).pathname;
		responses.push({ path, beforeOpen: !opened, body: response.body().catch(() => Buffer.alloc(0)) });
	});
	try {
		const page = await context.newPage();
		await page.goto(url);
		// loadEventEnd is set once the load event's handlers have run, a moment after goto has returned.
		const loaded = await page.waitForFunction(
			() => performance.getEntriesByType('navigation')[0]?.loadEventEnd || null,
			undefined,
			{ timeout: TIMEOUT_MS },
		);
		const loadMs = await loaded.jsonValue();
		if (!withWidget) return { loadMs };
		const ready = await page.waitForFunction(() => window.benchReadyAt, undefined, { timeout: TIMEOUT_MS });
		const readyMs = await ready.jsonValue();
		await sleep(SETTLE_MS);
		const requestsBeforeOpen = responses.length;
		opened = true;
		const firstOpenMs = await timeOpen(page);
		await closeChat(page);
		const secondOpenMs = await timeOpen(page);
		const files = await Promise.all(
			responses.map(async ({ path, beforeOpen, body }) => {
				const bytes = await body;
				return { path, beforeOpen, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
			}),
		);
		return { loadMs, readyMs, requestsBeforeOpen, firstOpenMs, secondOpenMs, files };
	} finally {
		await context.close();
	}
}

function bytesFigures(files) {
	const sum = (list) => list.reduce((total, file) => total + file.gzip, 0);
	const before = sum(files.filter((file) => file.beforeOpen));
	const after = sum(files);
	return {
		files,
		beforeOpen: { gzip: before, budget: BUDGET_BEFORE_OPEN, ratioToBudget: ratio(before, BUDGET_BEFORE_OPEN) },
		afterOpen: { gzip: after, budget: BUDGET_AFTER_OPEN, ratioToBudget: ratio(after, BUDGET_AFTER_OPEN) },
	};
}

/** The page's clock minus Node's (ms), from the quickest of a few round trips; rtt/2 bounds its error. */
async function clockOffset(page) {
	let best = null;
	for (let i = 0; i < 7; i++) {
		const before = epochNow();
		const inPage = await page.evaluate(() => performance.timeOrigin + performance.now());
		const after = epochNow();
		if (!best || after - before < best.rttMs) best = { rttMs: after - before, offsetMs: inPage - (before + after) / 2 };
	}
	return { offsetMs: round(best.offsetMs), uncertaintyMs: round(best.rttMs / 2) };
}

/** Page-side probes: the time of each Enter keydown, and when awaited texts appear in the chat's log. */
function installProbes(page) {
	return page.evaluate(() => {
		const log = document.querySelector('parley-widget').shadowRoot.querySelector('.log');
		const now = () => performance.timeOrigin + performance.now();
		window.benchEnterAt = [];
		window.benchWanted = new Set();
		window.benchSeen = {};
		// Capture on window: it runs before the composer's own keydown listener sends the message.
		addEventListener('keydown', (event) => event.key === 'Enter' && window.benchEnterAt.push(now()), true);
		new MutationObserver(() => {
			for (const text of window.benchWanted) {
				if (!log.textContent.includes(text)) continue;
				window.benchSeen[text] = now();
				window.benchWanted.delete(text);
			}
		}).observe(log, { subtree: true, childList: true, characterData: true });
	});
}

/** Opens an operator socket on the conversation; resolves once it is synced. `arrivals` maps text to receipt. */
function operatorSocket(baseUrl, token, conversationId, arrivals) {
	const url = `${baseUrl.replace(/^http/, 'ws')}/v3/conversations/${conversationId}/live?after=0`;
	return new Promise((resolve, reject) => {
		const socket = new WebSocket(url, ['parley.v1', `bearer.${token}`]);
		const timer = setTimeout(() => reject(new Error('operator socket: no synced frame')), TIMEOUT_MS);
		socket.addEventListener('message', (event) => {
			const at = epochNow();
			const frame = JSON.parse(event.data);
			if (frame.type === 'message') arrivals.get(frame.message.text)?.resolve(at);
			else if (frame.type === 'synced') {
				clearTimeout(timer);
				resolve(socket);
			}
		});
		socket.addEventListener('error', () => reject(new Error('operator socket: refused or failed before synced')));
	});
}

function withTimeout(promise, ms) {
	let timer;
	const expired = new Promise((resolve) => {
		timer = setTimeout(() => resolve(null), ms);
	});
	return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * One visitor opens the chat and starts a conversation, an operator socket joins it; then the visitor sends
 * messages (Enter keydown in the page to the frame on the operator socket) and the API sends messages
 * (just before POST /v3/messages to the text in the widget's log), one at a time.
 */
async function roundTrips(browser, pageUrl, baseUrl, token) {
	const context = await browser.newContext();
	const tag = Math.random().toString(36).slice(2, 8);
	const latency = { visitorToOperator: [], apiToWidget: [] };
	let lost = 0;
	let socket;
	try {
		const page = await context.newPage();
		await page.goto(pageUrl);
		await page.waitForFunction(() => window.benchReadyAt, undefined, { timeout: TIMEOUT_MS });
		await timeOpen(page);
		await installProbes(page);
		const clock = await clockOffset(page);
		const composer = page.locator('parley-widget .composer textarea');
		let presses = 0;
		const type = async (text) => {
			await composer.fill(text);
			await composer.press('Enter');
			presses++;
		};
		await type(`Hello from the bench ${tag}`);
		const started = await page.waitForFunction(() => window.benchConversationId, undefined, { timeout: TIMEOUT_MS });
		const arrivals = new Map();
		socket = await operatorSocket(baseUrl, token, await started.jsonValue(), arrivals);

		for (let i = -1; i < VISITOR_MESSAGES; i++) {
			const text = `Visitor ${tag} #${i}`;
			const arrival = Promise.withResolvers();
			arrivals.set(text, arrival);
			await type(text);
			const receivedAt = await withTimeout(arrival.promise, TIMEOUT_MS);
			const sentAt = (await page.evaluate((n) => window.benchEnterAt[n], presses - 1)) - clock.offsetMs;
			if (receivedAt === null) lost++;
			else if (i >= 0) latency.visitorToOperator.push(receivedAt - sentAt);
		}
		const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
		const conversationId = await started.jsonValue();
		for (let i = -2; i < API_MESSAGES; i++) {
			const text = `Operator ${tag} #${i}`;
			await page.evaluate((t) => window.benchWanted.add(t), text);
			const sentAt = epochNow();
			const response = await fetch(`${baseUrl}/v3/messages`, {
				method: 'POST',
				headers: auth,
				body: JSON.stringify({ conversationId, text }),
				signal: AbortSignal.timeout(TIMEOUT_MS),
			});
			await response.arrayBuffer();
			if (response.status !== 201) throw new Error(`POST /v3/messages answered ${response.status}`);
			const seen = await page
				.waitForFunction((t) => window.benchSeen[t], text, { timeout: TIMEOUT_MS })
				.then((handle) => handle.jsonValue())
				.catch(() => null);
			if (seen === null) lost++;
			else if (i >= 0) latency.apiToWidget.push(seen - clock.offsetMs - sentAt);
		}
		return { latency, lost, clock };
	} finally {
		socket?.close(1000, 'bench done');
		await context.close();
	}
}

/**
 * Measures the widget against a running Worker (`baseUrl`) for the workspace `workspaceId` (its admin's
 * `token`): `visits` first visits of a host page with the snippet and as many without, alternating and each
 * in a fresh context, then one visitor's round trips. Ratios to /health use `healthP50Ms`. Returns a plain
 * result object; `problems` lists what the run should warn about.
 */
export async function measureWidget({ baseUrl, workspaceId, token, visits, healthP50Ms }) {
	const probe =
		"<script>kw('on','ready',function(){window.benchReadyAt=performance.now()});" +
		"kw('on','conversation_started',function(c){window.benchConversationId=c.id})</script>";
	const site = await startHostSite({
		'/plain': hostHtml(''),
		'/widget': hostHtml(widgetSnippet(baseUrl, workspaceId) + probe),
	});
	const browser = await launchChromium();
	const started = performance.now();
	try {
		const runs = { plain: [], widget: [] };
		for (let i = 0; i < WARMUP_VISITS + visits; i++) {
			// Alternating which goes first spreads any drift over the run evenly over both.
			const order = i % 2 === 0 ? ['plain', 'widget'] : ['widget', 'plain'];
			for (const kind of order) {
				const result = await visit(browser, `${site.origin}/${kind}`, baseUrl, kind === 'widget');
				if (i >= WARMUP_VISITS) runs[kind].push(result);
			}
		}
		const visitsSeconds = (performance.now() - started) / 1000;
		const trips = await roundTrips(browser, `${site.origin}/widget`, baseUrl, token);
		return summarize({ runs, trips, healthP50Ms, visitsSeconds, totalSeconds: (performance.now() - started) / 1000 });
	} finally {
		await browser.close();
		await site.close();
	}
}

function summarize({ runs, trips, healthP50Ms, visitsSeconds, totalSeconds }) {
	const pick = (kind, key) => runs[kind].map((run) => run[key]);
	const load = {
		withoutWidget: latencySummary(pick('plain', 'loadMs')),
		withWidget: latencySummary(pick('widget', 'loadMs')),
	};
	const ready = latencySummary(pick('widget', 'readyMs'));
	const firstOpen = latencySummary(pick('widget', 'firstOpenMs'));
	const secondOpen = latencySummary(pick('widget', 'secondOpenMs'));
	const visitorToOperator = latencySummary(trips.latency.visitorToOperator);
	const apiToWidget = latencySummary(trips.latency.apiToWidget);
	const requests = pick('widget', 'requestsBeforeOpen');
	const bytes = bytesFigures(runs.widget[0].files);
	const problems = [];
	if (bytes.beforeOpen.gzip > BUDGET_BEFORE_OPEN)
		problems.push(`widget: ${bytes.beforeOpen.gzip} B gzip before opening`);
	if (bytes.afterOpen.gzip > BUDGET_AFTER_OPEN) problems.push(`widget: ${bytes.afterOpen.gzip} B gzip after opening`);
	if (requests.some((n) => n !== 2)) problems.push(`widget: requests before opening per visit: ${requests.join(', ')}`);
	if (trips.lost > 0) problems.push(`widget: ${trips.lost} round-trip messages did not arrive within ${TIMEOUT_MS} ms`);
	return {
		visits: runs.widget.length,
		warmupVisits: WARMUP_VISITS,
		visitsSeconds: round(visitsSeconds, 1),
		totalSeconds: round(totalSeconds, 1),
		bytes,
		requestsBeforeOpen: Math.max(...requests),
		load: {
			...load,
			p50Ratio: ratio(load.withWidget.p50Ms, load.withoutWidget.p50Ms),
			p50AddedMs: round(load.withWidget.p50Ms - load.withoutWidget.p50Ms, 2),
		},
		ready: { ...ready, p50RatioToHealth: ratio(ready.p50Ms, healthP50Ms) },
		open: { first: firstOpen, second: secondOpen, p50Ratio: ratio(firstOpen.p50Ms, secondOpen.p50Ms) },
		visitorToOperator: {
			messages: trips.latency.visitorToOperator.length,
			...visitorToOperator,
			p50RatioToHealth: ratio(visitorToOperator.p50Ms, healthP50Ms),
		},
		apiToWidget: {
			messages: trips.latency.apiToWidget.length,
			...apiToWidget,
			p50RatioToHealth: ratio(apiToWidget.p50Ms, healthP50Ms),
		},
		lostMessages: trips.lost,
		clock: trips.clock,
		problems,
	};
}
