// Where a request's time goes: sequential requests on an otherwise idle server, each answer's Server-Timing
// entries (src/db/server-timing.ts) collected per name, against the latency the client measured. What the
// Worker's entries do not cover (`total` against the client's latency) is the runtime's own time: the HTTP
// hop through `wrangler dev`, routing into the isolate, and CPU the Workers clock does not see.
import { parseServerTiming, percentile, timedRequest } from './load.mjs';

/** Entries every answer carries once; the others are what the request waited for. */
const SUMMARY_ENTRIES = new Set(['d1', 'hops', 'total']);

const median = (values) => {
	const sorted = Float64Array.from(values).sort();
	const value = percentile(sorted, 0.5);
	return value === null ? null : Number(value.toFixed(2));
};

// The Worker's clock counts whole milliseconds locally: the mean of many shows what a median of 1 or 2 hides.
const mean = (values) =>
	values.length === 0 ? null : Number((values.reduce((sum, v) => sum + v, 0) / values.length).toFixed(2));

/** The most frequent of `values` (ties: the first seen). */
function mostCommon(values) {
	const counts = new Map();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	let best = null;
	for (const [value, n] of counts) if (best === null || n > counts.get(best)) best = value;
	return best;
}

/**
 * Sends `warmup` unrecorded requests, then `requests` recorded ones, one at a time; `makeRequest(i)` returns
 * `{ url, init }`. Returns, per entry name in the order the answers list them, its usual description, how
 * many an answer carries and their median and mean duration; and the medians of the hops and the D1
 * statements, and the median and mean of the Worker's total, the client's latency and their difference.
 */
export async function timeBreakdown({ makeRequest, requests, warmup = 5, expectStatus }) {
	const perName = new Map();
	const hops = [];
	const statements = [];
	const totals = [];
	const latencies = [];
	const rests = [];
	let errors = 0;
	let firstError = null;
	for (let i = 0; i < warmup + requests; i++) {
		const { url, init } = makeRequest(i);
		const result = await timedRequest(url, init);
		if (i < warmup) continue;
		if (result.status !== expectStatus) {
			errors++;
			firstError ??= result.error ? String(result.error) : `HTTP ${result.status}`;
			continue;
		}
		const entries = parseServerTiming(result.headers.get('server-timing'));
		latencies.push(result.latencyMs);
		for (const { name, dur, desc } of entries) {
			if (name === 'hops') hops.push(Number(desc));
			else if (name === 'd1') statements.push(Number.parseInt(desc, 10));
			else if (name === 'total') {
				totals.push(dur);
				rests.push(result.latencyMs - dur);
			}
			if (SUMMARY_ENTRIES.has(name)) continue;
			const seen = perName.get(name) ?? { durations: [], descs: [] };
			seen.durations.push(dur);
			if (desc !== null) seen.descs.push(desc);
			perName.set(name, seen);
		}
	}
	const answered = latencies.length;
	return {
		requests,
		errors,
		firstError,
		entries: [...perName].map(([name, { durations, descs }]) => ({
			name,
			desc: mostCommon(descs),
			perRequest: answered === 0 ? null : Number((durations.length / answered).toFixed(2)),
			medianMs: median(durations),
			meanMs: mean(durations),
		})),
		hops: median(hops),
		d1Statements: median(statements),
		total: { medianMs: median(totals), meanMs: mean(totals) },
		client: { medianMs: median(latencies), meanMs: mean(latencies) },
		outsideWorker: { medianMs: median(rests), meanMs: mean(rests) },
	};
}

/**
 * The report's breakdowns: an operator message into one conversation of the large workspace (its room warm
 * after the first), the first message into each conversation of the small one (every room cold, as for the
 * throughput row's sends, which visit a new conversation each time), and a list page of the large workspace;
 * and the sequential latency of GET /health, what a request that does nothing costs end to end.
 */
export async function whereTheTimeGoes({ baseUrl, large, small, requests }) {
	const send = (workspace, conversationId, i) => ({
		url: `${baseUrl}/v3/messages`,
		init: {
			method: 'POST',
			headers: { Authorization: `Bearer ${workspace.token}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({ conversationId, text: `Breakdown message ${i}` }),
		},
	});
	const health = await timeBreakdown({
		requests,
		expectStatus: 200,
		makeRequest: () => ({ url: `${baseUrl}/health`, init: {} }),
	});
	const newest = large.conversationIds.at(-1);
	const postMessage = await timeBreakdown({
		requests,
		expectStatus: 201,
		makeRequest: (i) => send(large, newest, i),
	});
	const postFirstMessage = await timeBreakdown({
		requests: Math.min(requests, small.conversationIds.length),
		warmup: 0,
		expectStatus: 201,
		makeRequest: (i) => send(small, small.conversationIds[i], i),
	});
	const listConversations = await timeBreakdown({
		requests,
		expectStatus: 200,
		makeRequest: () => ({
			url: `${baseUrl}/v3/conversations?limit=25`,
			init: { headers: { Authorization: `Bearer ${large.token}` } },
		}),
	});
	return { health: health.client, routes: { postMessage, postFirstMessage, listConversations } };
}
