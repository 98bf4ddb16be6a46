// Renders the benchmark's results as a plain-text table (stdout) and as Markdown (bench/results).
import { campaignsSection, campaignsText } from './report-campaigns.mjs';
import { consoleSection, consoleText } from './report-console.mjs';
import { emailSection, emailText } from './report-email.mjs';
import { markdownTable, show, textTable } from './report-format.mjs';
import {
	automationSection,
	automationText,
	botsSection,
	botsText,
	breakdownSection,
	breakdownText,
	fanoutSection,
	fanoutText,
	roomSection,
	roomText,
	scenariosSection,
	scenariosText,
} from './report-live.mjs';
import { whatsappSection, whatsappText } from './report-whatsapp.mjs';

function scenarioRows(results) {
	const { health, widgetConfig, listConversations, postMessage, postMessageActive } = results.scenarios;
	const rows = [
		['GET /health', health, null],
		...(widgetConfig ? [['GET /widget/{workspaceId}/config', widgetConfig, widgetConfig.ratioToHealth]] : []),
		['GET /v3/conversations?limit=25 (10k)', listConversations, listConversations.ratioToHealth],
		['POST /v3/messages (10k), each into a room never used before', postMessage, postMessage.ratioToHealth],
		...(postMessageActive
			? [['POST /v3/messages (10k), into 200 rooms in use', postMessageActive, postMessageActive.ratioToHealth]]
			: []),
	];
	const r = results.room;
	if (r) {
		// Messages acknowledged per second, latency from the frame sent to its ack.
		const figures = { ...r.ack, rps: r.messagesPerSecond, requests: r.measuredSends, errors: r.errors };
		rows.push([`one room, ${r.sockets} sockets sending: message to ack`, figures, r.ratioToHealth]);
	}
	for (const f of results.fanout?.runs ?? []) {
		// Its throughput is messages received on the visitor sockets, its latency from send to visitor receipt.
		const figures = { ...f.visitorReceipt, rps: f.deliveredPerSecond, requests: f.measuredSends, errors: f.sendErrors };
		rows.push([`fan-out: API message to visitor socket (${f.conversations} conv.)`, figures, f.ratioToHealth]);
	}
	return rows.map(([name, s, ratio]) => [
		name,
		show(s.rps),
		show(s.p50Ms),
		show(s.p99Ms),
		String(s.requests),
		String(s.errors),
		ratio ? show(ratio.throughput) : '1',
		ratio ? show(ratio.p50) : '1',
	]);
}

const SCENARIO_HEADER = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'errors', 'rps / health', 'p50 / health'];

function extraRows(results) {
	const { scaling, d1QueriesPerListPage: q } = results;
	return [
		['list p50, 100-conversation workspace (sequential)', `${show(scaling.small.p50Ms)} ms`],
		['list p50, 10,000-conversation workspace (sequential)', `${show(scaling.large.p50Ms)} ms`],
		['scaling ratio p50 large / small', show(scaling.p50Ratio)],
		['D1 queries per list page, limit=1 / 25 / 100', `${show(q.limit1)} / ${show(q.limit25)} / ${show(q.limit100)}`],
		[
			'D1 statements per POST /v3/messages (Worker and conversation room)',
			show(results.scenarios.postMessage.d1Queries),
		],
	];
}

const kilobytes = (bytes) => `${(bytes / 1024).toFixed(1)} KB (${bytes} B)`;
const pair = (a, b) => `${show(a)} / ${show(b)} ms`;

const WIDGET_HEADER = ['figure', 'value', 'ratio', 'ratio to'];

/** Per kind of visitor (anonymous, identified): what a page costs before opening, and time to ready. */
function visitorRows(kind, v) {
	const { beforeOpen, returningBeforeOpen } = v.bytes;
	return [
		[
			`${kind}: first visit before opening, gzip`,
			kilobytes(beforeOpen.gzip),
			show(beforeOpen.ratioToBudget),
			'10 KB budget',
		],
		[
			`${kind}: next page view before opening, gzip`,
			kilobytes(returningBeforeOpen.gzip),
			show(returningBeforeOpen.ratioToBudget),
			'10 KB budget',
		],
		[
			`${kind}: requests before opening, first visit / next page view`,
			`${v.requestsBeforeOpen} / ${v.requestsReturning}`,
			show(v.requestsBeforeOpen / v.expectedRequestsBeforeOpen),
			`expected ${v.expectedRequestsBeforeOpen}, at most 3`,
		],
		[
			`${kind}: time to ready p50 / p99`,
			pair(v.ready.p50Ms, v.ready.p99Ms),
			show(v.ready.p50RatioToHealth),
			'health p50',
		],
	];
}

function widgetRows(w) {
	const { afterOpen } = w.visitors.anonymous.bytes;
	return [
		...Object.entries(w.visitors).flatMap(([kind, v]) => visitorRows(kind, v)),
		[
			'anonymous: after opening, + the chat file, gzip',
			kilobytes(afterOpen.gzip),
			show(afterOpen.ratioToBudget),
			'30 KB budget',
		],
		[
			'host page load event p50, without / with the widget',
			pair(w.load.withoutWidget.p50Ms, w.load.withWidget.p50Ms),
			show(w.load.p50Ratio),
			'page without the widget',
		],
		['open p50, first / second', pair(w.open.first.p50Ms, w.open.second.p50Ms), show(w.open.p50Ratio), 'second open'],
		[
			'visitor message to operator socket p50 / p99',
			pair(w.visitorToOperator.p50Ms, w.visitorToOperator.p99Ms),
			show(w.visitorToOperator.p50RatioToHealth),
			'health p50',
		],
		[
			'API message to widget log p50 / p99',
			pair(w.apiToWidget.p50Ms, w.apiToWidget.p99Ms),
			show(w.apiToWidget.p50RatioToHealth),
			'health p50',
		],
	];
}

function widgetSection(results) {
	const w = results.widget;
	const lines = ['## Widget', ''];
	if (!w) return [...lines, 'Widget: not measured (see the warnings).', ''];
	return [
		...lines,
		`Headless Chromium, ${w.visits} first visits of a small host page with the embed snippet for an anonymous ` +
			`visitor, ${w.visits} for an identified one (the page calls identify with a name, e-mail and identity JWT, ` +
			`as a logged-in user's page does), each followed by the same visitor's next page view, and ${w.visits} of ` +
			`the page without the snippet, in rotation, each in a fresh context (empty cache), after ${w.warmupVisits} ` +
			'unrecorded rounds; the page is served by Node on localhost, cross-origin to the Worker. Then one visitor ' +
			`starts a conversation that an operator socket joins and the two exchange ${w.visitorToOperator.messages} + ` +
			`${w.apiToWidget.messages} measured messages, one at a time. The section took ${show(w.totalSeconds)} s.`,
		'',
		markdownTable(WIDGET_HEADER, widgetRows(w)),
		'',
		'- **Before opening**: what a first visit downloads before the visitor opens the chat (the response bodies, gzip level 9); ' +
			"the next page view's figure counts what the browser's cache did not answer.",
		'- **After opening**: the same plus the chat file that opening imports.',
		'- **Requests before opening**: the requests the page makes to the Worker until the chat is opened: script and config, ' +
			'and for an identified visitor the session start that carries the identity.',
		"- **Load event**: navigation start to the end of the host page's load event; the ratio is what the snippet costs it.",
		"- **Ready**: navigation start to the widget's `ready` event (launcher on screen, config applied).",
		'- **Open**: a click on the launcher until the composer is visible; the first open imports the chat file.',
		"- **Visitor to operator**: the Enter key in the widget's composer until the `message` frame reaches an operator's socket.",
		"- **API to widget**: just before `POST /v3/messages` until its text is in the widget's message log.",
		'',
		`The health p50 is the one under ${results.settings.concurrency} concurrent clients above. The round trips ` +
			"start on one side's clock and end on the other's; the offset between the page's clock and Node's, " +
			`${show(w.clock.offsetMs)} ms (within ${show(w.clock.uncertaintyMs)} ms), is taken out.`,
		'',
	];
}

/** The human summary for stdout. */
export function textReport(results) {
	const lines = [
		textTable(SCENARIO_HEADER, scenarioRows(results)),
		'',
		textTable(['figure', 'value'], extraRows(results)),
	];
	for (const table of breakdownText(results)) lines.push('', table);
	const room = roomText(results);
	if (room) lines.push('', room);
	for (const table of fanoutText(results)) lines.push('', table);
	const bots = botsText(results);
	if (bots) lines.push('', bots);
	const scenarios = scenariosText(results);
	if (scenarios) lines.push('', scenarios);
	const automation = automationText(results);
	if (automation) lines.push('', automation);
	const campaigns = campaignsText(results);
	if (campaigns) lines.push('', campaigns);
	if (results.widget)
		lines.push('', textTable(['widget figure', ...WIDGET_HEADER.slice(1)], widgetRows(results.widget)));
	const consoleTable = consoleText(results);
	if (consoleTable) lines.push('', consoleTable);
	const emailTable = emailText(results);
	if (emailTable) lines.push('', emailTable);
	const whatsappTable = whatsappText(results);
	if (whatsappTable) lines.push('', whatsappTable);
	for (const warning of results.warnings) lines.push(`WARNING: ${warning}`);
	return lines.join('\n');
}

/** The Markdown report written next to the JSON. */
export function markdownReport(results) {
	const m = results.machine;
	const s = results.settings;
	const lines = [
		`# Parley benchmark, ${results.date}`,
		'',
		`Machine: ${m.hostname}, ${m.cpuModel} (${m.cpus} CPUs), ${m.memoryGiB} GiB RAM, ${m.platform}. ` +
			`Node ${results.node}, wrangler ${results.wrangler}.`,
		'',
		`Closed loop: ${s.concurrency} concurrent clients, ${s.warmupSeconds} s warm-up then ${s.durationSeconds} s ` +
			`measured per scenario. Data: ${results.dataset.largeConversations} conversations in the large workspace, ` +
			`${results.dataset.smallConversations} in the small one (one contact each).`,
		'',
		"> Absolute numbers come from `wrangler dev`'s local runtime (workerd, local D1 and Durable Objects) on this " +
			'machine, with the load generator sharing its CPUs; they say little about production. The comparable ' +
			'figures are the ratios against GET /health measured in the same run.',
		'',
		results.localObservability
			? '`wrangler dev` ran with its local trace store on (every invocation recorded), as `npm run dev` does.'
			: '`wrangler dev` ran with its local trace store off (`X_LOCAL_OBSERVABILITY=false`): it records every ' +
				'invocation (the request, each Durable Object call, each D1 statement) to SQLite for the local explorer, a ' +
				'development-only cost that taxes each extra hop far more than production does (see bench/server.mjs).',
		'',
		results.stateInMemory
			? "Its state (D1 and one SQLite file per Durable Object) was on a RAM disk (/dev/shm): on this VM's disk, " +
				"creating and committing those files added noise larger than the code's own cost (see bench/server.mjs)."
			: 'Its state (D1 and one SQLite file per Durable Object) was on disk.',
		'',
		'## Throughput and latency',
		'',
		markdownTable(SCENARIO_HEADER, scenarioRows(results)),
		'',
		...(results.room || results.fanout
			? [
					'Single-room row: req/s counts messages acknowledged on their sockets, p50 and p99 run from the ' +
						'frame sent to its ack. Fan-out rows: req/s counts messages received on the visitor sockets; ' +
						'p50 and p99 run from the send to the visitor receipt.',
					'',
				]
			: []),
		'## Scaling and D1 cost',
		'',
		markdownTable(['figure', 'value'], extraRows(results)),
		'',
		`Scaling: ${results.scaling.requestsEach} sequential requests each, alternating between the two workspaces.`,
		'',
		...breakdownSection(results),
		...roomSection(results),
		...fanoutSection(results),
		...botsSection(results),
		...scenariosSection(results),
		...automationSection(results),
		...campaignsSection(results),
		...widgetSection(results),
		...consoleSection(results),
		...emailSection(results),
		...whatsappSection(results),
		`Run valid: ${results.valid ? 'yes' : 'NO'}.`,
	];
	if (results.warnings.length > 0) {
		lines.push('', '## Warnings', '', ...results.warnings.map((w) => `- ${w}`));
	}
	return `${lines.join('\n')}\n`;
}
