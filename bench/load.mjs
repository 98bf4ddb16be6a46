// A closed-loop load generator: `concurrency` workers, each sending its next request as soon as the
// previous one has been answered. Bounded by time (warm-up + duration), by a request cap and by a
// per-request timeout; only ever talks to the base URL it is given (127.0.0.1 in the benchmark).
import { performance } from 'node:perf_hooks';

const REQUEST_TIMEOUT_MS = 10_000;
const MAX_REQUESTS = 500_000;

/** The value at quantile `q` (0..1) of ascending `sorted`, by the nearest-rank method. */
export function percentile(sorted, q) {
	if (sorted.length === 0) return null;
	const rank = Math.ceil(q * sorted.length);
	return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

const round = (value, digits = 2) => (value === null ? null : Number(value.toFixed(digits)));

/** Summary figures for a list of latencies in milliseconds. */
export function latencySummary(latencies) {
	const sorted = Float64Array.from(latencies).sort();
	const mean = sorted.length === 0 ? null : sorted.reduce((sum, v) => sum + v, 0) / sorted.length;
	return {
		p50Ms: round(percentile(sorted, 0.5)),
		p90Ms: round(percentile(sorted, 0.9)),
		p99Ms: round(percentile(sorted, 0.99)),
		meanMs: round(mean),
		maxMs: round(sorted.length === 0 ? null : sorted[sorted.length - 1]),
	};
}

/**
 * Sends one request and reads its whole body. Returns the status (0 for a network error or timeout),
 * the latency in milliseconds and the response headers.
 */
export async function timedRequest(url, init = {}) {
	const started = performance.now();
	try {
		const response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
		await response.arrayBuffer();
		return { status: response.status, latencyMs: performance.now() - started, headers: response.headers };
	} catch (error) {
		return { status: 0, latencyMs: performance.now() - started, headers: null, error };
	}
}

/**
 * Runs a closed loop. `makeRequest(i)` returns `{ url, init }` for the i-th request. Requests that start
 * during the warm-up are sent but not recorded; the measured window runs from the end of the warm-up
 * until the last in-flight request has finished. A response counts as an error unless its status is
 * `expectStatus`.
 */
export async function closedLoop({ makeRequest, concurrency, warmupMs, durationMs, expectStatus }) {
	const start = performance.now();
	const measureFrom = start + warmupMs;
	const stopAt = measureFrom + durationMs;
	const latencies = [];
	const statuses = {};
	let errors = 0;
	let sent = 0;
	let firstError = null;
	let lastHeaders = null;

	async function worker() {
		while (sent < MAX_REQUESTS) {
			const now = performance.now();
			if (now >= stopAt) return;
			const { url, init } = makeRequest(sent++);
			const result = await timedRequest(url, init);
			if (now < measureFrom) continue;
			latencies.push(result.latencyMs);
			statuses[result.status] = (statuses[result.status] ?? 0) + 1;
			if (result.headers) lastHeaders = result.headers;
			if (result.status !== expectStatus) {
				errors++;
				firstError ??= result.error ? String(result.error) : `HTTP ${result.status}`;
			}
		}
	}

	await Promise.all(Array.from({ length: concurrency }, worker));
	const measuredMs = performance.now() - measureFrom;
	return {
		requests: latencies.length,
		errors,
		statuses,
		firstError,
		measuredSeconds: round(measuredMs / 1000, 3),
		rps: round(latencies.length / (measuredMs / 1000), 1),
		...latencySummary(latencies),
		lastHeaders,
	};
}

/** The N of a `Server-Timing: d1;desc="N queries"` header, or null when it is absent. */
export function d1QueryCount(headers) {
	const match = /d1;desc="(\d+) quer/.exec(headers?.get('server-timing') ?? '');
	return match ? Number(match[1]) : null;
}

/**
 * The entries of a Server-Timing value: `[{ name, dur, desc }]` in order (`dur` in ms, or null; `desc` or
 * null). Splits on commas outside quoted strings.
 */
export function parseServerTiming(value) {
	const entries = [];
	for (const [entry] of (value ?? '').matchAll(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g)) {
		const [name, ...params] = entry.trim().split(/;(?=(?:[^"]|"[^"]*")*$)/);
		if (!name) continue;
		const found = { name: name.trim(), dur: null, desc: null };
		for (const param of params) {
			const [key, ...rest] = param.trim().split('=');
			const text = rest.join('=');
			if (key === 'dur') found.dur = Number(text);
			else if (key === 'desc') found.desc = text.replace(/^"(.*)"$/, '$1');
		}
		entries.push(found);
	}
	return entries;
}

/** A JSON call to the API with a token; throws with the status and answer unless it is 2xx. */
export async function apiCall(baseUrl, token, method, path, body) {
	const response = await fetch(`${baseUrl}${path}`, {
		method,
		headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
		body: body ? JSON.stringify(body) : undefined,
		signal: AbortSignal.timeout(30_000),
	});
	const json = await response.json().catch(() => null);
	if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
	return json;
}

/** Every item of a paged API list (`path` with its query, without `cursor`), following `nextCursor`. */
export async function allPages(baseUrl, token, path) {
	const items = [];
	let cursor = null;
	do {
		const page = await apiCall(baseUrl, token, 'GET', `${path}${cursor ? `&cursor=${cursor}` : ''}`);
		items.push(...page.data);
		cursor = page.nextCursor;
	} while (cursor);
	return items;
}

/** GET /health one request at a time: the baseline sequential measurements are compared with. */
export async function sequentialHealth(baseUrl, requests) {
	const latencies = [];
	for (let i = 0; i < requests; i++) latencies.push((await timedRequest(`${baseUrl}/health`)).latencyMs);
	return latencySummary(latencies);
}
