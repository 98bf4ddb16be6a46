// The e-mail section of `npm run bench`, against GET /health in the same run.
// - inbound: a raw RFC 5322 mail posted to wrangler's local e-mail endpoint (POST /cdn-cgi/local/email, which
//   runs the Worker's `email()` handler and answers when it has returned) until the message is readable through
//   GET /v3/conversations/{id}/messages. One mail at a time: new mails to the workspace's inbound address (each
//   starts an `email` conversation, whose id is read from GET /v3/email/inbound, newest first: one more API
//   read inside the figure), then the same customers' replies (In-Reply-To the first mail) into them.
// - outbound: an operator reply (POST /v3/messages) in each of N e-mail conversations makes N `reply`
//   deliveries (the events Queue enqueues each on the mail Queue, held back REPLY_GATHER_SECONDS for a burst),
//   which the mail consumer claims, sends through the `send_email` binding (wrangler's local simulation) and
//   records `sent`; timed from the deliveries' own timestamps (GET /v3/email/deliveries).
// - redelivery: every one of those N Queue messages is delivered again after its send was recorded, by a second
//   Worker in its own `wrangler dev` (bench/mail-redeliver) that sends `{ deliveryId }` to the same local Queue
//   through wrangler's dev registry; a seeded sentinel delivery queued last (it builds no mail, and its claim
//   is visible) says when the consumer has worked through them. The mails the binding was handed are counted
//   from wrangler's own record of every send() (its local explorer's list of sent mail), before and after.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { executeFile, literal } from '../scripts/local-db.mjs';
import { allPages, apiCall as api, latencySummary, sequentialHealth } from './load.mjs';
import { ratio, round } from './report-format.mjs';
import { startWranglerDev } from './server.mjs';

const INBOX = 'support@bench-mail.parley.test';
const SENDER = 'team@bench-mail.parley.test';
const CUSTOMERS = 'customers.bench-mail.test';
const WARMUP_MAILS = 5;
const SETUP_CONCURRENCY = 8;
const READABLE_TIMEOUT_MS = 10_000;
const SEND_TIMEOUT_MS = 600_000;
const SETTLE_MS = 2_000;
/** A reply's delivery waits this long on the Queue (REPLY_GATHER_SECONDS in src/domain/channels/email/replies.ts). */
const REPLY_HOLD_MS = 5_000;
/** The delivery queued last behind the redelivered messages: its claim marks the end of their turn. */
export const SENTINEL_ID = 'mail_bench_redelivery_sentinel';
const EXPLORER = '/cdn-cgi/local/explorer/api/local/email/sending';
const REDELIVERER = new URL('./mail-redeliver/wrangler.toml', import.meta.url).pathname;

/**
 * Writes the sentinel before wrangler dev starts: a `reply` delivery of no conversation, queued and never put
 * on the Queue by Parley. The consumer claims it (attempts 1) and records it skipped, mailing nothing.
 */
export async function seedRedeliverySentinel(persistTo, workspaceId, now = Date.now()) {
	const file = path.join(persistTo, 'bench-mail-sentinel.sql');
	const values = [SENTINEL_ID, workspaceId, 'reply', 'bench:redelivery-sentinel', 'sentinel@bench-mail.test']
		.map(literal)
		.join(', ');
	const sql = `INSERT INTO mail_deliveries (id, workspace_id, kind, dedupe_key, recipient, status, attempts, created_at, updated_at)
		VALUES (${values}, 'queued', 0, ${now}, ${now});`;
	await writeFile(file, sql);
	executeFile(file, persistTo);
}

const customer = (i) => `customer-${i}@${CUSTOMERS}`;

/** A plain-text mail as a customer's client writes it (CRLF line ends). */
function rawMail({ from, subject, messageId, inReplyTo, text }) {
	return [
		`From: Customer <${from}>`,
		`To: Support <${INBOX}>`,
		`Subject: ${subject}`,
		`Message-ID: <${messageId}>`,
		...(inReplyTo ? [`In-Reply-To: <${inReplyTo}>`, `References: <${inReplyTo}>`] : []),
		`Date: ${new Date().toUTCString()}`,
		'MIME-Version: 1.0',
		'Content-Type: text/plain; charset=utf-8',
		'',
		text,
		'',
	].join('\r\n');
}

/** Hands one raw mail to the Worker's `email()` handler the way wrangler dev exposes it locally. */
async function deliverMail(baseUrl, from, raw) {
	const url = `${baseUrl}/cdn-cgi/local/email?from=${encodeURIComponent(from)}&to=${encodeURIComponent(INBOX)}`;
	const response = await fetch(url, { method: 'POST', body: raw, signal: AbortSignal.timeout(30_000) });
	const body = await response.text();
	if (response.status !== 200) throw new Error(`POST /cdn-cgi/local/email: ${response.status} ${body.slice(0, 300)}`);
}

/** Polls the conversation's newest messages until one carries `token`. */
async function readable(baseUrl, token, conversationId, marker) {
	const deadline = performance.now() + READABLE_TIMEOUT_MS;
	while (performance.now() < deadline) {
		const page = await api(
			baseUrl,
			token,
			'GET',
			`/v3/conversations/${conversationId}/messages?before=1000000&limit=3`,
		);
		if (page.data.some((m) => m.text?.includes(marker))) return true;
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	return false;
}

/** Customer `i`'s first mail, posted: its sender, Message-ID and the marker its text carries. */
async function postNew(baseUrl, i, run) {
	const from = customer(i);
	const marker = `bench-new-${run}-${i}`;
	const messageId = `${marker}@${CUSTOMERS}`;
	await deliverMail(baseUrl, from, rawMail({ from, subject: `Question ${i}`, messageId, text: `Hello (${marker})` }));
	return { from, marker, messageId };
}

/** One new mail from customer `i`, alone in flight: from its posting until its message is readable. */
async function newConversation(baseUrl, workspace, i, run) {
	const started = performance.now();
	const { from, marker, messageId } = await postNew(baseUrl, i, run);
	const handledMs = performance.now() - started;
	// Newest first, and no other mail is in flight: the first is this one (checked).
	const [mail] = (await api(baseUrl, workspace.token, 'GET', '/v3/email/inbound?limit=1')).data;
	if (mail?.envelopeFrom !== from || mail.status !== 'posted' || !mail.conversationId) {
		throw new Error(`new mail ${i}: not posted (${JSON.stringify(mail)})`);
	}
	if (!(await readable(baseUrl, workspace.token, mail.conversationId, marker))) {
		throw new Error(`new mail ${i}: its message was not readable within ${READABLE_TIMEOUT_MS} ms`);
	}
	return { conversationId: mail.conversationId, messageId, handledMs, readableMs: performance.now() - started };
}

/** New mails `from`..`to` posted `SETUP_CONCURRENCY` at a time; their conversations read after. */
async function manyNewConversations(baseUrl, workspace, from, to, run) {
	const posted = await inParallel(from, to, SETUP_CONCURRENCY, (i) => postNew(baseUrl, i, run));
	const received = await allPages(baseUrl, workspace.token, '/v3/email/inbound?limit=100');
	const bySender = new Map(received.map((mail) => [mail.envelopeFrom, mail]));
	return posted.map(({ from: sender, messageId }) => {
		const mail = bySender.get(sender);
		if (mail?.status !== 'posted' || !mail.conversationId) {
			throw new Error(`new mail from ${sender}: not posted (${JSON.stringify(mail)})`);
		}
		return { conversationId: mail.conversationId, messageId };
	});
}

/** Customer `i` answers its first mail (In-Reply-To): from posting until the reply is readable. */
async function replyInto(baseUrl, workspace, i, conversation, run) {
	const from = customer(i);
	const marker = `bench-reply-${run}-${i}`;
	const raw = rawMail({
		from,
		subject: `Re: Question ${i}`,
		messageId: `${marker}@${CUSTOMERS}`,
		inReplyTo: conversation.messageId,
		text: `Thanks (${marker})`,
	});
	const started = performance.now();
	await deliverMail(baseUrl, from, raw);
	const handledMs = performance.now() - started;
	if (!(await readable(baseUrl, workspace.token, conversation.conversationId, marker))) {
		throw new Error(`reply ${i}: not readable in its conversation within ${READABLE_TIMEOUT_MS} ms`);
	}
	return { handledMs, readableMs: performance.now() - started };
}

/** Runs `task(i)` for i in [from, to) with `concurrency` workers. */
async function inParallel(from, to, concurrency, task) {
	const results = new Array(to - from);
	let next = from;
	const worker = async () => {
		while (next < to) {
			const i = next++;
			results[i - from] = await task(i);
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
	return results;
}

/** Every mail wrangler's `send_email` simulation was handed in this session (its local explorer's record). */
async function mailsHandedToBinding(baseUrl) {
	const mails = [];
	let cursor = null;
	do {
		const url = `${baseUrl}${EXPLORER}?per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
		const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
		const body = await response.json().catch(() => null);
		if (response.status !== 200 || !body?.success) {
			throw new Error(`GET ${EXPLORER}: ${response.status} ${JSON.stringify(body)?.slice(0, 300)}`);
		}
		mails.push(...body.result);
		cursor = body.result_info?.has_more ? body.result_info.cursor : null;
	} while (cursor);
	return mails;
}

/** Mails per recipient; how many recipients got more than one. */
function perRecipient(mails) {
	const counts = new Map();
	for (const mail of mails) {
		for (const to of mail.to ?? []) {
			const address = typeof to === 'string' ? to : to.address;
			counts.set(address, (counts.get(address) ?? 0) + 1);
		}
	}
	return { recipients: counts.size, twice: [...counts.values()].filter((n) => n > 1).length };
}

async function until(done, timeoutMs, everyMs = 500) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (await done()) return true;
		await new Promise((resolve) => setTimeout(resolve, everyMs));
	}
	return false;
}

const deliveriesOf = async (baseUrl, token) =>
	(await allPages(baseUrl, token, '/v3/email/deliveries?limit=100')).filter((d) => d.id !== SENTINEL_ID);

const summary = (rows, key, healthP50) => {
	const figures = latencySummary(rows.map((r) => r[key]));
	return { ...figures, p50VsHealth: ratio(figures.p50Ms, healthP50), p99VsHealth: ratio(figures.p99Ms, healthP50) };
};

async function inbound({ baseUrl, workspace, mails, healthSequential, log }) {
	const run = Date.now().toString(36);
	log(`e-mail: ${WARMUP_MAILS} warm-up mails, then ${mails} new mails and ${mails} replies, one at a time`);
	const conversations = [];
	for (let i = 0; i < WARMUP_MAILS; i++) conversations.push(await newConversation(baseUrl, workspace, i, run));
	const created = [];
	for (let i = WARMUP_MAILS; i < WARMUP_MAILS + mails; i++) {
		created.push(await newConversation(baseUrl, workspace, i, run));
	}
	conversations.push(...created);
	const replies = [];
	for (let i = WARMUP_MAILS; i < WARMUP_MAILS + mails; i++) {
		replies.push(await replyInto(baseUrl, workspace, i, conversations[i], run));
	}
	const p50 = healthSequential.p50Ms;
	return {
		run,
		conversations,
		figures: {
			mails,
			newConversation: { readable: summary(created, 'readableMs', p50), handled: summary(created, 'handledMs', p50) },
			reply: { readable: summary(replies, 'readableMs', p50), handled: summary(replies, 'handledMs', p50) },
		},
	};
}

/** Operator replies in `conversations`, at SETUP_CONCURRENCY; waits until every delivery is settled. */
async function outbound({ baseUrl, workspace, conversations, health, warnings, log }) {
	log(`e-mail: an operator reply in each of ${conversations.length} e-mail conversations, until every mail is sent`);
	const posted = performance.now();
	await inParallel(0, conversations.length, SETUP_CONCURRENCY, (i) =>
		api(baseUrl, workspace.token, 'POST', '/v3/messages', {
			conversationId: conversations[i].conversationId,
			text: `Our answer to question ${i}.`,
		}),
	);
	const postSeconds = (performance.now() - posted) / 1000;
	let deliveries = [];
	const settled = await until(async () => {
		for (const status of ['queued', 'sending']) {
			const page = await api(baseUrl, workspace.token, 'GET', `/v3/email/deliveries?status=${status}&limit=2`);
			if (page.data.some((d) => d.id !== SENTINEL_ID)) return false;
		}
		deliveries = await deliveriesOf(baseUrl, workspace.token);
		return deliveries.length >= conversations.length;
	}, SEND_TIMEOUT_MS);
	if (!settled) warnings.push(`e-mail: ${deliveries.length} deliveries settled within ${SEND_TIMEOUT_MS / 1000} s`);
	const sent = deliveries.filter((d) => d.status === 'sent');
	if (sent.length !== conversations.length) {
		const other = deliveries.find((d) => d.status !== 'sent');
		warnings.push(
			`e-mail: ${sent.length} of ${conversations.length} deliveries sent (e.g. ${JSON.stringify(other)?.slice(0, 300)})`,
		);
	}
	const at = (iso) => Date.parse(iso);
	const firstEnqueue = Math.min(...deliveries.map((d) => at(d.createdAt)));
	const sentAts = sent.map((d) => at(d.sentAt));
	const firstSent = Math.min(...sentAts);
	const lastSent = Math.max(...sentAts);
	const spanSeconds = (lastSent - firstEnqueue) / 1000;
	// The posts pace the first part: once the last delivery is on the Queue (its hold over), only the consumer
	// limits what remains, so its rate there is the binding's hand-off rate with a backlog.
	const allQueued = Math.max(...deliveries.map((d) => at(d.createdAt))) + REPLY_HOLD_MS;
	const backlog = sentAts.filter((t) => t > allQueued).length;
	const backlogPerSecond = backlog > 0 ? round(backlog / ((lastSent - allQueued) / 1000), 1) : null;
	const sendingSeconds = (lastSent - firstSent) / 1000;
	const perSecond = round(sent.length / spanSeconds, 1);
	const sendingPerSecond = sent.length > 1 ? round((sent.length - 1) / sendingSeconds, 1) : null;
	return {
		sent,
		figures: {
			deliveries: deliveries.length,
			sent: sent.length,
			mailsPerDelivery: null,
			postSeconds: round(postSeconds, 2),
			firstEnqueueToLastSentSeconds: round(spanSeconds, 2),
			mailsPerSecond: perSecond,
			firstSentToLastSentSeconds: round(sendingSeconds, 2),
			sendingMailsPerSecond: sendingPerSecond,
			vsHealthRps: ratio(perSecond, health.rps),
			backlogAfterLastEnqueue: backlog,
			backlogMailsPerSecond: backlogPerSecond,
			backlogVsHealthRps: ratio(backlogPerSecond, health.rps),
			sendingVsHealthRps: ratio(sendingPerSecond, health.rps),
		},
	};
}

/** Delivers each sent delivery's Queue message again, the sentinel last; counts the mails before and after. */
async function redeliver({ baseUrl, workspace, sent, registryPath, persistTo, warnings, log }) {
	const before = await mailsHandedToBinding(baseUrl);
	log(`e-mail: starting the redelivering Worker; ${before.length} mails handed to the binding so far`);
	const redeliverer = await startWranglerDev({
		persistTo: path.join(persistTo, 'mail-redeliver'),
		config: REDELIVERER,
		env: { WRANGLER_REGISTRY_PATH: registryPath },
	});
	try {
		log(`e-mail: delivering the Queue message of each of the ${sent.length} sent deliveries again`);
		const started = performance.now();
		const response = await fetch(redeliverer.baseUrl, {
			method: 'POST',
			body: JSON.stringify([...sent.map((d) => d.id), SENTINEL_ID]),
			signal: AbortSignal.timeout(120_000),
		});
		if (response.status !== 200) throw new Error(`redeliverer: ${response.status} ${await response.text()}`);
		let sentinel = null;
		const reached = await until(async () => {
			const page = await api(baseUrl, workspace.token, 'GET', '/v3/email/deliveries?status=skipped&limit=100');
			sentinel = page.data.find((d) => d.id === SENTINEL_ID) ?? null;
			return sentinel !== null;
		}, SEND_TIMEOUT_MS);
		const seconds = (performance.now() - started) / 1000;
		if (!reached)
			warnings.push('e-mail: the redelivered messages were not all consumed (the sentinel was never claimed)');
		// A mail sent twice would be sent by now; wait a little longer anyway before counting.
		await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
		const after = await mailsHandedToBinding(baseUrl);
		const deliveries = await deliveriesOf(baseUrl, workspace.token);
		const byId = new Map(sent.map((d) => [d.id, d]));
		const changed = deliveries.filter((d) => {
			const was = byId.get(d.id);
			return was && (d.status !== 'sent' || d.messageId !== was.messageId || d.attempts !== was.attempts);
		});
		// Each sent delivery is one mail to its own recipient: a capture that missed sends would show here first.
		if (before.length !== sent.length) {
			warnings.push(`e-mail: ${before.length} mails handed to the binding for ${sent.length} sent deliveries`);
		}
		const counts = perRecipient(after);
		const sentTwice = counts.twice;
		if (sentTwice > 0) warnings.push(`e-mail: ${sentTwice} recipients got their mail twice after redelivery`);
		if (after.length !== before.length) {
			warnings.push(`e-mail: ${after.length - before.length} more mails handed to the binding after redelivery`);
		}
		if (changed.length > 0) warnings.push(`e-mail: ${changed.length} sent deliveries changed after redelivery`);
		return {
			redelivered: sent.length,
			consumed: reached,
			secondsUntilConsumed: round(seconds, 2),
			mailsBefore: before.length,
			mailsAfter: after.length,
			recipients: counts.recipients,
			sentTwice,
			deliveriesChanged: changed.length,
		};
	} finally {
		await redeliverer.stop();
	}
}

export async function emailSection({
	baseUrl,
	workspace,
	mails,
	deliveries,
	registryPath,
	persistTo,
	health,
	warnings,
	log,
}) {
	try {
		await api(baseUrl, workspace.token, 'PUT', '/v3/email/settings', {
			senderName: 'Bench team',
			senderAddress: SENDER,
		});
		await api(baseUrl, workspace.token, 'POST', '/v3/email/addresses', { address: INBOX });
		const healthSequential = await sequentialHealth(baseUrl, 200);
		const { run, conversations, figures } = await inbound({ baseUrl, workspace, mails, healthSequential, log });
		const extra = Math.max(0, deliveries - conversations.length);
		log(`e-mail: ${extra} more e-mail conversations, ${SETUP_CONCURRENCY} mails at a time`);
		const setupStarted = performance.now();
		const more = await manyNewConversations(
			baseUrl,
			workspace,
			conversations.length,
			conversations.length + extra,
			run,
		);
		const setupSeconds = (performance.now() - setupStarted) / 1000;
		const targets = [...conversations, ...more].slice(0, deliveries);
		const out = await outbound({ baseUrl, workspace, conversations: targets, health, warnings, log });
		const again = await redeliver({ baseUrl, workspace, sent: out.sent, registryPath, persistTo, warnings, log });
		const inboundPerSecond = extra > 0 ? round(extra / setupSeconds, 1) : null;
		return {
			healthSequential,
			inbound: {
				...figures,
				concurrency: SETUP_CONCURRENCY,
				concurrentNewMails: extra,
				concurrentMailsPerSecond: inboundPerSecond,
				concurrentVsHealthRps: ratio(inboundPerSecond, health.rps),
			},
			outbound: { ...out.figures, mailsPerDelivery: ratio(again.mailsBefore, out.figures.sent) },
			redelivery: again,
		};
	} catch (error) {
		warnings.push(`e-mail failed: ${error.message}`);
		return null;
	}
}
