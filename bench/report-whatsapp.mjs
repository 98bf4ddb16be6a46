// The WhatsApp part of the bench report (bench/whatsapp.mjs measures it), in the full report and, for
// `--only whatsapp`, as a file of its own.
import { healthRpsAndP50, markdownTable, sectionOnlyMarkdown, show, textTable } from './report-format.mjs';

const HEADER = ['figure', 'value', 'ratio', 'ratio to'];
const pair = (l) => `${show(l.p50Ms)} / ${show(l.p99Ms)} ms`;

function whatsappRows(w) {
	const { inbound, campaign } = w;
	const latency = (name, l) => [
		`${name}: p50 / p99`,
		pair(l),
		`${show(l.p50VsHealth)} / ${show(l.p99VsHealth)}`,
		'health p50 (sequential)',
	];
	return [
		['GET /health, one at a time: p50 / p99', pair(w.healthSequential), '1', ''],
		latency('webhook → its message readable in a new conversation', inbound.readable),
		latency('  of which the webhook POST (answered)', inbound.handled),
		[
			'every webhook delivered again: messages duplicated / missing',
			`${show(inbound.duplicated)} / ${show(inbound.missing)} (of ${show(inbound.redelivered)})`,
			'',
			'',
		],
		[
			'campaign: contacts / recipients sent / contacts reached / messaged twice',
			`${show(campaign.contacts)} / ${show(campaign.recipientsSent)} / ${show(campaign.reached)} / ${show(campaign.contactsMessagedTwice)}`,
			'',
			'',
		],
		[
			'campaign: sustained messages per second (middle 80 %)',
			show(campaign.sustainedPerSecond),
			show(campaign.sustainedVsLimit),
			`Meta's ${campaign.limitPerSecond}/s`,
		],
		[
			'campaign: most messages in any one second',
			show(campaign.peakInOneSecond),
			'',
			`limit ${campaign.limitPerSecond}`,
		],
		[
			'campaign: first → last message, messages per second',
			show(campaign.firstToLastPerSecond),
			show(campaign.sustainedVsHealthRps),
			'health req/s (sustained)',
		],
		[
			'campaign: send → first / last message',
			`${show(campaign.sendToFirstSeconds, ' s')} / ${show(campaign.sendToLastSeconds, ' s')}`,
			'',
			'',
		],
		['campaign: calls the fake refused (130429, 131056…)', show(campaign.refusedByFake), '', ''],
		...(campaign.perFiveSeconds
			? [['campaign: messages in each 5 s from the send', campaign.perFiveSeconds.join(' · '), '', '']]
			: []),
	];
}

export function whatsappText(results) {
	return results.whatsapp ? textTable(['WhatsApp figure', ...HEADER.slice(1)], whatsappRows(results.whatsapp)) : null;
}

export function whatsappSection(results) {
	const w = results.whatsapp;
	const lines = ['## WhatsApp', ''];
	if (!w) return [...lines, 'WhatsApp: not measured (see the warnings).', ''];
	return [
		...lines,
		'The Graph API is the fake (test/fake-graph/server.mjs), started in the bench process; wrangler dev calls it ' +
			'through WHATSAPP_GRAPH_URL. The number is connected through the API with messagesPerSecond 80.',
		'',
		`Inbound: ${w.inbound.webhooks} webhooks, one at a time after 5 unrecorded, each one text message from a new ` +
			'customer as Meta sends it, signed with the number’s app secret (X-Hub-Signature-256) and posted to ' +
			'/whatsapp/{id}/webhook. **Readable**: from the post until GET /v3/conversations/{id}/messages returns the ' +
			'message; the new conversation’s id is first read from GET /v3/conversations (newest first), one API read ' +
			'inside the figure. Then every webhook is posted again, byte for byte (Meta’s retry), and each ' +
			'conversation’s messages are counted through the API.',
		'',
		`Campaign: one WhatsApp campaign of an approved template (one variable, \`{{ contact.name }}\`) to ` +
			`${w.campaign.contacts} contacts with a WhatsApp id, seeded by SQL. Each message is stored in a new WhatsApp ` +
			'conversation and its delivery goes through the WhatsApp Queue, paced by the number’s RateLimiter (90 % ' +
			'of 80). The rates are the fake’s: the time it accepted each message. Sustained: over the middle 80 % of ' +
			'the messages (by order); the peak: the most in any window of one second.',
		'',
		markdownTable(HEADER, whatsappRows(w)),
		'',
	];
}

/** The file `npm run bench -- --only whatsapp` writes (bench/results/whatsapp.md). */
export function whatsappMarkdown(results) {
	return sectionOnlyMarkdown(results, {
		title: 'WhatsApp',
		only: 'whatsapp',
		health: healthRpsAndP50(results.health),
		section: whatsappSection(results),
	});
}
