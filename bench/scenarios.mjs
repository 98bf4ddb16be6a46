// The scenarios and webhooks section of `npm run bench`:
// - webhook runs: N signed calls to a scenario's inbound webhook (8 at a time), each run finding or creating a
//   contact and keeping a variable. From each run's own record: webhook accepted → run succeeded (p50/p99),
//   and runs completed per second from the first call to the last completion; against GET /health in the same
//   run (p50 of sequential requests, and the closed loop's throughput).
// - outbound deliveries: N events (tags created, 8 at a time) delivered to a local receiver that verifies each
//   signature with `svix`; deliveries per second from the first event to the last delivery received.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Webhook as Signer } from 'standardwebhooks';
import { Webhook } from 'svix';
import { inPool } from './fanout.mjs';
import { allPages, apiCall as api, latencySummary, sequentialHealth } from './load.mjs';
import { ratio, round } from './report-format.mjs';

const DONE_TIMEOUT_MS = 300_000;

/** Standard Webhooks headers for `body`, as a sender signs them with the standard's own library. */
function signed(secret, id, body) {
	const at = new Date();
	const signature = new Signer(secret).sign(id, at, body);
	return {
		'webhook-id': id,
		'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
		'webhook-signature': signature,
	};
}

async function webhookRuns({ baseUrl, workspace, calls, log }) {
	// The calls arrive far faster than flood protection's default 100 runs a minute: a load test, not a loop.
	await api(baseUrl, workspace.token, 'PATCH', '/v3/automation-settings', { scenarioRunsPerMinute: 100_000 });
	const scenario = await api(baseUrl, workspace.token, 'POST', '/v3/scenarios', {
		name: 'bench order',
		definition: {
			start: 'find',
			steps: [
				{
					id: 'find',
					type: 'find_contact',
					by: 'email',
					value: '{{ email }}',
					variable: 'contact',
					next: 'keep',
					onNotFound: 'create',
				},
				{
					id: 'create',
					type: 'create_contact',
					name: '{{ name }}',
					email: '{{ email }}',
					variable: 'contact',
					next: 'keep',
				},
				{ id: 'keep', type: 'set_variables', values: { order: '{{ orderId }} for {{ contact.id }}' } },
			],
		},
	});
	await api(baseUrl, workspace.token, 'POST', `/v3/scenarios/${scenario.id}/publish`);
	const webhook = await api(baseUrl, workspace.token, 'POST', `/v3/scenarios/${scenario.id}/webhooks`, {
		name: 'bench',
	});
	const acceptLatencies = [];
	const began = Date.now();
	await inPool(calls, 8, async (i) => {
		const body = JSON.stringify({
			orderId: `o${i}`,
			name: `Buyer ${i % 100}`,
			email: `buyer-${i % 100}@bench.example`,
		});
		const started = performance.now();
		const response = await fetch(`${baseUrl}/v3/workflows/webhook/${webhook.id}`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', ...signed(webhook.secret, `bench-${i}`, body) },
			body,
			signal: AbortSignal.timeout(30_000),
		});
		if (response.status !== 202) throw new Error(`webhook call ${i}: ${response.status} ${await response.text()}`);
		await response.arrayBuffer();
		acceptLatencies.push(performance.now() - started);
	});
	log(
		`scenarios: ${calls} webhook calls accepted in ${((Date.now() - began) / 1000).toFixed(1)} s; waiting for the runs`,
	);
	const deadline = Date.now() + DONE_TIMEOUT_MS;
	let runs = [];
	for (;;) {
		runs = await allPages(baseUrl, workspace.token, `/v3/scenarios/${scenario.id}/runs?limit=100`);
		const open = runs.filter((r) => r.status !== 'succeeded' && r.status !== 'failed').length;
		if ((runs.length >= calls && open === 0) || Date.now() > deadline) break;
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
	const succeeded = runs.filter((r) => r.status === 'succeeded');
	const toDone = succeeded.map((r) => Date.parse(r.finishedAt) - Date.parse(r.createdAt));
	const first = Math.min(...runs.map((r) => Date.parse(r.createdAt)));
	const last = Math.max(...succeeded.map((r) => Date.parse(r.finishedAt)));
	return {
		calls,
		runs: runs.length,
		succeeded: succeeded.length,
		failed: runs.filter((r) => r.status === 'failed').length,
		accepted: latencySummary(acceptLatencies),
		webhookToDone: latencySummary(toDone),
		runsPerSecond: round(succeeded.length / Math.max(0.001, (last - first) / 1000), 1),
	};
}

/** A local receiver that checks every delivery's signature with svix, and when the deliveries came. */
function receiver(secretOf) {
	const arrivals = [];
	let forged = 0;
	const server = createServer((request, response) => {
		const chunks = [];
		request.on('data', (chunk) => chunks.push(chunk));
		request.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			try {
				new Webhook(secretOf()).verify(body, request.headers);
				arrivals.push({ at: Date.now(), id: request.headers['webhook-id'] });
				response.writeHead(204).end();
			} catch {
				forged++;
				response.writeHead(401).end();
			}
		});
	});
	return {
		arrivals,
		forged: () => forged,
		listen: () => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port))),
		close: () => new Promise((resolve) => server.close(resolve)),
	};
}

async function outboundDeliveries({ baseUrl, workspace, events, log }) {
	let secret = '';
	const local = receiver(() => secret);
	const port = await local.listen();
	try {
		const endpoint = await api(baseUrl, workspace.token, 'POST', '/v3/webhooks', {
			url: `http://127.0.0.1:${port}/hook`,
			events: ['tag.created'],
		});
		secret = endpoint.secret;
		const began = Date.now();
		await inPool(events, 8, (i) => api(baseUrl, workspace.token, 'POST', '/v3/tags', { name: `bench-${i}` }));
		log(`webhooks: ${events} events made in ${((Date.now() - began) / 1000).toFixed(1)} s; waiting for deliveries`);
		const deadline = Date.now() + DONE_TIMEOUT_MS;
		while (new Set(local.arrivals.map((a) => a.id)).size < events && Date.now() < deadline) {
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
		const distinct = new Set(local.arrivals.map((a) => a.id)).size;
		const last = Math.max(...local.arrivals.map((a) => a.at));
		return {
			events,
			delivered: distinct,
			duplicates: local.arrivals.length - distinct,
			forged: local.forged(),
			deliveriesPerSecond: round(distinct / Math.max(0.001, (last - began) / 1000), 1),
		};
	} finally {
		await local.close();
	}
}

export async function scenarioSection({
	baseUrl,
	runWorkspace,
	webhookWorkspace,
	calls,
	events,
	health,
	warnings,
	log,
}) {
	log(`scenarios: ${calls} signed webhook calls to a find-or-create-contact scenario`);
	const runs = await webhookRuns({ baseUrl, workspace: runWorkspace, calls, log });
	if (runs.succeeded !== calls)
		warnings.push(`scenarios: ${runs.succeeded} of ${calls} runs succeeded (${runs.failed} failed)`);
	const healthSequential = await sequentialHealth(baseUrl, 200);
	log(`webhooks: ${events} events to a local receiver`);
	const outbound = await outboundDeliveries({ baseUrl, workspace: webhookWorkspace, events, log });
	if (outbound.delivered !== events) warnings.push(`webhooks: ${outbound.delivered} of ${events} events delivered`);
	if (outbound.forged > 0) warnings.push(`webhooks: ${outbound.forged} deliveries failed svix's verification`);
	return {
		runs,
		outbound,
		healthSequential,
		ratios: {
			webhookToDoneP50: ratio(runs.webhookToDone.p50Ms, healthSequential.p50Ms),
			webhookToDoneP99: ratio(runs.webhookToDone.p99Ms, healthSequential.p99Ms),
			runsPerSecondToHealthRps: health ? ratio(runs.runsPerSecond, health.rps) : null,
			deliveriesPerSecondToHealthRps: health ? ratio(outbound.deliveriesPerSecond, health.rps) : null,
		},
	};
}
