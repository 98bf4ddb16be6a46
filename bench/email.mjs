// The e-mail section of `npm run bench`, against GET /health in the same run.
// - inbound: a raw RFC 5322 mail posted to wrangler's local e-mail endpoint (POST /cdn-cgi/local/email, which
//   runs the Worker's `email()` handler and answers when it has returned) until the message is readable through
//   GET /v3/conversations/{id}/messages. One mail at a time: new mails to the workspace's inbound address (each
//   starts an `email` conversation, whose id is read from GET /v3/email/inbound, newest first: one more API
//   read inside the figure), then the same customers' replies (In-Reply-To the first mail) into them.
// - outbound: continuation mails. N widget conversations started through the widget's endpoints (a visitor
//   session, then a conversation with the pre-chat e-mail address), then an operator reply (POST /v3/messages)
//   in each, which no visitor reads: the room's continuation timer fires the workspace's delay later (30 s, the
//   least it may be) and enqueues one `continuation` delivery, which the mail consumer claims, builds from the
//   unseen messages, sends through the `send_email` binding (wrangler's local simulation) and records `sent`;
//   timed from the deliveries' own timestamps (GET /v3/email/deliveries).
// - redelivery: every one of those N Queue messages is delivered again after its send was recorded, by a second
//   Worker in its own `wrangler dev` (bench/mail-redeliver) that sends `{ deliveryId }` to the same local Queue
//   through wrangler's dev registry; a seeded sentinel delivery queued last (it builds no mail, and its claim
//   is visible) says when the consumer has worked through them. The mails the binding was handed are counted
//   from wrangler's own record of every send() (its local explorer's list of sent mail), before and after.
import { performance } from 'node:perf_hooks';
import { deliveriesOf, redeliver, SEND_TIMEOUT_MS, SENTINEL_ID, until } from './email-redelivery.mjs';
import { startVisitorConversation } from './fanout.mjs';
import { apiCall as api, latencySummary, sequentialHealth } from './load.mjs';
import { ratio, round } from './report-format.mjs';

const INBOX = 'support@bench-mail.parley.test';
const SENDER = 'team@bench-mail.parley.test';
const CUSTOMERS = 'customers.bench-mail.test';
const VISITORS = 'visitors.bench-mail.test';
const WARMUP_MAILS = 5;
const SETUP_CONCURRENCY = 8;
const READABLE_TIMEOUT_MS = 10_000;
/** The least continuation delay a workspace may set (seconds): unseen team messages are mailed this long after. */
const CONTINUATION_DELAY_SECONDS = 30;

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

/**
 * `count` widget conversations, each started as the widget starts one (a visitor session, then the conversation
 * with the pre-chat e-mail address, which the visitor's contact keeps as claimed), SETUP_CONCURRENCY at a time.
 */
async function widgetConversations(baseUrl, workspaceId, count, run) {
	return inParallel(0, count, SETUP_CONCURRENCY, async (i) => {
		const email = `visitor-${run}-${i}@${VISITORS}`;
		const started = await startVisitorConversation(baseUrl, workspaceId, `Is item ${i} in stock?`, { email });
		return { conversationId: started.conversationId, email };
	});
}

/**
 * An operator reply in each of `conversations` (SETUP_CONCURRENCY at a time), read by no visitor: each room's
 * continuation timer enqueues one `continuation` delivery CONTINUATION_DELAY_SECONDS after its reply. Waits
 * until every delivery is settled.
 */
async function continuations({ baseUrl, workspace, conversations, health, warnings, log }) {
	log(
		`e-mail: an operator reply in each of ${conversations.length} widget conversations, mailed as a continuation ${CONTINUATION_DELAY_SECONDS} s later`,
	);
	const posted = performance.now();
	await inParallel(0, conversations.length, SETUP_CONCURRENCY, (i) =>
		api(baseUrl, workspace.token, 'POST', '/v3/messages', {
			conversationId: conversations[i].conversationId,
			text: `Yes, item ${i} is in stock.`,
		}),
	);
	const postSeconds = (performance.now() - posted) / 1000;
	let deliveries = [];
	const settled = await until(
		async () => {
			for (const status of ['queued', 'sending']) {
				const page = await api(baseUrl, workspace.token, 'GET', `/v3/email/deliveries?status=${status}&limit=2`);
				if (page.data.some((d) => d.id !== SENTINEL_ID)) return false;
			}
			deliveries = await deliveriesOf(baseUrl, workspace.token);
			return deliveries.length >= conversations.length;
		},
		SEND_TIMEOUT_MS + CONTINUATION_DELAY_SECONDS * 1000,
	);
	if (!settled) warnings.push(`e-mail: ${deliveries.length} deliveries settled within ${SEND_TIMEOUT_MS / 1000} s`);
	const expected = new Set(conversations.map((c) => c.email));
	const sent = deliveries.filter((d) => d.status === 'sent' && d.kind === 'continuation' && expected.has(d.recipient));
	if (sent.length !== conversations.length) {
		const other = deliveries.find((d) => d.status !== 'sent' || d.kind !== 'continuation');
		warnings.push(
			`e-mail: ${sent.length} of ${conversations.length} continuations sent (e.g. ${JSON.stringify(other)?.slice(0, 300)})`,
		);
	}
	const at = (iso) => Date.parse(iso);
	const firstEnqueue = Math.min(...deliveries.map((d) => at(d.createdAt)));
	const sentAts = sent.map((d) => at(d.sentAt));
	const firstSent = Math.min(...sentAts);
	const lastSent = Math.max(...sentAts);
	const spanSeconds = (lastSent - firstEnqueue) / 1000;
	// The rooms' timers pace the first part (they fire as the replies were posted, 30 s on): once the last
	// delivery is on the Queue, only the consumer limits what remains, so its rate there is the binding's
	// hand-off rate with a backlog.
	const allQueued = Math.max(...deliveries.map((d) => at(d.createdAt)));
	const backlog = sentAts.filter((t) => t > allQueued).length;
	const backlogPerSecond = backlog > 1 ? round(backlog / ((lastSent - allQueued) / 1000), 1) : null;
	const sendingSeconds = (lastSent - firstSent) / 1000;
	const perSecond = round(sent.length / spanSeconds, 1);
	const sendingPerSecond = sent.length > 1 ? round((sent.length - 1) / sendingSeconds, 1) : null;
	return {
		sent,
		figures: {
			kind: 'continuation',
			delaySeconds: CONTINUATION_DELAY_SECONDS,
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
			continuationEnabled: true,
			continuationDelaySeconds: CONTINUATION_DELAY_SECONDS,
		});
		await api(baseUrl, workspace.token, 'POST', '/v3/email/addresses', { address: INBOX });
		const healthSequential = await sequentialHealth(baseUrl, 200);
		const { run, figures } = await inbound({ baseUrl, workspace, mails, healthSequential, log });
		log(`e-mail: ${deliveries} widget conversations with a pre-chat address, ${SETUP_CONCURRENCY} at a time`);
		const setupStarted = performance.now();
		const conversations = await widgetConversations(baseUrl, workspace.workspaceId, deliveries, run);
		const setupSeconds = (performance.now() - setupStarted) / 1000;
		const out = await continuations({ baseUrl, workspace, conversations, health, warnings, log });
		const again = await redeliver({ baseUrl, workspace, sent: out.sent, registryPath, persistTo, warnings, log });
		return {
			healthSequential,
			inbound: figures,
			outbound: {
				...out.figures,
				widgetConversationsSeconds: round(setupSeconds, 2),
				mailsPerDelivery: ratio(again.mailsBefore, out.figures.sent),
			},
			redelivery: again,
		};
	} catch (error) {
		warnings.push(`e-mail failed: ${error.message}`);
		return null;
	}
}
