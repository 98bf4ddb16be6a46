// The widget's page visits for the bench (see widget.mjs): a host site served by Node, one visit of it in a fresh
// Chromium context (first visit, opening, the same visitor's next page view), and what each kind of visitor
// (anonymous, identified) downloads and asks before opening the chat.
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { latencySummary } from './load.mjs';
import { ratio } from './report-format.mjs';

/** The budgets the widget is built to (see docs/widget.md): a first visit, then with the chat. */
const BUDGET_BEFORE_OPEN = 10 * 1024;
const BUDGET_AFTER_OPEN = 30 * 1024;
/** Requests to the Worker before opening: script and config, plus the session for an identified visitor. */
const REQUESTS_BEFORE_OPEN = { anonymous: 2, identified: 3 };
/** At most this many requests before opening, whatever the visitor (see FOLLOW_AFTER_MS in widget/src/visit.ts). */
const MAX_REQUESTS_BEFORE_OPEN = 3;
export const TIMEOUT_MS = 10_000;
/**
 * Time for anything the widget fetches after `ready` (and, for an identified visitor, after the session's
 * answer) to show up in the count of requests before opening. A returning visitor with an open conversation
 * would import the chat later still (FOLLOW_AFTER_MS in widget/src/visit.ts); the visitors here have none.
 */
const SETTLE_MS = 250;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A small shop's page. It runs a script of its own, as real pages do, so the snippet is not the first one. */
export function hostHtml(endOfBody) {
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
export async function startHostSite(pages) {
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
export function timeOpen(page) {
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
 * The body the Worker sent, or null when the browser answered from its cache (nothing went over the network:
 * Chromium then reports no encoded body, though the body is there).
 */
async function transferred(response) {
	try {
		const [sizes, body] = await Promise.all([response.request().sizes(), response.body()]);
		return sizes.responseBodySize <= 0 && body.length > 0 ? null : body;
	} catch {
		return Buffer.alloc(0);
	}
}

/** The `ready` time of the page (ms since navigation start). */
async function readyAt(page) {
	const ready = await page.waitForFunction(() => window.benchReadyAt, undefined, { timeout: TIMEOUT_MS });
	return ready.jsonValue();
}

/** Waits until what the page fetches before opening is in: for an identified visitor, the session's answer. */
async function settle(responses, phase, kind) {
	const deadline = performance.now() + TIMEOUT_MS;
	const answered = () => responses.some((r) => r.phase === phase && r.path.endsWith('/sessions'));
	while (kind === 'identified' && !answered()) {
		if (performance.now() > deadline) throw new Error("the identified visitor's session did not start");
		await sleep(20);
	}
	await sleep(SETTLE_MS);
}

/**
 * One first visit in a fresh context: the load event, and with the widget the time to `ready`, the Worker's
 * requests and response bodies before opening, the first and second open, and the same visitor's next page
 * view (same context: its cache and storage) before opening. `kind`: plain (no widget), anonymous, identified.
 */
export async function visit(browser, url, workerOrigin, kind) {
	const context = await browser.newContext();
	const responses = [];
	let phase = 'before';
	context.on('response', (response) => {
		if (!response.url().startsWith(workerOrigin)) return;
		const path = new URL(response.url()).pathname;
		responses.push({ path, phase, body: transferred(response) });
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
		if (kind === 'plain') return { loadMs };
		const readyMs = await readyAt(page);
		await settle(responses, 'before', kind);
		phase = 'open';
		const firstOpenMs = await timeOpen(page);
		await closeChat(page);
		const secondOpenMs = await timeOpen(page);
		phase = 'returning';
		await page.goto(url);
		await readyAt(page);
		await settle(responses, 'returning', kind);
		const files = [];
		for (const { path, phase, body } of responses) {
			const bytes = await body;
			if (bytes) files.push({ path, phase, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
		}
		const requestsBeforeOpen = files.filter((file) => file.phase === 'before').length;
		const requestsReturning = files.filter((file) => file.phase === 'returning').length;
		return { loadMs, readyMs, requestsBeforeOpen, requestsReturning, firstOpenMs, secondOpenMs, files };
	} finally {
		await context.close();
	}
}

function bytesFigures(files) {
	const sum = (...phases) => files.filter((file) => phases.includes(file.phase)).reduce((t, f) => t + f.gzip, 0);
	const figure = (gzip, budget) => ({ gzip, budget, ratioToBudget: ratio(gzip, budget) });
	return {
		files,
		beforeOpen: figure(sum('before'), BUDGET_BEFORE_OPEN),
		afterOpen: figure(sum('before', 'open'), BUDGET_AFTER_OPEN),
		returningBeforeOpen: figure(sum('returning'), BUDGET_BEFORE_OPEN),
	};
}

/** An HS256 identity JWT as a site's backend signs it for its logged-in user (valid for 50 minutes). */
function identityJwt(secret, claims) {
	const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
	const exp = Math.floor(Date.now() / 1000) + 50 * 60;
	const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ ...claims, exp })}`;
	return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

/** The page of a site whose user is logged in: it calls identify on every page, with a JWT. */
export async function identifyScript(baseUrl, token) {
	const response = await fetch(`${baseUrl}/v3/widget/identity-secret`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${token}` },
		signal: AbortSignal.timeout(TIMEOUT_MS),
	});
	if (response.status !== 200) throw new Error(`POST /v3/widget/identity-secret answered ${response.status}`);
	const { secret } = await response.json();
	const jwt = identityJwt(secret, { email: 'bench.user@example.com', external_id: 'bench-user', name: 'Bench User' });
	const identity = { name: 'Bench User', email: 'bench.user@example.com', customData: { plan: 'pro' }, jwt };
	return `<script>kw('identify',${JSON.stringify(identity)})</script>`;
}

/** One kind of visitor's figures: bytes and requests before opening (first and next visit), time to ready. */
export function visitorFigures(runs, kind, healthP50Ms, problems) {
	const pick = (key) => runs.map((run) => run[key]);
	const bytes = bytesFigures(runs[0].files);
	const ready = latencySummary(pick('readyMs'));
	const requests = pick('requestsBeforeOpen');
	const returning = pick('requestsReturning');
	const expected = REQUESTS_BEFORE_OPEN[kind];
	for (const [name, figure] of Object.entries(bytes)) {
		if (name !== 'files' && figure.gzip > figure.budget)
			problems.push(`widget, ${kind}: ${figure.gzip} B gzip ${name}`);
	}
	if (requests.some((n) => n !== expected)) {
		problems.push(`widget, ${kind}: requests before opening per first visit: ${requests.join(', ')}`);
	}
	if (returning.some((n) => n > MAX_REQUESTS_BEFORE_OPEN)) {
		problems.push(`widget, ${kind}: requests before opening per returning visit: ${returning.join(', ')}`);
	}
	return {
		bytes,
		requestsBeforeOpen: Math.max(...requests),
		expectedRequestsBeforeOpen: expected,
		requestsReturning: Math.max(...returning),
		load: latencySummary(pick('loadMs')),
		ready: { ...ready, p50RatioToHealth: ratio(ready.p50Ms, healthP50Ms) },
	};
}
