// The report's sections on a message's path: where a request's time goes (Server-Timing), one conversation
// room written from eight sockets, the fan-out at each size with the ratio between sizes, and what runs behind
// the messages: bots, scenarios and webhooks, auto-assignment and automation rules. Each comes as plain text
// (stdout) and as Markdown lines (bench/results).
import { latencies, markdownTable, show, textTable } from './report-format.mjs';

const BREAKDOWN_TITLES = {
	postMessage: 'POST /v3/messages into one conversation of the 10k workspace (its room warm)',
	postFirstMessage: 'POST /v3/messages, the first message of each conversation of the 100 workspace (a cold room each)',
	listConversations: 'GET /v3/conversations?limit=25 (10k)',
};

const BREAKDOWN_HEADER = ['Server-Timing entry', 'what', 'per request', 'median ms', 'mean ms'];

function breakdownRows(b, health) {
	const times = (t) => [show(t.medianMs), show(t.meanMs)];
	return [
		...b.entries.map((e) => [e.name, e.desc ?? '', show(e.perRequest), ...times(e)]),
		['hops', 'round trips waited for in turn (median)', '1', show(b.hops), ''],
		['d1', 'D1 statements, Worker and Durable Objects (median)', '1', show(b.d1Statements), ''],
		['total', 'the Worker, from its D1 handle to the header', '1', ...times(b.total)],
		['client', 'latency the client measured', '1', ...times(b.client)],
		['rest', 'client minus total: runtime, HTTP, unseen CPU', '1', ...times(b.outsideWorker)],
		['GET /health', 'client latency of a request that does nothing', '1', ...times(health)],
	];
}

function breakdowns(results) {
	const { health, routes } = results.breakdown ?? { routes: {} };
	return Object.entries(routes).map(([key, b]) => [BREAKDOWN_TITLES[key] ?? key, breakdownRows(b, health), b]);
}

export function breakdownText(results) {
	return breakdowns(results).map(([title, rows]) => `${title}\n${textTable(BREAKDOWN_HEADER, rows)}`);
}

export function breakdownSection(results) {
	const all = breakdowns(results);
	if (all.length === 0) return [];
	return [
		'## Where the time goes',
		'',
		`${all[0][2].requests} sequential requests per route on an otherwise idle server, after the closed loops; ` +
			"per entry of each answer's `Server-Timing`, its usual description, how many an answer carries and the " +
			'median and mean of its durations (a mean of whole milliseconds shows what a median of 1 hides). ' +
			"`d1-N` is the N-th D1 round trip through the request's handle; `post-message` is the whole " +
			"`postMessage` call (the room's RPC), and `room-open`, `room-stored` and `room-d1` the waits the room " +
			"reports inside it: its first use's import from D1, its storage write, its D1 copy. The Workers clock moves only with I/O, in whole milliseconds locally: a duration " +
			'runs from the I/O before the hop to its answer (CPU work just before a hop counts in it); `rest` is ' +
			'what the Worker cannot see: the HTTP hop through `wrangler dev`, dispatch into the isolate and CPU ' +
			'after the last I/O. GET /health, measured the same way, is the floor a request that does nothing pays.',
		'',
		...all.flatMap(([title, rows]) => [`### ${title}`, '', markdownTable(BREAKDOWN_HEADER, rows), '']),
	];
}

function roomRows(r) {
	const d = r.delivery;
	return [
		['sockets: visitor tabs (one visitor) + operators', `${r.visitorTabs} + ${r.operators}`],
		['set-up: operators, conversation and sockets', `${show(r.setupSeconds)} s`],
		['messages sent (with warm-up) / in the measured window', `${r.sent} / ${r.measuredSends}`],
		[
			'acknowledged in the window: operators / visitor tabs',
			`${r.bySide.operator.measured} / ${r.bySide.visitor.measured}`,
		],
		['messages acknowledged', `${show(r.messagesPerSecond)} msgs/s`],
		['ack p50 / p90 / p99 / mean / max', latencies(r.ack)],
		['sends without an ack', String(r.errors)],
		[
			'numbering: messages / last seq / seqs taken twice / gaps',
			`${r.numbering.messages} / ${r.numbering.lastSeq} / ${r.numbering.duplicatedSeqs} / ${r.numbering.gaps}`,
		],
		[
			'in D1: messages / missing / wrong seq',
			`${r.storedInD1.messages} / ${r.storedInD1.missing} / ${r.storedInD1.wrongSeq}`,
		],
		[
			'all sockets: lost / duplicated / out of order / unexpected',
			`${d.lost} / ${d.duplicated} / ${d.outOfOrder} / ${d.unexpected}`,
		],
		['sockets closed by the server during the run', String(r.socketsClosedEarly)],
		['every message stored, numbered, on every socket once in order', r.allChecked ? 'yes' : 'NO'],
		['msgs/s / health req/s', show(r.ratioToHealth.throughput)],
		['ack p50 / health p50', show(r.ratioToHealth.p50)],
	];
}

export function roomText(results) {
	return results.room ? textTable(['single-room figure', 'value'], roomRows(results.room)) : null;
}

export function roomSection(results) {
	const r = results.room;
	const lines = ['## One conversation room', ''];
	if (!r) return [...lines, 'Single room: not measured (see the warnings).', ''];
	return [
		...lines,
		`One conversation, ${r.sockets} sockets on it: one visitor in ${r.visitorTabs} tabs and ${r.operators} ` +
			'operators (one token each). Every socket sends a `message` frame, waits for its `ack` (the stored ' +
			'message), then sends the next, for ' +
			`${results.settings.warmupSeconds} s of warm-up and ${results.settings.durationSeconds} s measured. ` +
			`A visitor may send ${r.visitorMessagesPerMinute} messages a minute, a limit the product fixes and no ` +
			'setting or var raises, so its tabs share what the opening message left, evenly over the run; the ' +
			'operators, whose limit the bench raises, send flat out. Afterwards: every acknowledged message is in ' +
			'D1 under the seq it was acknowledged with, the seqs run without gap or repeat, and each socket ' +
			'received every message once, in seq order.',
		'',
		markdownTable(['figure', 'value'], roomRows(r)),
		'',
	];
}

/** One row per figure, one column per fan-out size. */
function fanoutRows(runs) {
	const faults = (d) => `${d.lost} / ${d.duplicated} / ${d.outOfOrder} / ${d.wrongSeq} / ${d.unexpected}`;
	const rows = [
		['conversations / open sockets (visitor + operator)', (f) => `${f.conversations} / ${f.sockets}`],
		['set-up of the conversations added for this size', (f) => `${show(f.setupSeconds)} s`],
		['messages sent (with warm-up) / in the measured window', (f) => `${f.sent} / ${f.measuredSends}`],
		[
			'first pass, one message into each conversation (idle since set-up, some asleep): msgs/s, receipt p50 / p99',
			(f) =>
				f.firstPass
					? `${show(f.firstPass.deliveredPerSecond)} msgs/s, ${show(f.firstPass.visitorReceipt.p50Ms)} / ${show(f.firstPass.visitorReceipt.p99Ms)} ms`
					: 'not measured',
		],
		['messages received on visitor sockets', (f) => `${show(f.deliveredPerSecond)} msgs/s`],
		['visitor receipt p50 / p90 / p99 / mean / max', (f) => latencies(f.visitorReceipt)],
		['operator receipt p50 / p90 / p99 / mean / max', (f) => latencies(f.operatorReceipt)],
		['POST /v3/messages answer p50 / p90 / p99 / mean / max', (f) => latencies(f.postAnswer)],
		['visitor: lost / duplicated / out of order / wrong seq / unexpected', (f) => faults(f.delivery.visitor)],
		['operator: lost / duplicated / out of order / wrong seq / unexpected', (f) => faults(f.delivery.operator)],
		['sockets closed by the server during the run', (f) => String(f.socketsClosedEarly)],
		['every message exactly once, in seq order, on both sockets', (f) => (f.exactlyOnceInOrder ? 'yes' : 'NO')],
		['msgs/s / health req/s', (f) => show(f.ratioToHealth.throughput)],
		['visitor receipt p50 / health p50', (f) => show(f.ratioToHealth.p50)],
	];
	return rows.map(([name, value]) => [name, ...runs.map(value)]);
}

const fanoutHeader = (runs) => ['fan-out figure', ...runs.map((f) => `${f.conversations} conv.`)];

/** The per-message figures of the largest size over the smallest's: 1 when open rooms cost nothing. */
function fanoutRatioRows(r) {
	const [small, large] = r.conversations;
	return [
		[`messages received per second, ${large} over ${small} conversations`, show(r.deliveredPerSecond)],
		[`visitor receipt p50, ${large} over ${small}`, show(r.visitorReceiptP50)],
		[`visitor receipt p99, ${large} over ${small}`, show(r.visitorReceiptP99)],
	];
}

export function fanoutText(results) {
	const f = results.fanout;
	if (!f) return [];
	const tables = [textTable(fanoutHeader(f.runs), fanoutRows(f.runs))];
	if (f.largeOverSmall) tables.push(textTable(['fan-out ratio', 'value'], fanoutRatioRows(f.largeOverSmall)));
	return tables;
}

export function fanoutSection(results) {
	const f = results.fanout;
	const lines = ['## Fan-out', ''];
	if (!f) return [...lines, 'Fan-out: not measured (see the warnings).', ''];
	const sizes = f.runs.map((run) => run.conversations).join(' and ');
	return [
		...lines,
		`${sizes} conversations (the first ones kept and more added for the next size), each started through the ` +
			'widget endpoints and watched by a visitor socket and an operator socket. ' +
			`${results.settings.concurrency} senders post operator messages with ` +
			'`POST /v3/messages`, round robin over the conversations; each waits for its answer and for the message ' +
			`on both sockets before sending the next. First one pass, a message into each conversation, timed on ` +
			'its own: every room has been idle since its set-up, and those idle longest (at the larger size, ' +
			'set up over half a minute) have been put to sleep and are woken by it. Then ' +
			`${results.settings.warmupSeconds} s warm-up and ` +
			`${results.settings.durationSeconds} s measured, on rooms in use; latency runs from just before the request to the frame's ` +
			'arrival. Messages sent in the warm-up are checked for delivery but not timed.',
		'',
		markdownTable(fanoutHeader(f.runs).with(0, 'figure'), fanoutRows(f.runs)),
		'',
		...(f.largeOverSmall
			? [
					'A message costs the same work at every size, so these ratios would be 1 if open conversations ' +
						'cost nothing:',
					'',
					markdownTable(['ratio', 'value'], fanoutRatioRows(f.largeOverSmall)),
					'',
				]
			: []),
	];
}

function botRows(b) {
	const r = b.reply;
	const d = b.delays;
	return [
		['visitor message to bot reply p50 / p99', `${show(r.p50Ms)} / ${show(r.p99Ms)} ms`],
		['GET /health p50 / p99 (sequential, same run)', `${show(r.health.p50Ms)} / ${show(r.health.p99Ms)} ms`],
		['bot reply / health, p50 and p99', `${show(r.ratioToHealth.p50)}x and ${show(r.ratioToHealth.p99)}x`],
		['replies that never came', String(r.timeouts)],
		[
			`delays resumed exactly once (of ${d.conversations})`,
			`${d.resumedOnce} (twice: ${d.resumedTwice}, never: ${d.notResumed})`,
		],
		['delay due to resumed p50 / p99', `${show(d.dueToResumed.p50Ms)} / ${show(d.dueToResumed.p99Ms)} ms`],
		['delay due to resumed max', `${show(d.dueToResumed.maxMs)} ms`],
	];
}

export function botsText(results) {
	return results.bots ? textTable(['bot figure', 'value'], botRows(results.bots)) : null;
}

export function botsSection(results) {
	const b = results.bots;
	const lines = ['## Bots', ''];
	if (!b) return [...lines, 'Bots: not measured (see the warnings).', ''];
	return [
		...lines,
		`Replies: an echo bot in ${b.reply.conversations} widget conversations; ${b.reply.rounds} visitor messages, one at a ` +
			"time, each timed from its POST to the bot's answer arriving on the visitor's socket, against GET /health " +
			'timed one at a time in the same run. ' +
			`Delays: ${b.delays.conversations} conversations started through the API (in ${b.delays.startSeconds} s), ` +
			`each by a bot that waits ${b.delays.delaySeconds} s on the room's alarm and then writes once; the lateness ` +
			"is the stored message's time minus the Delay's due time from the run's step log.",
		'',
		markdownTable(['figure', 'value'], botRows(b)),
		'',
	];
}

function scenarioRows(s) {
	const r = s.runs;
	const o = s.outbound;
	return [
		['webhook calls / runs succeeded / failed', `${r.calls} / ${r.succeeded} / ${r.failed}`],
		['webhook accepted (202) p50 / p99', `${show(r.accepted.p50Ms, ' ms')} / ${show(r.accepted.p99Ms, ' ms')}`],
		[
			'webhook → run succeeded p50 / p99',
			`${show(r.webhookToDone.p50Ms, ' ms')} / ${show(r.webhookToDone.p99Ms, ' ms')}`,
		],
		[
			'GET /health (sequential) p50 / p99',
			`${show(s.healthSequential.p50Ms, ' ms')} / ${show(s.healthSequential.p99Ms, ' ms')}`,
		],
		[
			'webhook → done p50 / p99, × /health',
			`${show(s.ratios.webhookToDoneP50, '×')} / ${show(s.ratios.webhookToDoneP99, '×')}`,
		],
		[
			'runs completed per second (× /health rps)',
			`${show(r.runsPerSecond)} (${show(s.ratios.runsPerSecondToHealthRps, '×')})`,
		],
		[
			'outbound events / delivered / duplicates / forged',
			`${o.events} / ${o.delivered} / ${o.duplicates} / ${o.forged}`,
		],
		[
			'outbound deliveries per second (× /health rps)',
			`${show(o.deliveriesPerSecond)} (${show(s.ratios.deliveriesPerSecondToHealthRps, '×')})`,
		],
	];
}

export function scenariosText(results) {
	return results.scenarioRuns ? textTable(['scenario figure', 'value'], scenarioRows(results.scenarioRuns)) : null;
}

export function scenariosSection(results) {
	const s = results.scenarioRuns;
	const lines = ['## Scenarios and webhooks', ''];
	if (!s) return [...lines, 'Scenarios: not measured (see the warnings).', ''];
	return [
		...lines,
		`Runs: ${s.runs.calls} Standard Webhooks-signed calls to a scenario's webhook, 8 at a time, each run finding ` +
			'or creating a contact (100 distinct) and setting a variable; webhook → done is each run’s finishedAt ' +
			'minus its createdAt (both recorded by the Worker), compared with GET /health timed one at a time in the ' +
			'same run; runs per second count from the first call to the last completion, against the closed-loop ' +
			`/health throughput. Outbound: ${s.outbound.events} tags created 8 at a time, each a tag.created ` +
			'delivered to a receiver on 127.0.0.1 that verifies every signature with svix; deliveries per second ' +
			'count from the first event to the last delivery.',
		'',
		markdownTable(['figure', 'value'], scenarioRows(s)),
		'',
	];
}

function automationRows(a) {
	const live = a.assignment.underCreation;
	const drain = a.assignment.drain;
	const r = a.rules;
	const ms = (l) => `${show(l.p50Ms, ' ms')} / ${show(l.p99Ms, ' ms')}`;
	const one = a.assignment.oneAtATime;
	const oneRule = r.oneAtATime;
	return [
		...(one
			? [
					[
						`one at a time: start → assigned p50 / p99 (${one.assigned} of ${one.conversations}), × /health p50`,
						`${ms(one.startToAssigned)} (${show(a.ratios.assignedOneAtATimeP50, '×')})`,
					],
				]
			: []),
		...(oneRule
			? [
					[
						`one at a time: tag → rule execution finished p50 / p99 (${oneRule.finished} of ${oneRule.events}), × /health p50`,
						`${ms(oneRule.tagToDone)} (${show(a.ratios.tagToDoneOneAtATimeP50, '×')})`,
					],
				]
			: []),
		[
			`conversations started / assigned (${a.assignment.operators} operators)`,
			`${live.conversations} / ${live.assigned}`,
		],
		['round robin shares (largest − smallest)', `${live.perOperator.join(', ')} (${live.spread})`],
		['conversations started per second', show(live.creationsPerSecond)],
		['start → assigned p50 / p99, 8 starts at a time', ms(live.startToAssigned)],
		["start → on the admin's inbox feed p50 / p99", ms(live.startToFeed)],
		['GET /health (sequential) p50 / p99', ms(a.healthSequential)],
		[
			'start → assigned p50 / p99, × /health',
			`${show(a.ratios.assignedP50, '×')} / ${show(a.ratios.assignedP99, '×')}`,
		],
		[
			'assignments per second while visitors start conversations (× /health rps)',
			`${show(live.decisionsPerSecond)} (${show(a.ratios.decisionsPerSecondToHealthRps, '×')})`,
		],
		[
			'queued while the team is away / assigned before it came back',
			`${drain.queueLength} / ${drain.assignedWhileAway}`,
		],
		[
			'queue drained per second once online (× /health rps)',
			`${show(drain.decisionsPerSecond)} (${show(a.ratios.drainPerSecondToHealthRps, '×')}), the last ${show(drain.onlineToLast, ' ms')} after`,
		],
		[
			'tags applied / rule executions succeeded / failed / skipped',
			`${r.events} / ${r.succeeded} / ${r.failed} / ${r.skipped}`,
		],
		['tag applied → execution finished p50 / p99, 8 tags at a time', ms(r.tagToDone)],
		[
			'tag → finished p50 / p99, × /health',
			`${show(a.ratios.tagToDoneP50, '×')} / ${show(a.ratios.tagToDoneP99, '×')}`,
		],
		[
			'rule executions per second (× /health rps)',
			`${show(r.executionsPerSecond)} (${show(a.ratios.executionsPerSecondToHealthRps, '×')})`,
		],
	];
}

export function automationText(results) {
	return results.automation ? textTable(['automation figure', 'value'], automationRows(results.automation)) : null;
}

export function automationSection(results) {
	const a = results.automation;
	const lines = ['## Auto-assignment and automation rules', ''];
	if (!a) return [...lines, 'Automation: not measured (see the warnings).', ''];
	return [
		...lines,
		`Assignment: ${a.assignment.operators} operators online, each with its inbox feed socket open, and a ` +
			`round-robin assignment rule; ${a.assignment.underCreation.conversations} visitors start a conversation ` +
			"through the widget endpoints, 8 at a time. Start → assigned runs from the start of the visitor's " +
			"requests to the time the assignment was made (its event's occurredAt, seen on the admin's inbox feed): " +
			'the creation goes through the events Queue (batches wait up to 1 s locally) to the workspace Durable ' +
			'Object, and the assignment reaches the feed through the Queue again. Assignments per second count from ' +
			'the first start to the last assignment made. Then the five set themselves away, as many conversations ' +
			'wait in the queue, and all five come back online at once: the drain counts from the first "online" to ' +
			'the last assignment made. Rules: a rule on the tag `urgent` that answers the customer ' +
			`and tags the conversation \`triaged\`, the tag applied through the API to ${a.rules.events} seeded ` +
			"conversations, 8 at a time; tag → finished runs from the PATCH's start to the execution's finishedAt " +
			'(recorded by the Worker); executions per second count from the first PATCH to the last execution. ' +
			'Latencies are compared with GET /health timed one at a time, rates with its closed-loop throughput, both ' +
			'in the same run.',
		'',
		markdownTable(['figure', 'value'], automationRows(a)),
		'',
	];
}
