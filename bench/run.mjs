// `npm run bench [-- --concurrency 8 --duration 8 --warmup 1 --scaling-requests 300 --breakdown-requests 100
//   --fanout-conversations 200,800 --widget-visits 15 --bot-rounds 200 --bot-delays 1000 --scenario-calls 1000
//   --webhook-events 500 --assignment-conversations 300 --rule-events 500 --campaign-contacts 1000
//   --console-loads 10 --email-mails 100 --email-deliveries 1000 --whatsapp-webhooks 200
//   --search-messages 1000000 --only widget-config|bots|scenarios|automation|campaigns|console|email|whatsapp|search|alerts]`
// Builds the widget, seeds a throw-away local D1 database (a 10,000- and a 100-conversation workspace, and
// empty ones for the single room, the fan-out and the widget), serves the Worker with `wrangler dev` on
// 127.0.0.1, measures GET /health, the widget's config read, the conversation list and message sending with a
// closed-loop load generator, where a request's time goes (Server-Timing, sequential requests), one
// conversation room written from eight sockets at once, the fan-out of API messages to open visitor and
// operator sockets at each size, bot replies and 1,000 bot delays, 1,000 signed webhook calls run as scenarios
// and outbound webhook deliveries to a local receiver, auto-assignment of conversations visitors start (and
// of a queue drained when the team comes online) and automation rules run from the events Queue, the
// conversations report over a year of 100,000 conversations and a campaign sent to 1,000 contacts, then the
// widget and the operator console (cold loads of the inbox over 10,000 conversations, its scroll) in Chromium,
// then e-mail (inbound mail to a readable message; 1,000 continuation mails of widget conversations handed to
// the binding, per second; every mail Queue message delivered again after its send was recorded, mails counted),
// then WhatsApp against the fake Graph API (a signed webhook to a readable message, every webhook delivered
// again; a 2,000-contact template campaign against Meta's 80 a second), and writes bench/results/latest.{json,md}
// and a dated copy. `--only console`, `--only email` and `--only whatsapp` write bench/results/<section>.{json,md}
// instead, leaving the full run's files as they are.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { applyMigrations, executeFile, query, seedWorkspaces } from '../scripts/local-db.mjs';
import { startFakeGraph } from '../test/fake-graph/server.mjs';
import { measureAlerts } from './alerts.mjs';
import { automationSection, ONE_AT_A_TIME } from './automation.mjs';
import { botSection } from './bots.mjs';
import { whereTheTimeGoes } from './breakdown.mjs';
import { campaignSection, seedReportYear } from './campaigns.mjs';
import { measureConsole } from './console.mjs';
import { writeDatasetSql } from './dataset.mjs';
import { emailSection } from './email.mjs';
import { seedRedeliverySentinel } from './email-redelivery.mjs';
import { fanoutSection, roomSection } from './live-sections.mjs';
import { closedLoop, d1QueryCount, latencySummary, timedRequest } from './load.mjs';
import { markdownReport, textReport } from './report.mjs';
import { alertsMarkdown } from './report-alerts.mjs';
import { consoleMarkdown } from './report-console.mjs';
import { emailMarkdown } from './report-email.mjs';
import { ratio } from './report-format.mjs';
import { searchMarkdown } from './report-search.mjs';
import { whatsappMarkdown } from './report-whatsapp.mjs';
import { scenarioSection } from './scenarios.mjs';
import { measureSearchStage, NEIGHBOUR_MESSAGES, SEARCH_STAGES, seedNeighbour, seedSearch } from './search.mjs';
import { buildAssets, startWranglerDev, stateRoot } from './server.mjs';
import { seedWhatsappContacts, whatsappSection } from './whatsapp.mjs';
import { measureWidget } from './widget.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const RESULTS = path.join(ROOT, 'bench', 'results');
const LARGE = { slug: 'bench-large', count: 10_000 };
const SMALL = { slug: 'bench-small', count: 100 };
// Start empty: the fan-out and the single room create their conversations through the widget endpoints, as
// visitors do.
const FANOUT = { slug: 'bench-fanout', count: 0 };
const ROOM = { slug: 'bench-room', count: 0 };
// Starts empty too: its one visitor starts the conversation the round trips use.
const WIDGET = { slug: 'bench-widget', count: 0 };
// Bots: an echo bot's replies, and the conversations that each wait on a Delay.
const BOT_REPLY = { slug: 'bench-bot-reply', count: 0 };
const BOT_DELAYS = { slug: 'bench-bot-delays', count: 0 };
// Scenarios: the runs of webhook calls, and the events delivered to a local receiver.
const SCENARIO_RUNS = { slug: 'bench-scenario-runs', count: 0 };
const WEBHOOKS = { slug: 'bench-webhooks', count: 0 };
const MAX_D1_QUERIES_PER_PAGE = 3;
// Conversations the active-rooms send loop cycles through (each had a message in the loop before it).
const ACTIVE_ROOMS = 200;
// High enough that the per-token limit (120/min by default) never throttles the benchmark.
const RATE_LIMIT_PER_MINUTE = 100_000_000;
// Every widget request comes from 127.0.0.1 and shares one per-IP bucket (30 sessions a minute by default).
const WIDGET_PER_IP_LIMIT = 100_000_000;

// wrangler needs Node >= 22: make sure every wrangler we spawn finds the project's node first.
process.env.PATH = `${path.join(ROOT, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`;

const { values: options } = parseArgs({
	options: {
		concurrency: { type: 'string', default: '8' },
		duration: { type: 'string', default: '8' },
		warmup: { type: 'string', default: '1' },
		'scaling-requests': { type: 'string', default: '300' },
		'breakdown-requests': { type: 'string', default: '100' },
		// Each size in turn, the same conversations grown: the ratio compares the largest with the smallest.
		'fanout-conversations': { type: 'string', default: '200,800' },
		'widget-visits': { type: 'string', default: '15' },
		'bot-rounds': { type: 'string', default: '200' },
		'bot-delays': { type: 'string', default: '1000' },
		'scenario-calls': { type: 'string', default: '1000' },
		'webhook-events': { type: 'string', default: '500' },
		'assignment-conversations': { type: 'string', default: '300' },
		'rule-events': { type: 'string', default: '500' },
		'campaign-contacts': { type: 'string', default: '1000' },
		'console-loads': { type: 'string', default: '10' },
		// Inbound mails timed one at a time (new, then as many replies); widget conversations continued by mail.
		'email-mails': { type: 'string', default: '100' },
		'email-deliveries': { type: 'string', default: '1000' },
		// Inbound WhatsApp webhooks timed one at a time.
		'whatsapp-webhooks': { type: 'string', default: '200' },
		// `--only search`: the messages of its last stage (the first is 100,000).
		'search-messages': { type: 'string', default: String(SEARCH_STAGES.at(-1)) },
		// `widget-config`: only GET /health and the widget's config read, printed, no results written. The other
		// sections print theirs; `console` also writes bench/results/console.{json,md} (never latest.*).
		only: { type: 'string' },
	},
});
const settings = {
	concurrency: boundedInt(options.concurrency, 1, 64, 'concurrency'),
	durationSeconds: boundedInt(options.duration, 1, 60, 'duration'),
	warmupSeconds: boundedInt(options.warmup, 0, 10, 'warmup'),
	scalingRequests: boundedInt(options['scaling-requests'], 10, 2_000, 'scaling-requests'),
	breakdownRequests: boundedInt(options['breakdown-requests'], 10, 1_000, 'breakdown-requests'),
	fanoutConversations: options['fanout-conversations']
		.split(',')
		.map((size) => boundedInt(size.trim(), 1, 1_000, 'fanout-conversations'))
		.sort((a, b) => a - b),
	widgetVisits: boundedInt(options['widget-visits'], 1, 100, 'widget-visits'),
	botRounds: boundedInt(options['bot-rounds'], 10, 2_000, 'bot-rounds'),
	botDelays: boundedInt(options['bot-delays'], 1, 5_000, 'bot-delays'),
	scenarioCalls: boundedInt(options['scenario-calls'], 10, 5_000, 'scenario-calls'),
	webhookEvents: boundedInt(options['webhook-events'], 10, 5_000, 'webhook-events'),
	assignmentConversations: boundedInt(options['assignment-conversations'], 10, 5_000, 'assignment-conversations'),
	ruleEvents: boundedInt(options['rule-events'], 10, 5_000, 'rule-events'),
	campaignContacts: boundedInt(options['campaign-contacts'], 10, 10_000, 'campaign-contacts'),
	consoleLoads: boundedInt(options['console-loads'], 1, 100, 'console-loads'),
	emailMails: boundedInt(options['email-mails'], 10, 2_000, 'email-mails'),
	emailDeliveries: boundedInt(options['email-deliveries'], 10, 5_000, 'email-deliveries'),
	whatsappWebhooks: boundedInt(options['whatsapp-webhooks'], 10, 2_000, 'whatsapp-webhooks'),
	searchMessages: boundedInt(options['search-messages'], 100_000, 2_000_000, 'search-messages'),
	rateLimitPerMinute: RATE_LIMIT_PER_MINUTE,
};
// Automation: the assignment workspace starts empty (visitors start its conversations); the rules workspace
// holds one seeded conversation per tag the rules section applies.
const ASSIGNMENT = { slug: 'bench-assignment', count: 0 };
const RULES = { slug: 'bench-rules', count: settings.ruleEvents + ONE_AT_A_TIME };
// Campaigns and reports: the report workspace's year is written by SQL of its own (bench/campaigns.mjs); the
// campaign goes to every contact of its workspace (one per seeded conversation).
const REPORTS = { slug: 'bench-reports', count: 0 };
const CAMPAIGN = { slug: 'bench-campaign', count: settings.campaignContacts };
// The console's inbox over a realistic list: its admin signs in with the seeded password.
const CONSOLE = { slug: 'bench-console', count: 10_000 };
// E-mail: starts empty; its conversations come in by mail.
const EMAIL = { slug: 'bench-email', count: 0 };
// WhatsApp: starts empty; its campaign's contacts are written by SQL (bench/whatsapp.mjs), its conversations
// come in by webhook.
const WHATSAPP = { slug: 'bench-whatsapp', count: 0 };
// Search: its conversations and messages are written by SQL (bench/search.mjs), in two stages.
const SEARCH = { slug: 'bench-search', count: 0 };
// Alerts: one console and one visitor (bench/alerts.mjs).
const ALERTS = { slug: 'bench-alerts', count: 0 };
// Its busier neighbour: a second workspace whose newer messages all match the queries (bench/search.mjs).
const SEARCH_NEIGHBOUR = { slug: 'bench-search-neighbour', count: 0 };
/** Where wrangler dev keeps the run's D1 and Durable Object state (see stateRoot). */
const STATE = stateRoot();
/** The fake Graph API of the run (started in main), which wrangler dev calls as WHATSAPP_GRAPH_URL. */
let fakeGraph = null;

function boundedInt(text, min, max, name) {
	const value = Number(text);
	if (!Number.isInteger(value) || value < min || value > max) {
		throw new Error(`--${name} must be an integer from ${min} to ${max}`);
	}
	return value;
}

function log(message) {
	console.error(`[bench] ${message}`);
}

function packageVersion(name) {
	try {
		return JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
	} catch {
		return null;
	}
}

/** Seeds the workspaces into `persistTo`; returns their tokens and conversation ids. */
async function seed(persistTo, all) {
	await applyMigrations(persistTo);
	const seeded = await seedWorkspaces(
		all.map((w) => w.slug),
		persistTo,
	);
	const workspaces = seeded.map(({ slug, workspaceId, operatorId, token, email, password }, i) => ({
		slug,
		count: all[i].count,
		workspaceId,
		operatorId,
		token,
		email,
		password,
	}));
	const file = path.join(persistTo, 'bench-dataset.sql');
	const ids = await writeDatasetSql(file, workspaces);
	// wrangler refuses a file with no statement (only empty workspaces, as with --only).
	if (workspaces.some((w) => w.count > 0)) executeFile(file, persistTo);
	const [counts] = query(
		'SELECT workspace_id AS id, COUNT(*) AS n FROM conversations GROUP BY workspace_id',
		persistTo,
	);
	for (const workspace of workspaces) {
		const found = counts.find((row) => row.id === workspace.workspaceId)?.n ?? 0;
		if (found !== workspace.count) {
			throw new Error(`${workspace.slug}: expected ${workspace.count} conversations, found ${found}`);
		}
		workspace.conversationIds = ids[workspace.slug];
	}
	return Object.fromEntries(workspaces.map((w) => [w.slug, w]));
}

function listRequest(baseUrl, token, limit) {
	return {
		url: `${baseUrl}/v3/conversations?limit=${limit}`,
		init: { headers: { Authorization: `Bearer ${token}` } },
	};
}

/** One list page per limit: checks it and reads its D1 query count from Server-Timing. */
async function listQueryCounts(baseUrl, token, warnings) {
	const counts = {};
	// The token's first use reads it from D1 into its gate, once: not a cost of the page, so it is spent first.
	const first = listRequest(baseUrl, token, 1);
	await (await fetch(first.url, { ...first.init, signal: AbortSignal.timeout(10_000) })).arrayBuffer();
	for (const limit of [1, 25, 100]) {
		const { url, init } = listRequest(baseUrl, token, limit);
		const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
		const body = await response.json();
		if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${JSON.stringify(body)}`);
		if (body.data.length !== limit) warnings.push(`limit=${limit} returned ${body.data.length} conversations`);
		const n = d1QueryCount(response.headers);
		counts[`limit${limit}`] = n;
		if (n === null) warnings.push(`limit=${limit}: no Server-Timing d1 header`);
		else if (n > MAX_D1_QUERIES_PER_PAGE) {
			warnings.push(`limit=${limit}: ${n} D1 queries per list page (expected <= ${MAX_D1_QUERIES_PER_PAGE})`);
		}
	}
	if (new Set(Object.values(counts)).size > 1) {
		warnings.push(`D1 queries per list page depend on the limit: ${JSON.stringify(counts)}`);
	}
	return counts;
}

/** Sequential list requests alternating between the small and the large workspace. */
async function scaling(baseUrl, small, large, requestsEach) {
	const latencies = { small: [], large: [] };
	let errors = 0;
	const warmup = 20;
	for (let i = 0; i < warmup + requestsEach; i++) {
		for (const [key, workspace] of [
			['small', small],
			['large', large],
		]) {
			const { url, init } = listRequest(baseUrl, workspace.token, 25);
			const result = await timedRequest(url, init);
			if (i < warmup) continue;
			if (result.status !== 200) errors++;
			latencies[key].push(result.latencyMs);
		}
	}
	const smallSummary = latencySummary(latencies.small);
	const largeSummary = latencySummary(latencies.large);
	return {
		requestsEach,
		errors,
		small: { conversations: small.count, ...smallSummary },
		large: { conversations: large.count, ...largeSummary },
		p50Ratio: ratio(largeSummary.p50Ms, smallSummary.p50Ms),
	};
}

function scenarioResult(run, health) {
	const { lastHeaders, ...figures } = run;
	const result = { ...figures, d1Queries: d1QueryCount(lastHeaders) };
	if (health) {
		result.ratioToHealth = { throughput: ratio(run.rps, health.rps), p50: ratio(run.p50Ms, health.p50Ms) };
	}
	return result;
}

/** The closed loop every throughput scenario runs, from the command line's settings. */
function loopSettings() {
	return {
		concurrency: settings.concurrency,
		warmupMs: settings.warmupSeconds * 1000,
		durationMs: settings.durationSeconds * 1000,
	};
}

async function measure(baseUrl, workspaces, warnings, persistTo) {
	const loop = loopSettings();
	const large = workspaces[LARGE.slug];
	const small = workspaces[SMALL.slug];

	const d1QueriesPerListPage = await listQueryCounts(baseUrl, large.token, warnings);

	const { health, widgetConfig } = await hotPath(baseUrl, workspaces, loop);
	log('measuring GET /v3/conversations?limit=25 on the 10,000-conversation workspace');
	const listConversations = scenarioResult(
		await closedLoop({ ...loop, expectStatus: 200, makeRequest: () => listRequest(baseUrl, large.token, 25) }),
		health,
	);
	log('measuring POST /v3/messages into the 10,000-conversation workspace');
	const ids = large.conversationIds;
	// A stride coprime with the id count visits every conversation before repeating one: each send wakes a
	// room that never served a message (its first use imports it from D1 and creates its storage).
	const send = (i, conversationIndex) => ({
		url: `${baseUrl}/v3/messages`,
		init: {
			method: 'POST',
			headers: { Authorization: `Bearer ${large.token}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({
				conversationId: ids[(conversationIndex * 7_919) % ids.length],
				text: `Bench message ${i}`,
			}),
		},
	});
	const postMessage = scenarioResult(
		await closedLoop({ ...loop, expectStatus: 201, makeRequest: (i) => send(i, i) }),
		health,
	);
	log(`measuring POST /v3/messages into ${ACTIVE_ROOMS} conversations the previous loop made active`);
	// The usual case of an inbox: a reply into a conversation whose room is already in use.
	const postMessageActive = scenarioResult(
		await closedLoop({ ...loop, expectStatus: 201, makeRequest: (i) => send(i, i % ACTIVE_ROOMS) }),
		health,
	);
	log(`measuring list scaling (${settings.scalingRequests} sequential requests per workspace)`);
	const scalingResult = await scaling(baseUrl, small, large, settings.scalingRequests);
	log(`measuring where the time goes (${settings.breakdownRequests} sequential requests per route)`);
	const breakdown = await whereTheTimeGoes({ baseUrl, large, small, requests: settings.breakdownRequests });
	const common = { baseUrl, loop, health, warnings, log };
	const room = await roomSection({ ...common, workspace: workspaces[ROOM.slug] });
	const fanout = await fanoutSection({
		...common,
		workspace: workspaces[FANOUT.slug],
		sizes: settings.fanoutConversations,
	});
	const bots = await botsOf(baseUrl, workspaces, warnings);
	const scenarioRuns = await scenariosOf(baseUrl, workspaces, health, warnings);
	const automation = await automationOf(baseUrl, workspaces, health, warnings);
	const campaigns = await campaignsOf(baseUrl, workspaces, health, warnings);
	const widget = await widgetResult(baseUrl, workspaces[WIDGET.slug], health, warnings);
	const consoleFigures = await consoleResult(baseUrl, workspaces[CONSOLE.slug], health, warnings);
	const email = await emailOf(baseUrl, workspaces, persistTo, health, warnings);
	const whatsapp = await whatsappOf(baseUrl, workspaces, health, warnings);

	const sequential = Object.entries(breakdown.routes).map(([name, b]) => [`breakdown ${name}`, b]);
	for (const [name, s] of [
		...Object.entries({ health, widgetConfig, listConversations, postMessage, postMessageActive }),
		...sequential,
	]) {
		if (s.errors > 0) {
			warnings.push(`${name}: ${s.errors} of ${s.requests} responses were not the expected status (${s.firstError})`);
		}
	}
	if (scalingResult.errors > 0) warnings.push(`scaling: ${scalingResult.errors} responses were not 200`);
	return {
		scenarios: { health, widgetConfig, listConversations, postMessage, postMessageActive },
		scaling: scalingResult,
		breakdown,
		room,
		fanout,
		bots,
		scenarioRuns,
		automation,
		campaigns,
		widget,
		console: consoleFigures,
		email,
		whatsapp,
		d1QueriesPerListPage,
	};
}

function scenariosOf(baseUrl, workspaces, health, warnings) {
	return scenarioSection({
		baseUrl,
		runWorkspace: workspaces[SCENARIO_RUNS.slug],
		webhookWorkspace: workspaces[WEBHOOKS.slug],
		calls: settings.scenarioCalls,
		events: settings.webhookEvents,
		health,
		warnings,
		log,
	});
}

function automationOf(baseUrl, workspaces, health, warnings) {
	return automationSection({
		baseUrl,
		assignmentWorkspace: workspaces[ASSIGNMENT.slug],
		rulesWorkspace: workspaces[RULES.slug],
		conversations: settings.assignmentConversations,
		events: settings.ruleEvents,
		health,
		warnings,
		log,
	});
}

function campaignsOf(baseUrl, workspaces, health, warnings) {
	return campaignSection({
		baseUrl,
		reportWorkspace: workspaces[REPORTS.slug],
		campaignWorkspace: workspaces[CAMPAIGN.slug],
		health,
		warnings,
		log,
	});
}

function whatsappOf(baseUrl, workspaces, health, warnings) {
	return whatsappSection({
		baseUrl,
		workspace: workspaces[WHATSAPP.slug],
		fake: fakeGraph,
		webhooks: settings.whatsappWebhooks,
		health,
		warnings,
		log,
	});
}

function emailOf(baseUrl, workspaces, persistTo, health, warnings) {
	return emailSection({
		baseUrl,
		workspace: workspaces[EMAIL.slug],
		mails: settings.emailMails,
		deliveries: settings.emailDeliveries,
		registryPath: registryPath(persistTo),
		persistTo,
		health,
		warnings,
		log,
	});
}

/**
 * wrangler's dev registry for this run only: the e-mail section's second Worker finds Parley's mail Queue
 * consumer there, and no other wrangler dev on the machine (another checkout's, with the same queue names).
 */
const registryPath = (persistTo) => path.join(persistTo, 'dev-registry');

function botsOf(baseUrl, workspaces, warnings) {
	return botSection({
		baseUrl,
		replyWorkspace: workspaces[BOT_REPLY.slug],
		delayWorkspace: workspaces[BOT_DELAYS.slug],
		rounds: settings.botRounds,
		delayConversations: settings.botDelays,
		warnings,
		log,
	});
}

/**
 * GET /health, then the config read every page view of every customer site makes (KV, no Durable Object
 * hop), measured in the same run so that their ratio compares like with like.
 */
async function hotPath(baseUrl, workspaces, loop) {
	log('measuring GET /health');
	const health = scenarioResult(
		await closedLoop({ ...loop, expectStatus: 200, makeRequest: () => ({ url: `${baseUrl}/health`, init: {} }) }),
	);
	log('measuring GET /widget/{workspaceId}/config');
	const url = `${baseUrl}/widget/${workspaces[WIDGET.slug].workspaceId}/config`;
	const widgetConfig = scenarioResult(
		await closedLoop({ ...loop, expectStatus: 200, makeRequest: () => ({ url, init: {} }) }),
		health,
	);
	return { health, widgetConfig };
}

/** Runs the widget section in Chromium; like the fan-out, a failure is a warning and a null result. */
async function widgetResult(baseUrl, workspace, health, warnings) {
	log(
		`measuring the widget in Chromium: ${settings.widgetVisits} anonymous and identified visits (and next page views) and of the plain page, round trips`,
	);
	try {
		const { problems, ...widget } = await measureWidget({
			baseUrl,
			workspaceId: workspace.workspaceId,
			token: workspace.token,
			visits: settings.widgetVisits,
			healthP50Ms: health.p50Ms,
		});
		warnings.push(...problems);
		return widget;
	} catch (error) {
		warnings.push(`widget failed: ${error.message}`);
		return null;
	}
}

/** Runs the console section in Chromium; like the widget's, a failure is a warning and a null result. */
async function consoleResult(baseUrl, workspace, health, warnings) {
	log(
		`measuring the console in Chromium: ${settings.consoleLoads} cold loads of the inbox over ${workspace.count} conversations, then its scroll`,
	);
	try {
		const { problems, ...figures } = await measureConsole({
			baseUrl,
			email: workspace.email,
			password: workspace.password,
			token: workspace.token,
			conversations: workspace.count,
			loads: settings.consoleLoads,
			healthP50Ms: health.p50Ms,
		});
		warnings.push(...problems);
		return figures;
	} catch (error) {
		warnings.push(`console failed: ${error.message}`);
		return null;
	}
}

/** The header every results file carries: when, on what, with what. */
function runFacts(server) {
	const cpus = os.cpus();
	return {
		date: new Date().toISOString(),
		machine: {
			hostname: os.hostname(),
			cpuModel: cpus[0]?.model ?? 'unknown',
			cpus: cpus.length,
			memoryGiB: Number((os.totalmem() / 1024 ** 3).toFixed(1)),
			platform: `${os.platform()} ${os.release()} ${os.arch()}`,
		},
		node: process.version,
		wrangler: packageVersion('wrangler'),
		workerd: packageVersion('workerd'),
		localObservability: server.localObservability,
		stateInMemory: STATE.memory,
		settings,
	};
}

/** `--only console|email`: its own files, so a partial run never replaces the full run's latest.{json,md}. */
async function writeSectionResults(name, results, markdown) {
	await mkdir(RESULTS, { recursive: true });
	const files = [
		[path.join(RESULTS, `${name}.json`), `${JSON.stringify(results, null, '\t')}\n`],
		[path.join(RESULTS, `${name}.md`), markdown(results)],
	];
	for (const [file, content] of files) await writeFile(file, content);
	console.log(JSON.stringify(results, null, '\t'));
	log(`wrote ${files.map(([file]) => path.relative(ROOT, file)).join(', ')}`);
}

async function writeResults(results, text) {
	await mkdir(RESULTS, { recursive: true });
	const json = `${JSON.stringify(results, null, '\t')}\n`;
	const host = os.hostname().replace(/[^A-Za-z0-9._-]/g, '_');
	const files = [
		[path.join(RESULTS, 'latest.json'), json],
		[path.join(RESULTS, 'latest.md'), markdownReport(results)],
		[path.join(RESULTS, `${results.date.slice(0, 10)}-${host}.json`), json],
	];
	for (const [file, content] of files) await writeFile(file, content);
	console.log(JSON.stringify(results, null, '\t'));
	console.log(`\n${text}\n`);
	log(`wrote ${files.map(([file]) => path.relative(ROOT, file)).join(', ')}`);
}

async function main() {
	const began = performance.now();
	const persistTo = await mkdtemp(path.join(STATE.dir, 'parley-bench-'));
	let server = null;
	const cleanup = async () => {
		await server?.stop();
		await Promise.race([fakeGraph?.close(), new Promise((resolve) => setTimeout(resolve, 2000))]);
		await rm(persistTo, { recursive: true, force: true });
	};
	for (const signal of ['SIGINT', 'SIGTERM']) {
		process.once(signal, () => {
			log(`${signal}: stopping wrangler dev`);
			cleanup().finally(() => process.exit(130));
		});
	}
	try {
		log('building the widget and the console (vite build)');
		buildAssets(ROOT);
		const only = options.only;
		const sections = [
			...['widget-config', 'bots', 'scenarios', 'automation', 'campaigns', 'console', 'email', 'whatsapp'],
			'search',
			'alerts',
		];
		if (only !== undefined && !sections.includes(only)) {
			throw new Error(`--only takes ${sections.join(', ')}`);
		}
		log(only ? `seeding the ${only} workspaces` : `seeding ${LARGE.count} + ${SMALL.count} conversations`);
		const seedStarted = performance.now();
		const workspaces = await seed(
			persistTo,
			only === 'widget-config'
				? [WIDGET]
				: only === 'bots'
					? [BOT_REPLY, BOT_DELAYS]
					: only === 'scenarios'
						? [WIDGET, SCENARIO_RUNS, WEBHOOKS]
						: only === 'automation'
							? [WIDGET, ASSIGNMENT, RULES]
							: only === 'campaigns'
								? [WIDGET, REPORTS, CAMPAIGN]
								: only === 'console'
									? [WIDGET, CONSOLE]
									: only === 'email'
										? [WIDGET, EMAIL]
										: only === 'whatsapp'
											? [WIDGET, WHATSAPP]
											: only === 'search'
												? [WIDGET, SEARCH, SEARCH_NEIGHBOUR]
												: only === 'alerts'
													? [WIDGET, ALERTS]
													: [
															...[SMALL, LARGE, ROOM, FANOUT, WIDGET, BOT_REPLY, BOT_DELAYS, SCENARIO_RUNS, WEBHOOKS],
															...[ASSIGNMENT, RULES, REPORTS, CAMPAIGN, CONSOLE, EMAIL, WHATSAPP],
														],
		);
		if (workspaces[WHATSAPP.slug]) await seedWhatsappContacts(persistTo, workspaces[WHATSAPP.slug].workspaceId);
		fakeGraph = await startFakeGraph();
		if (workspaces[REPORTS.slug]) await seedReportYear(persistTo, workspaces[REPORTS.slug].workspaceId);
		if (workspaces[EMAIL.slug]) await seedRedeliverySentinel(persistTo, workspaces[EMAIL.slug].workspaceId);
		const seedSeconds = (performance.now() - seedStarted) / 1000;

		const serve = () =>
			startWranglerDev({
				persistTo,
				env: { WRANGLER_REGISTRY_PATH: registryPath(persistTo) },
				vars: {
					RATE_LIMIT_PER_MINUTE,
					WIDGET_SESSIONS_PER_IP: WIDGET_PER_IP_LIMIT,
					WIDGET_MESSAGES_PER_IP: WIDGET_PER_IP_LIMIT,
					// The flood limit (300 a minute per workspace and address) would stop the closed loops at once.
					WIDGET_FLOOD_LIMIT: 'off',
					// Visitor sessions are signed with it; a fresh clone has no .dev.vars, and this state is thrown away.
					PARLEY_SECRET: randomBytes(32).toString('base64url'),
					// Outbound webhooks go to a receiver on 127.0.0.1: plain HTTP to loopback, refused when deployed.
					HTTPS_ONLY: 'off',
					OUTBOUND_LOOPBACK: 'on',
					// The campaign's throughput is measured, not the workspace's sending limit.
					CAMPAIGN_MESSAGES_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE),
					// The fake Graph API in this process: the WhatsApp section needs no network.
					WHATSAPP_GRAPH_URL: fakeGraph.url,
				},
			});
		const firstStage = SEARCH_STAGES[0];
		const searchSeed = workspaces[SEARCH.slug]
			? await seedSearch(persistTo, workspaces[SEARCH.slug].workspaceId, 0, firstStage, Date.now())
			: null;
		log('starting wrangler dev');
		server = await serve();
		log(`wrangler dev is answering on ${server.baseUrl}`);

		if (only === 'search') {
			const warnings = [];
			const { token, workspaceId } = workspaces[SEARCH.slug];
			const stage = (messages, seedSeconds) =>
				measureSearchStage({ baseUrl: server.baseUrl, token, messages, seedSeconds, warnings, log });
			const stages = [await stage(firstStage, searchSeed)];
			// wrangler dev lets go of the database while the rest is written, then serves it again.
			await server.stop();
			server = null;
			log(`seeding messages ${firstStage} to ${settings.searchMessages}`);
			const seconds = await seedSearch(persistTo, workspaceId, firstStage, settings.searchMessages, Date.now());
			server = await serve();
			stages.push(await stage(settings.searchMessages, seconds));
			await server.stop();
			server = null;
			log(`seeding ${NEIGHBOUR_MESSAGES} newer messages of another workspace`);
			const neighbourSeconds = await seedNeighbour(
				persistTo,
				workspaces[SEARCH_NEIGHBOUR.slug].workspaceId,
				Date.now(),
			);
			server = await serve();
			stages.push(
				await measureSearchStage({
					baseUrl: server.baseUrl,
					token,
					messages: settings.searchMessages,
					seedSeconds: neighbourSeconds,
					warnings,
					log,
					neighbour: NEIGHBOUR_MESSAGES,
				}),
			);
			const results = { ...runFacts(server), search: { stages }, valid: warnings.length === 0, warnings };
			await writeSectionResults('search', results, searchMarkdown);
			return;
		}

		if (only === 'widget-config') {
			const { health, widgetConfig } = await hotPath(server.baseUrl, workspaces, loopSettings());
			console.log(JSON.stringify({ health, widgetConfig }, null, '\t'));
			return;
		}
		if (only === 'scenarios') {
			const warnings = [];
			const { health } = await hotPath(server.baseUrl, workspaces, loopSettings());
			const scenarioRuns = await scenariosOf(server.baseUrl, workspaces, health, warnings);
			console.log(JSON.stringify({ health, scenarioRuns, warnings }, null, '\t'));
			return;
		}
		if (only === 'automation') {
			const warnings = [];
			const { health } = await hotPath(server.baseUrl, workspaces, loopSettings());
			const automation = await automationOf(server.baseUrl, workspaces, health, warnings);
			console.log(JSON.stringify({ health, automation, warnings }, null, '\t'));
			return;
		}
		if (only === 'campaigns') {
			const warnings = [];
			const { health } = await hotPath(server.baseUrl, workspaces, loopSettings());
			const campaigns = await campaignsOf(server.baseUrl, workspaces, health, warnings);
			console.log(JSON.stringify({ health, campaigns, warnings }, null, '\t'));
			return;
		}
		if (only === 'alerts') {
			const warnings = [];
			const alerts = await measureAlerts({
				baseUrl: server.baseUrl,
				workspace: workspaces[ALERTS.slug],
				warnings,
				log,
			});
			const results = { ...runFacts(server), alerts, valid: warnings.length === 0, warnings };
			await writeSectionResults('alerts', results, alertsMarkdown);
			return;
		}
		if (only === 'console') {
			const warnings = [];
			const { health } = await hotPath(server.baseUrl, workspaces, loopSettings());
			const figures = await consoleResult(server.baseUrl, workspaces[CONSOLE.slug], health, warnings);
			const results = { ...runFacts(server), health, console: figures, valid: warnings.length === 0, warnings };
			await writeSectionResults('console', results, consoleMarkdown);
			return;
		}
		if (only === 'email') {
			const warnings = [];
			const { health } = await hotPath(server.baseUrl, workspaces, loopSettings());
			const email = await emailOf(server.baseUrl, workspaces, persistTo, health, warnings);
			const results = { ...runFacts(server), health, email, valid: warnings.length === 0, warnings };
			await writeSectionResults('email', results, emailMarkdown);
			return;
		}
		if (only === 'whatsapp') {
			const warnings = [];
			const { health } = await hotPath(server.baseUrl, workspaces, loopSettings());
			const whatsapp = await whatsappOf(server.baseUrl, workspaces, health, warnings);
			const results = { ...runFacts(server), health, whatsapp, valid: warnings.length === 0, warnings };
			await writeSectionResults('whatsapp', results, whatsappMarkdown);
			return;
		}
		if (only === 'bots') {
			const warnings = [];
			const bots = await botsOf(server.baseUrl, workspaces, warnings);
			console.log(JSON.stringify({ bots, warnings }, null, '\t'));
			return;
		}
		const warnings = [];
		const figures = await measure(server.baseUrl, workspaces, warnings, persistTo);
		const results = {
			...runFacts(server),
			dataset: {
				largeConversations: LARGE.count,
				smallConversations: SMALL.count,
				fanoutConversations: settings.fanoutConversations,
				seedSeconds: Number(seedSeconds.toFixed(1)),
			},
			...figures,
			valid: warnings.length === 0,
			warnings,
			totalSeconds: Number(((performance.now() - began) / 1000).toFixed(1)),
		};
		await writeResults(results, textReport(results));
	} finally {
		await cleanup();
	}
}

try {
	await main();
} catch (error) {
	console.error(`[bench] failed: ${error.stack ?? error}`);
	process.exitCode = 1;
}
