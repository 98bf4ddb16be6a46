// The operator console in Chromium against the running Worker, for the issue's budget: "the console's first load
// at most 250 KB gzip of script, the inbox interactive within 1.5 s on `wrangler dev`". One admin signs in once;
// each load then starts from a fresh context holding only that session's cookie (an empty cache, as a first
// visit of the day), over a workspace of 10,000 open conversations. Then the virtualised list is scrolled to
// its end one screen at a time. The baseline, measured the same way in the same browser, is a static page of the
// Worker (GET /, the small index page): what any page costs here before the console's own work.
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../scripts/chromium.mjs';
import { measureBuilder } from './builder.mjs';
import { percentile } from './load.mjs';
import { ratio, round } from './report-format.mjs';

/** The budgets of the issue (KiB of 1,024 bytes, the unit of the widget's budgets too). */
export const SCRIPT_BUDGET_GZIP = 250 * 1024;
export const INTERACTIVE_BUDGET_MS = 1_500;
/** Loads that warm the Worker, D1's page cache and Chromium up; not recorded. */
const WARMUP_LOADS = 2;
/** The quiet window that ends "interactive": no long task starts within it after the first row is on screen. */
const QUIET_MS = 500;
const TIMEOUT_MS = 20_000;
const VIEWPORT = { width: 1280, height: 800 };
/** Cold opens of the bot builder (each types 20 characters too): fewer than the inbox's, each costs more. */
const BUILDER_LOADS = 5;

/** p50 / p95 / max of a list of milliseconds. */
export function summary(values) {
	const sorted = Float64Array.from(values).sort();
	const at = (q) => (sorted.length === 0 ? null : round(percentile(sorted, q)));
	return { count: sorted.length, p50Ms: at(0.5), p95Ms: at(0.95), maxMs: at(1) };
}

/**
 * Runs in the page before any of its scripts (an init script): records main-thread long tasks (> 50 ms) and
 * the first animation frame in which a conversation row of the list is visible.
 */
function probe() {
	const bench = { longTasks: [], firstRowAt: null };
	window.__bench = bench;
	new PerformanceObserver((list) => {
		for (const entry of list.getEntries()) bench.longTasks.push([entry.startTime, entry.duration]);
	}).observe({ type: 'longtask', buffered: true });
	const observer = new MutationObserver(() => {
		const row = document.querySelector('[role="listbox"] [role="option"]');
		if (!row?.checkVisibility()) return;
		observer.disconnect();
		requestAnimationFrame(() => {
			bench.firstRowAt = performance.now();
		});
	});
	observer.observe(document, { childList: true, subtree: true });
}

/**
 * In the page: once the first row is on screen, the end of the last long task that starts before QUIET_MS of
 * quiet follow (Lighthouse's time-to-interactive rule, with a window fit for a page already loaded: its data
 * is in, only the main thread can still be busy). Null until that window has passed.
 */
function interactiveAt(quietMs) {
	const { firstRowAt, longTasks } = window.__bench;
	if (firstRowAt === null) return null;
	let at = firstRowAt;
	for (const [start, duration] of [...longTasks].sort((a, b) => a[0] - b[0])) {
		if (start < at + quietMs && start + duration > at) at = start + duration;
	}
	return performance.now() >= at + quietMs ? { interactiveMs: at, firstRowMs: firstRowAt } : null;
}

/** In the page: clicks the first row and resolves with the ms until the list shows it selected (the route moved). */
function clickFirstRow(timeoutMs) {
	const row = document.querySelector('[role="listbox"] [role="option"]');
	return new Promise((resolve, reject) => {
		const started = performance.now();
		const observer = new MutationObserver(() => {
			if (document.querySelector('[role="option"][aria-selected="true"]') === null) return;
			observer.disconnect();
			resolve(performance.now() - started);
		});
		observer.observe(document, { subtree: true, childList: true, attributes: true });
		setTimeout(() => reject(new Error('the clicked row was not selected in time')), timeoutMs);
		row.click();
	});
}

/** A fresh context signed in with the session (cookies only), the probe installed, and what it downloads. */
async function signedInContext(browser, state, baseUrl) {
	const context = await browser.newContext({ storageState: state, viewport: VIEWPORT });
	await context.addInitScript(probe);
	const downloads = [];
	context.on('response', (response) => {
		if (!response.url().startsWith(baseUrl)) return;
		const type = response.request().resourceType();
		if (['document', 'script', 'stylesheet'].includes(type)) downloads.push({ type, response });
	});
	return { context, downloads };
}

/** The bodies of what the load fetched, by kind: raw and gzip (level 9) bytes, the files. */
async function firstLoadBytes(downloads, baseUrl) {
	const kinds = { document: [], script: [], stylesheet: [] };
	for (const { type, response } of downloads) {
		const body = await response.body().catch(() => Buffer.alloc(0));
		const path = response.url().slice(baseUrl.length);
		kinds[type].push({ path, bytes: body.length, gzip: gzipSync(body, { level: 9 }).length });
	}
	const total = (files) => ({
		files,
		bytes: files.reduce((t, f) => t + f.bytes, 0),
		gzip: files.reduce((t, f) => t + f.gzip, 0),
	});
	const script = total(kinds.script);
	return {
		html: total(kinds.document),
		script: { ...script, budget: SCRIPT_BUDGET_GZIP, ratioToBudget: ratio(script.gzip, SCRIPT_BUDGET_GZIP) },
		css: total(kinds.stylesheet),
	};
}

/** Signs in through the console's own form once; returns the session's storage state for the loads. */
async function signIn(browser, baseUrl, email, password) {
	const context = await browser.newContext({ viewport: VIEWPORT });
	try {
		const page = await context.newPage();
		await page.goto(`${baseUrl}/console/`);
		await page.getByLabel('E-mail').fill(email);
		await page.getByLabel('Password').fill(password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.locator('[role="listbox"] [role="option"]').first().waitFor({ timeout: TIMEOUT_MS });
		return await context.storageState();
	} finally {
		await context.close();
	}
}

/** One cold load of /console: time to interactive, and the first row's click to its selection. */
async function coldLoad(browser, state, baseUrl) {
	const { context, downloads } = await signedInContext(browser, state, baseUrl);
	try {
		const page = await context.newPage();
		await page.goto(`${baseUrl}/console/`);
		const handle = await page.waitForFunction(interactiveAt, QUIET_MS, { timeout: TIMEOUT_MS, polling: 50 });
		const { interactiveMs, firstRowMs } = await handle.jsonValue();
		const clickMs = await page.evaluate(clickFirstRow, TIMEOUT_MS);
		const longTasks = await page.evaluate(() => window.__bench.longTasks.length);
		return { interactiveMs, firstRowMs, clickMs, longTasks, bytes: await firstLoadBytes(downloads, baseUrl) };
	} finally {
		await context.close();
	}
}

/** A fresh context's load of the Worker's static index page: navigation start to the end of its load event. */
async function baselineLoad(browser, baseUrl) {
	const context = await browser.newContext({ viewport: VIEWPORT });
	try {
		const page = await context.newPage();
		await page.goto(`${baseUrl}/`);
		const loaded = await page.waitForFunction(
			() => performance.getEntriesByType('navigation')[0]?.loadEventEnd || null,
			undefined,
			{ timeout: TIMEOUT_MS },
		);
		return await loaded.jsonValue();
	} finally {
		await context.close();
	}
}

/**
 * In the page: scrolls the list one screen at a time to its last conversation. Each step is timed from the
 * scroll to the animation frame after the one that drew the rows now in view; at the end of what is loaded,
 * the wait for the next page (the list fetches 100 at a time) is timed apart. Every frame's interval is kept.
 */
async function scrollToEnd({ expected, timeoutMs }) {
	const list = document.querySelector('[role="listbox"]');
	// The console's own row height, read from a row drawn on screen (it changes with the design).
	const rowHeight = list.querySelector('[role="option"]').getBoundingClientRect().height;
	const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
	const frames = [];
	let previous = null;
	let running = true;
	const tick = (time) => {
		if (previous !== null) frames.push(time - previous);
		previous = time;
		if (running) requestAnimationFrame(tick);
	};
	requestAnimationFrame(tick);
	const steps = [];
	const fetchWaits = [];
	let domRowsMax = 0;
	const began = performance.now();
	const end = () => list.scrollHeight - list.clientHeight;
	while (list.scrollTop < end() - 1 || list.scrollHeight < expected * rowHeight) {
		if (performance.now() - began > timeoutMs) throw new Error(`scrolling stopped at ${list.scrollTop} px`);
		if (list.scrollTop >= end() - 1) {
			const waited = performance.now();
			while (list.scrollTop >= end() - 1 && performance.now() - waited < timeoutMs) await frame();
			fetchWaits.push(performance.now() - waited);
			continue;
		}
		const started = performance.now();
		list.scrollTop = Math.min(list.scrollTop + list.clientHeight, end());
		const top = list.getBoundingClientRect().top;
		const covered = () =>
			[...list.querySelectorAll('[role="option"]')].some((row) => {
				const box = row.getBoundingClientRect();
				return box.top <= top + 1 && box.bottom > top + 1;
			});
		do await frame();
		while (!covered() && performance.now() - started < timeoutMs);
		await frame();
		steps.push(performance.now() - started);
		domRowsMax = Math.max(domRowsMax, list.querySelectorAll('[role="option"]').length);
	}
	running = false;
	return {
		steps,
		fetchWaits,
		frames,
		domRowsMax,
		domRowsEnd: list.querySelectorAll('[role="option"]').length,
		rows: Math.round(list.scrollHeight / rowHeight),
		seconds: (performance.now() - began) / 1000,
	};
}

/** The scroll over the whole list, on a page signed in and interactive. */
async function scrollFigures(browser, state, baseUrl, conversations) {
	const { context } = await signedInContext(browser, state, baseUrl);
	try {
		const page = await context.newPage();
		await page.goto(`${baseUrl}/console/`);
		await page.waitForFunction(interactiveAt, QUIET_MS, { timeout: TIMEOUT_MS, polling: 50 });
		const run = await page.evaluate(scrollToEnd, {
			expected: conversations,
			timeoutMs: 10 * 60_000,
		});
		const slowFrames = run.frames.filter((ms) => ms > 50).length;
		return {
			rows: run.rows,
			screens: run.steps.length,
			step: summary(run.steps),
			fetchWaits: summary(run.fetchWaits),
			frames: { ...summary(run.frames), over50Ms: slowFrames },
			domRowsMax: run.domRowsMax,
			domRowsEnd: run.domRowsEnd,
			seconds: round(run.seconds, 1),
		};
	} finally {
		await context.close();
	}
}

/**
 * Measures the console against a running Worker (`baseUrl`) for a workspace of `conversations` open
 * conversations whose admin signs in with `email` and `password`: `loads` cold loads (after WARMUP_LOADS) and
 * as many of the static baseline, in rotation, then the scroll. Returns a plain result; `problems` lists what
 * the run should warn about (a budget missed, a list that did not end where expected).
 */
export async function measureConsole({ baseUrl, email, password, token, conversations, loads, healthP50Ms }) {
	const browser = await launchChromium();
	const started = performance.now();
	try {
		const state = await signIn(browser, baseUrl, email, password);
		const runs = [];
		const baseline = [];
		for (let i = 0; i < WARMUP_LOADS + loads; i++) {
			const run = await coldLoad(browser, state, baseUrl);
			const base = await baselineLoad(browser, baseUrl);
			if (i < WARMUP_LOADS) continue;
			runs.push(run);
			baseline.push(base);
		}
		const scroll = await scrollFigures(browser, state, baseUrl, conversations);
		const figures = summarize({ runs, baseline, scroll, conversations, healthP50Ms, started });
		try {
			figures.builder = await measureBuilder({
				browser,
				state,
				baseUrl,
				token,
				loads: Math.min(loads, BUILDER_LOADS),
				baselineP50Ms: figures.baseline.p50Ms,
			});
		} catch (error) {
			figures.builder = null;
			figures.problems.push(`builder: ${error.message}`);
		}
		return figures;
	} finally {
		await browser.close();
	}
}

function summarize({ runs, baseline, scroll, conversations, healthP50Ms, started }) {
	const problems = [];
	const interactive = summary(runs.map((r) => r.interactiveMs));
	const base = summary(baseline);
	const firstLoad = runs[0].bytes;
	if (firstLoad.script.gzip > SCRIPT_BUDGET_GZIP) problems.push(`console: ${firstLoad.script.gzip} B gzip of script`);
	if (interactive.p95Ms > INTERACTIVE_BUDGET_MS) problems.push(`console: interactive p95 ${interactive.p95Ms} ms`);
	if (scroll.rows !== conversations) problems.push(`console: the list ended after ${scroll.rows} rows`);
	return {
		conversations,
		loads: runs.length,
		warmupLoads: WARMUP_LOADS,
		quietWindowMs: QUIET_MS,
		viewport: VIEWPORT,
		firstLoad,
		interactive: {
			...interactive,
			budgetMs: INTERACTIVE_BUDGET_MS,
			p50RatioToBudget: ratio(interactive.p50Ms, INTERACTIVE_BUDGET_MS),
			p95RatioToBudget: ratio(interactive.p95Ms, INTERACTIVE_BUDGET_MS),
			p50RatioToBaseline: ratio(interactive.p50Ms, base.p50Ms),
			p50RatioToHealth: ratio(interactive.p50Ms, healthP50Ms),
			longTasksPerLoad: Math.max(...runs.map((r) => r.longTasks)),
		},
		firstRow: summary(runs.map((r) => r.firstRowMs)),
		click: summary(runs.map((r) => r.clickMs)),
		baseline: base,
		scroll,
		totalSeconds: round((performance.now() - started) / 1000, 1),
		problems,
	};
}
