// The e-mail part of the bench report (bench/email.mjs measures it), in the full report and, for
// `--only email`, as a file of its own.
import { healthRpsAndP50, markdownTable, sectionOnlyMarkdown, show, textTable } from './report-format.mjs';

const HEADER = ['figure', 'value', 'ratio', 'ratio to'];
const pair = (l) => `${show(l.p50Ms)} / ${show(l.p99Ms)} ms`;

function emailRows(e) {
	const { inbound, outbound, redelivery } = e;
	const latency = (name, l) => [
		`${name}: p50 / p99`,
		pair(l),
		`${show(l.p50VsHealth)} / ${show(l.p99VsHealth)}`,
		'health p50 (sequential)',
	];
	return [
		['GET /health, one at a time: p50 / p99', pair(e.healthSequential), '1', ''],
		latency('new mail → its message readable in a new conversation', inbound.newConversation.readable),
		latency('  of which the email() handler (POST answered)', inbound.newConversation.handled),
		latency('reply mail → its message readable in its conversation', inbound.reply.readable),
		latency('  of which the email() handler (POST answered)', inbound.reply.handled),
		[
			'continuations: deliveries / sent / mails handed to the binding per delivery',
			`${show(outbound.deliveries)} / ${show(outbound.sent)} / ${show(outbound.mailsPerDelivery)}`,
			'',
			'',
		],
		[
			'continuations: first enqueue → last sent, mails per second',
			`${show(outbound.firstEnqueueToLastSentSeconds, ' s')}, ${show(outbound.mailsPerSecond)}`,
			show(outbound.vsHealthRps),
			'health req/s',
		],
		[
			'continuations: first sent → last sent, mails per second',
			`${show(outbound.firstSentToLastSentSeconds, ' s')}, ${show(outbound.sendingMailsPerSecond)}`,
			show(outbound.sendingVsHealthRps),
			'health req/s',
		],
		...(outbound.backlogMailsPerSecond === undefined
			? []
			: [
					[
						'continuations: after the last is on the Queue, mails per second (mails left then)',
						`${show(outbound.backlogMailsPerSecond)} (${show(outbound.backlogAfterLastEnqueue)})`,
						show(outbound.backlogVsHealthRps),
						'health req/s',
					],
				]),
		[
			'redelivery: Queue messages delivered again after `sent` / consumed (s)',
			`${show(redelivery.redelivered)} / ${redelivery.consumed ? 'yes' : 'NO'} (${show(redelivery.secondsUntilConsumed, ' s')})`,
			'',
			'',
		],
		[
			'redelivery: mails handed to the binding before / after',
			`${show(redelivery.mailsBefore)} / ${show(redelivery.mailsAfter)}`,
			'',
			'',
		],
		[
			'redelivery: recipients mailed twice; sent deliveries changed',
			`${show(redelivery.sentTwice)}; ${show(redelivery.deliveriesChanged)}`,
			'',
			'',
		],
	];
}

export function emailText(results) {
	return results.email ? textTable(['e-mail figure', ...HEADER.slice(1)], emailRows(results.email)) : null;
}

export function emailSection(results) {
	const e = results.email;
	const lines = ['## E-mail', ''];
	if (!e) return [...lines, 'E-mail: not measured (see the warnings).', ''];
	return [
		...lines,
		`Inbound: ${e.inbound.mails} new mails to the workspace's inbound address, one at a time after 5 unrecorded, ` +
			`each from a new customer (a new \`email\` conversation), then ${e.inbound.mails} replies from the same ` +
			'customers (In-Reply-To their first mail), each posted raw (RFC 5322) to wrangler dev’s local e-mail ' +
			'endpoint, POST /cdn-cgi/local/email, which runs the Worker’s `email()` handler and answers once it has ' +
			'returned. **Readable**: from the post until GET /v3/conversations/{id}/messages returns the message; for a ' +
			'new mail the conversation’s id is first read from GET /v3/email/inbound (newest first), so that figure ' +
			'holds one API read more than the reply’s. Latencies are compared with GET /health timed one at a time in ' +
			'the same run.',
		'',
		`Outbound: ${e.outbound.deliveries} widget conversations started through the widget's endpoints (a visitor ` +
			'session, then the conversation with a pre-chat e-mail address), then an operator reply (POST /v3/messages, ' +
			'8 at a time) in each, read by no visitor. Each room’s continuation timer fires the workspace’s delay later ' +
			`(${e.outbound.delaySeconds} s, the least it may be) and enqueues one \`continuation\` delivery on the mail ` +
			'Queue, which the consumer claims, builds from the unseen messages and hands to the `send_email` binding ' +
			'(wrangler’s local simulation), recorded `sent`. Timed from the deliveries’ own `createdAt` (the room’s ' +
			'enqueue) and `sentAt` (GET /v3/email/deliveries). The timers fire as the replies were posted: the whole ' +
			'span holds that pacing; the last row counts only what was left to send once the last delivery was on the ' +
			'Queue, where the consumer alone sets the pace. Rates are compared with GET /health’s closed-loop throughput.',
		'',
		'Redelivery: then each sent delivery’s Queue message, `{ deliveryId }`, is put on the same local Queue ' +
			'again by a second Worker in its own wrangler dev (bench/mail-redeliver, a queue producer only; wrangler’s ' +
			'dev registry, private to the run, forwards its sends to Parley’s consumer), followed by a sentinel ' +
			'delivery seeded in D1 (it builds no mail, and its claim is visible): once the sentinel is claimed the ' +
			'consumer has worked through every redelivered message (the local Queue hands out one batch at a time, ' +
			'in order). Mails handed to the binding are counted from wrangler’s own record of each `send()` (its ' +
			'local explorer’s list of sent mail), before and 2 s after, and per recipient (one per conversation).',
		'',
		markdownTable(HEADER, emailRows(e)),
		'',
	];
}

/** The file `npm run bench -- --only email` writes (bench/results/email.md). */
export function emailMarkdown(results) {
	return sectionOnlyMarkdown(results, {
		title: 'e-mail',
		only: 'email',
		health: healthRpsAndP50(results.health),
		section: emailSection(results),
	});
}
