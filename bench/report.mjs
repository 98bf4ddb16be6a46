// Renders the benchmark's results as a plain-text table (stdout) and as Markdown (bench/results).

const show = (value, suffix = '') => (value === null || value === undefined ? 'n/a' : `${value}${suffix}`);

function scenarioRows(results) {
	const { health, widgetConfig, listConversations, postMessage } = results.scenarios;
	const rows = [
		['GET /health', health, null],
		...(widgetConfig ? [['GET /widget/{workspaceId}/config', widgetConfig, widgetConfig.ratioToHealth]] : []),
		['GET /v3/conversations?limit=25 (10k)', listConversations, listConversations.ratioToHealth],
		['POST /v3/messages (10k)', postMessage, postMessage.ratioToHealth],
	];
	const f = results.fanout;
	if (f) {
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

const faultCounts = (d) => `${d.lost} / ${d.duplicated} / ${d.outOfOrder} / ${d.wrongSeq} / ${d.unexpected}`;
const latencies = (l) =>
	`${show(l.p50Ms)} / ${show(l.p90Ms)} / ${show(l.p99Ms)} / ${show(l.meanMs)} / ${show(l.maxMs)} ms`;

function fanoutRows(f) {
	return [
		['conversations / open sockets (visitor + operator)', `${f.conversations} / ${f.sockets}`],
		['set-up: sessions, conversations and sockets', `${show(f.setupSeconds)} s`],
		['messages sent (with warm-up) / in the measured window', `${f.sent} / ${f.measuredSends}`],
		['messages received on visitor sockets', `${show(f.deliveredPerSecond)} msgs/s`],
		['visitor receipt p50 / p90 / p99 / mean / max', latencies(f.visitorReceipt)],
		['operator receipt p50 / p90 / p99 / mean / max', latencies(f.operatorReceipt)],
		['POST /v3/messages answer p50 / p90 / p99 / mean / max', latencies(f.postAnswer)],
		['visitor: lost / duplicated / out of order / wrong seq / unexpected', faultCounts(f.delivery.visitor)],
		['operator: lost / duplicated / out of order / wrong seq / unexpected', faultCounts(f.delivery.operator)],
		['sockets closed by the server during the run', String(f.socketsClosedEarly)],
		['every message exactly once, in seq order, on both sockets', f.exactlyOnceInOrder ? 'yes' : 'NO'],
		['msgs/s / health req/s', show(f.ratioToHealth.throughput)],
		['visitor receipt p50 / health p50', show(f.ratioToHealth.p50)],
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

function textTable(header, rows) {
	const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i].length)));
	const line = (row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
	return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function markdownTable(header, rows) {
	const line = (row) => `| ${row.join(' | ')} |`;
	const rule = header.map((_, i) => (i === 0 ? '---' : '---:'));
	return [line(header), line(rule), ...rows.map(line)].join('\n');
}

function fanoutSection(results) {
	const f = results.fanout;
	const lines = ['## Fan-out', ''];
	if (!f) return [...lines, 'Fan-out: not measured (see the warnings).', ''];
	return [
		...lines,
		`${f.conversations} conversations, each started through the widget endpoints and watched by a visitor socket ` +
			`and an operator socket. ${results.settings.concurrency} senders post operator messages with ` +
			'`POST /v3/messages`, round robin over the conversations; each waits for its answer and for the message ' +
			`on both sockets before sending the next. ${results.settings.warmupSeconds} s warm-up, then ` +
			`${results.settings.durationSeconds} s measured; latency runs from just before the request to the frame's ` +
			'arrival. Messages sent in the warm-up are checked for delivery but not timed.',
		'',
		markdownTable(['figure', 'value'], fanoutRows(f)),
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
	if (results.fanout) lines.push('', textTable(['fan-out figure', 'value'], fanoutRows(results.fanout)));
	if (results.widget)
		lines.push('', textTable(['widget figure', ...WIDGET_HEADER.slice(1)], widgetRows(results.widget)));
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
		'## Throughput and latency',
		'',
		markdownTable(SCENARIO_HEADER, scenarioRows(results)),
		'',
		...(results.fanout
			? [
					'Fan-out row: req/s counts messages received on the visitor sockets; p50 and p99 run from the send ' +
						'to the visitor receipt.',
					'',
				]
			: []),
		'## Scaling and D1 cost',
		'',
		markdownTable(['figure', 'value'], extraRows(results)),
		'',
		`Scaling: ${results.scaling.requestsEach} sequential requests each, alternating between the two workspaces.`,
		'',
		...fanoutSection(results),
		...widgetSection(results),
		`Run valid: ${results.valid ? 'yes' : 'NO'}.`,
	];
	if (results.warnings.length > 0) {
		lines.push('', '## Warnings', '', ...results.warnings.map((w) => `- ${w}`));
	}
	return `${lines.join('\n')}\n`;
}
