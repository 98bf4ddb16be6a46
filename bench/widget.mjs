// The widget measurement, in Chromium against the running Worker: what a first and a returning visit download
// before the chat is opened (gzip and requests, against the budgets), for an anonymous visitor and for one the
// page identifies (a logged-in user, with an identity JWT), what the snippet costs a host page's load event,
// how soon the widget is ready and the chat opens, and how long a message takes from the widget to an
// operator's socket and from the API to the widget.
import { performance } from 'node:perf_hooks';
import { launchChromium } from '../scripts/chromium.mjs';
import { widgetSnippet } from '../src/domain/widget/snippet.ts';
import { latencySummary } from './load.mjs';
import { ratio, round } from './report-format.mjs';
import {
	hostHtml,
	identifyScript,
	startHostSite,
	TIMEOUT_MS,
	timeOpen,
	visit,
	visitorFigures,
} from './widget-visits.mjs';

/** The two kinds of visitor measured; `plain` is the host page without the widget. */
const VISITORS = ['anonymous', 'identified'];
const KINDS = ['plain', ...VISITORS];
/** Visits that warm the Worker and Chromium up; not recorded. Each visit has a fresh context: an empty cache. */
const WARMUP_VISITS = 2;
/** Each visitor may send 20 messages a minute (fixed): the opening, a warm-up one and these stay under. */
const VISITOR_MESSAGES = 17;
const API_MESSAGES = 20;

/** Milliseconds since the epoch with sub-millisecond precision; Chromium's pages have the same clock. */
const epochNow = () => performance.timeOrigin + performance.now();

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
 * `token`): `visits` first visits (and next page views) of a host page with the snippet for an anonymous and
 * for an identified visitor, and as many of the page without it, in rotation and each in a fresh context,
 * then one visitor's round trips. Ratios to /health use `healthP50Ms`. Returns a plain result object;
 * `problems` lists what the run should warn about.
 */
export async function measureWidget({ baseUrl, workspaceId, token, visits, healthP50Ms }) {
	const probe =
		"<script>kw('on','ready',function(){window.benchReadyAt=performance.now()});" +
		"kw('on','conversation_started',function(c){window.benchConversationId=c.id})</script>";
	const snippet = widgetSnippet(baseUrl, workspaceId) + probe;
	const site = await startHostSite({
		'/plain': hostHtml(''),
		'/anonymous': hostHtml(snippet),
		'/identified': hostHtml(snippet + (await identifyScript(baseUrl, token))),
	});
	const browser = await launchChromium();
	const started = performance.now();
	try {
		const runs = { plain: [], anonymous: [], identified: [] };
		for (let i = 0; i < WARMUP_VISITS + visits; i++) {
			// Rotating which goes first spreads any drift over the run evenly over the three.
			const order = [...KINDS.slice(i % KINDS.length), ...KINDS.slice(0, i % KINDS.length)];
			for (const kind of order) {
				const result = await visit(browser, `${site.origin}/${kind}`, baseUrl, kind);
				if (i >= WARMUP_VISITS) runs[kind].push(result);
			}
		}
		const visitsSeconds = (performance.now() - started) / 1000;
		const trips = await roundTrips(browser, `${site.origin}/anonymous`, baseUrl, token);
		return summarize({ runs, trips, healthP50Ms, visitsSeconds, totalSeconds: (performance.now() - started) / 1000 });
	} finally {
		await browser.close();
		await site.close();
	}
}

function summarize({ runs, trips, healthP50Ms, visitsSeconds, totalSeconds }) {
	const pick = (kind, key) => runs[kind].map((run) => run[key]);
	const problems = [];
	const visitors = Object.fromEntries(
		VISITORS.map((kind) => [kind, visitorFigures(runs[kind], kind, healthP50Ms, problems)]),
	);
	const load = { withoutWidget: latencySummary(pick('plain', 'loadMs')), withWidget: visitors.anonymous.load };
	const firstOpen = latencySummary(pick('anonymous', 'firstOpenMs'));
	const secondOpen = latencySummary(pick('anonymous', 'secondOpenMs'));
	const visitorToOperator = latencySummary(trips.latency.visitorToOperator);
	const apiToWidget = latencySummary(trips.latency.apiToWidget);
	if (trips.lost > 0) problems.push(`widget: ${trips.lost} round-trip messages did not arrive within ${TIMEOUT_MS} ms`);
	return {
		visits: runs.anonymous.length,
		warmupVisits: WARMUP_VISITS,
		visitsSeconds: round(visitsSeconds, 1),
		totalSeconds: round(totalSeconds, 1),
		visitors,
		load: {
			...load,
			p50Ratio: ratio(load.withWidget.p50Ms, load.withoutWidget.p50Ms),
			p50AddedMs: round(load.withWidget.p50Ms - load.withoutWidget.p50Ms, 2),
		},
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
