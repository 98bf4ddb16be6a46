// The single-room measurement: how many messages one conversation room takes per second when everyone in it
// writes at once. One visitor in four tabs and four operators each hold a socket on the same conversation,
// and each socket sends its next `message` frame as soon as the `ack` of the last one has arrived. Checks that
// every message was stored in D1, numbered without gap or repeat, and broadcast to all eight sockets exactly
// once, in seq order.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { closeAll, connect, postJson, socketUrls, startVisitorConversation, withTimeout } from './fanout.mjs';
import { latencySummary } from './load.mjs';

/** Visitor sockets: one visitor in several tabs (a visitor may hold 5 on a conversation). */
const TABS = 4;
const OPERATORS = 4;
/**
 * A visitor may send 20 messages a minute: the product fixes it (src/domain/widget/visitor-limits.ts, and the same
 * budget per socket in durable-objects/room-sockets.ts) and neither a widget setting nor a var raises it. The
 * opening message is one of them; the tabs share the rest, spread evenly over the run, so they never meet a 429.
 */
const VISITOR_MESSAGES_PER_MINUTE = 20;
const VISITOR_SENDS_PER_TAB = Math.floor((VISITOR_MESSAGES_PER_MINUTE - 1) / TABS);
const ACK_TIMEOUT_MS = 10_000;
/** A late duplicate would arrive after its first copy: listen a little longer before judging delivery. */
const SETTLE_MS = 1_000;

/** The admin's token and tokens of OPERATORS - 1 new operators who may read and send. */
async function operatorTokens(baseUrl, adminToken) {
	const auth = { Authorization: `Bearer ${adminToken}` };
	const tokens = [adminToken];
	for (let i = 1; i < OPERATORS; i++) {
		const member = await postJson(`${baseUrl}/v3/team/members`, auth, {
			email: `operator-${i}-${randomUUID().slice(0, 8)}@room.bench.test`,
			name: `Operator ${i}`,
			permissions: ['conversations:read', 'messages:send'],
		});
		if (member.status !== 201)
			throw new Error(`POST /v3/team/members: ${member.status} ${JSON.stringify(member.body)}`);
		const issued = await postJson(`${baseUrl}/v3/team/members/${member.body.id}/token`, auth, {});
		if (issued.status !== 201) throw new Error(`POST .../token: ${issued.status} ${JSON.stringify(issued.body)}`);
		tokens.push(issued.body.token);
	}
	return tokens;
}

/** One socket on the room: what it received, in order, and its sends waiting for their `ack`. */
class Participant {
	received = [];
	ids = new Set();
	lastSeq = 0;
	duplicated = 0;
	outOfOrder = 0;
	closedEarly = false;
	pending = new Map();

	constructor(label, role) {
		this.label = label;
		this.role = role;
	}

	receive(message) {
		if (this.ids.has(message.id)) {
			this.duplicated++;
			return;
		}
		this.ids.add(message.id);
		if (message.seq !== this.lastSeq + 1) this.outOfOrder++;
		this.lastSeq = Math.max(this.lastSeq, message.seq);
	}

	/** An `ack` or an `error` frame answers the send with that clientMessageId. */
	answer(frame, at) {
		if (frame.type !== 'ack' && frame.type !== 'error') return;
		this.pending.get(frame.clientMessageId)?.resolve({ frame, at });
	}
}

/** Every stored message of the conversation as D1 has it (the API's pages): id to seq. */
async function storedSeqs(baseUrl, token, conversationId) {
	const seqs = new Map();
	let cursor = null;
	do {
		const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
		const response = await fetch(`${baseUrl}/v3/conversations/${conversationId}/messages?limit=100${query}`, {
			headers: { Authorization: `Bearer ${token}` },
			signal: AbortSignal.timeout(10_000),
		});
		const page = await response.json();
		if (response.status !== 200) throw new Error(`GET .../messages: ${response.status} ${JSON.stringify(page)}`);
		for (const message of page.data) seqs.set(message.id, message.seq);
		cursor = page.nextCursor;
	} while (cursor);
	return seqs;
}

/**
 * Measures one room against a running Worker, in an (empty) workspace named by `workspaceId` and its admin's
 * `token`. Operators send in a closed loop for the whole run; each visitor tab too, but no sooner than its
 * turn in the visitor's fixed budget. Sends that start in the warm-up are checked, not timed.
 */
export async function measureRoom({ baseUrl, workspaceId, token, warmupMs, durationMs }) {
	const setupStarted = performance.now();
	const tokens = await operatorTokens(baseUrl, token);
	const opened = await startVisitorConversation(baseUrl, workspaceId, 'Opening message');
	const { conversationId, openingMessageId } = opened;
	const urls = socketUrls(baseUrl, workspaceId, conversationId, opened.sessionToken);
	const participants = [
		...Array.from({ length: TABS }, (_, i) => new Participant(`visitor tab ${i + 1}`, 'visitor')),
		...Array.from({ length: OPERATORS }, (_, i) => new Participant(`operator ${i + 1}`, 'operator')),
	];
	let closing = false;
	const sockets = [];
	try {
		for (const [i, p] of participants.entries()) {
			const init = p.role === 'operator' ? { headers: { Authorization: `Bearer ${tokens[i - TABS]}` } } : undefined;
			p.socket = await connect(urls[p.role], init, p.label, {
				onMessage: (message) => p.receive(message),
				onFrame: (frame, at) => p.answer(frame, at),
				onClose: () => {
					if (!closing) p.closedEarly = true;
				},
			});
			sockets.push(p.socket);
		}
		const setupSeconds = (performance.now() - setupStarted) / 1000;
		const run = await sendAll(participants, warmupMs, durationMs);
		await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
		const stored = await storedSeqs(baseUrl, token, conversationId);
		return { setupSeconds: Number(setupSeconds.toFixed(1)), ...check(participants, run, stored, openingMessageId) };
	} finally {
		closing = true;
		await closeAll(sockets);
	}
}

/** Runs every participant's loop; returns its sends and the measured window. */
async function sendAll(participants, warmupMs, durationMs) {
	const runTag = randomUUID().slice(0, 8);
	const start = performance.now();
	const measureFrom = start + warmupMs;
	const stopAt = measureFrom + durationMs;
	// A visitor tab's i-th send waits for its slot: the tabs take turns, VISITOR_SENDS_PER_TAB each over the run.
	const visitorSlotMs = (warmupMs + durationMs) / VISITOR_SENDS_PER_TAB;
	const sends = [];

	async function loop(p, tab) {
		for (let i = 0; performance.now() < stopAt; i++) {
			if (p.role === 'visitor') {
				if (i >= VISITOR_SENDS_PER_TAB) return;
				const slot = start + (i + tab / TABS) * visitorSlotMs;
				if (slot >= stopAt) return;
				await new Promise((resolve) => setTimeout(resolve, Math.max(0, slot - performance.now())));
			}
			const clientMessageId = randomUUID();
			const answered = Promise.withResolvers();
			p.pending.set(clientMessageId, answered);
			const send = { p, sentAt: performance.now() };
			sends.push(send);
			p.socket.send(JSON.stringify({ type: 'message', text: `Room ${runTag} ${p.label} #${i}`, clientMessageId }));
			const answer = await withTimeout(answered.promise, ACK_TIMEOUT_MS);
			p.pending.delete(clientMessageId);
			send.answeredAt = answer?.at ?? performance.now();
			if (answer?.frame.type === 'ack') send.message = answer.frame.message;
			else send.error = answer ? `${answer.frame.statusCode}: ${answer.frame.message}` : 'no ack within 10 s';
		}
	}

	await Promise.all(participants.map((p, i) => loop(p, i)));
	return { sends, measureFrom, measuredMs: performance.now() - measureFrom };
}

/** The figures of a run and its checks: stored, numbered, delivered to every socket once and in order. */
function check(participants, { sends, measureFrom, measuredMs }, stored, openingMessageId) {
	const acked = sends.filter((s) => s.message);
	const measured = sends.filter((s) => s.sentAt >= measureFrom);
	const measuredAcked = measured.filter((s) => s.message);
	const failed = sends.filter((s) => !s.message);

	// Numbering: the opening message is seq 1; every acknowledged message takes one of the seqs after it.
	const bySeq = new Map([[1, openingMessageId]]);
	let duplicatedSeqs = 0;
	for (const { message } of acked) {
		if (bySeq.has(message.seq) && bySeq.get(message.seq) !== message.id) duplicatedSeqs++;
		bySeq.set(message.seq, message.id);
	}
	const lastSeq = Math.max(...bySeq.keys());
	const gaps = lastSeq - bySeq.size;

	const expected = new Set([openingMessageId, ...acked.map((s) => s.message.id)]);
	const delivery = { lost: 0, duplicated: 0, outOfOrder: 0, unexpected: 0 };
	for (const p of participants) {
		for (const id of expected) if (!p.ids.has(id)) delivery.lost++;
		for (const id of p.ids) if (!expected.has(id)) delivery.unexpected++;
		delivery.duplicated += p.duplicated;
		delivery.outOfOrder += p.outOfOrder;
	}
	const inD1 = { missing: 0, wrongSeq: 0 };
	for (const { message } of acked) {
		if (!stored.has(message.id)) inD1.missing++;
		else if (stored.get(message.id) !== message.seq) inD1.wrongSeq++;
	}
	const socketsClosedEarly = participants.filter((p) => p.closedEarly).length;
	const side = (role) => ({
		sent: sends.filter((s) => s.p.role === role).length,
		measured: measuredAcked.filter((s) => s.p.role === role).length,
	});
	const faults =
		duplicatedSeqs + gaps + Object.values(delivery).reduce((a, b) => a + b, 0) + inD1.missing + inD1.wrongSeq;
	return {
		sockets: participants.length,
		visitorTabs: TABS,
		operators: OPERATORS,
		visitorMessagesPerMinute: VISITOR_MESSAGES_PER_MINUTE,
		sent: sends.length,
		measuredSends: measured.length,
		errors: failed.length,
		firstError: failed[0]?.error ?? null,
		measuredSeconds: Number((measuredMs / 1000).toFixed(3)),
		messagesPerSecond: Number((measuredAcked.length / (measuredMs / 1000)).toFixed(1)),
		ack: latencySummary(measuredAcked.map((s) => s.answeredAt - s.sentAt)),
		bySide: { operator: side('operator'), visitor: side('visitor') },
		numbering: { messages: bySeq.size, lastSeq, duplicatedSeqs, gaps },
		storedInD1: { messages: stored.size, ...inD1 },
		delivery,
		socketsClosedEarly,
		allChecked: faults === 0 && socketsClosedEarly === 0,
	};
}
