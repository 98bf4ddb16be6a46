// The fan-out measurement: many conversations, each with a visitor socket and an operator socket open, and
// operator messages sent through the API (POST /v3/messages). Measures how long a message takes from the
// send to its frame on each socket, how many the visitors receive per second, and checks that every message
// reaches both sockets exactly once and in seq order; the same conversations grow between sizes. Its
// helpers (starting a visitor's conversation, opening a socket) serve the single-room measurement too.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { latencySummary } from './load.mjs';

/** Conversations (and their two sockets) set up at a time: enough to be quick, few enough for 2 cores. */
const SETUP_PARALLELISM = 10;
const REQUEST_TIMEOUT_MS = 10_000;
const SYNCED_TIMEOUT_MS = 15_000;
/** How long a sender waits for both sockets to receive its message before it counts it as late or lost. */
const RECEIPT_TIMEOUT_MS = 10_000;
/** A late duplicate would arrive after its first copy: listen a little longer before judging delivery. */
const SETTLE_MS = 1_000;
const CLOSE_TIMEOUT_MS = 5_000;
const SIDES = ['visitor', 'operator'];

const round = (value, digits) => Number(value.toFixed(digits));

/** POSTs a JSON body; returns the status and the parsed answer (its text when it is not JSON). */
export async function postJson(url, headers, body) {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', ...headers },
		body: JSON.stringify(body),
		signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
	});
	const text = await response.text();
	try {
		return { status: response.status, body: JSON.parse(text) };
	} catch {
		// An error page from the runtime rather than the API: keep its text for the message.
		return { status: response.status, body: text };
	}
}

/** Resolves with `promise`, or with undefined after `ms`; never leaves a timer behind. */
export function withTimeout(promise, ms) {
	let timer;
	const expired = new Promise((resolve) => {
		timer = setTimeout(resolve, ms);
	});
	return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** Runs `task(i)` for i in 0..count-1 with at most `parallelism` running at once; stops at the first error. */
export async function inPool(count, parallelism, task) {
	let next = 0;
	let failure = null;
	const worker = async () => {
		while (next < count && failure === null) {
			try {
				await task(next++);
			} catch (error) {
				failure ??= error;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(parallelism, count) }, worker));
	if (failure !== null) throw failure;
}

/**
 * What one socket has received: the ids it saw (a second copy is a duplicate) and the highest seq (a frame
 * that is not the next seq is out of order). Sockets of one conversation share nothing but the sends.
 */
class SocketLog {
	ids = new Set();
	lastSeq = 0;
	duplicated = 0;
	outOfOrder = 0;
	/** Frames that are neither the visitor's opening message nor one of ours. */
	unexpected = 0;
	closedEarly = false;

	/** Faults are counted per measurement; what the socket has received so far stays. */
	clearFaults() {
		this.duplicated = 0;
		this.outOfOrder = 0;
		this.unexpected = 0;
	}
}

/**
 * Opens a socket and resolves once its `synced` frame has arrived. Every `message` frame goes to `onMessage`
 * with its arrival time, taken before anything else happens to it, any other frame (`ack`, `error`, ...) to
 * `onFrame`; `onClose` hears a close after `synced`.
 */
export function connect(url, init, label, { onMessage, onFrame = () => {}, onClose }) {
	return new Promise((resolve, reject) => {
		const socket = new WebSocket(url, init);
		let synced = false;
		const timer = setTimeout(() => {
			socket.close();
			reject(new Error(`${label}: no synced frame within ${SYNCED_TIMEOUT_MS / 1000} s`));
		}, SYNCED_TIMEOUT_MS);
		socket.addEventListener('message', (event) => {
			const at = performance.now();
			const frame = JSON.parse(event.data);
			if (frame.type === 'message') onMessage(frame.message, at);
			else if (frame.type === 'synced' && !synced) {
				synced = true;
				clearTimeout(timer);
				resolve(socket);
			} else onFrame(frame, at);
		});
		// Node's WebSocket reports a refused upgrade (e.g. a 401 for a missing Authorization header) only as an
		// `error` event without the status, and may fire no `close` after it.
		const fail = (what) => {
			if (synced) return;
			clearTimeout(timer);
			reject(new Error(`${label}: ${what} before synced (a refused upgrade, e.g. 401, looks like this)`));
		};
		socket.addEventListener('error', (event) => fail(`error "${event.message ?? 'unknown'}"`));
		socket.addEventListener('close', (event) => {
			if (synced) onClose();
			else fail(`closed with code ${event.code}`);
		});
	});
}

/** Closes the sockets and waits for their close frames, CLOSE_TIMEOUT_MS at most. */
export async function closeAll(sockets) {
	const closed = sockets.map((socket) => {
		if (socket.readyState === WebSocket.CLOSED) return Promise.resolve();
		const done = new Promise((resolve) => socket.addEventListener('close', resolve, { once: true }));
		socket.close(1000, 'bench done');
		return done;
	});
	await withTimeout(Promise.all(closed), CLOSE_TIMEOUT_MS);
}

/**
 * A visitor session that starts a conversation through the widget endpoints, as the widget does (with the
 * pre-chat form's `details` when given): returns the session token, the conversation id and the id of its
 * opening message (seq 1).
 */
export async function startVisitorConversation(baseUrl, workspaceId, text, details = undefined) {
	const session = await postJson(`${baseUrl}/widget/${workspaceId}/sessions`, {}, {});
	if (session.status !== 200) {
		throw new Error(`POST /widget/.../sessions: ${session.status} ${JSON.stringify(session.body)}`);
	}
	const { sessionToken } = session.body;
	const started = await postJson(
		`${baseUrl}/widget/${workspaceId}/conversations`,
		{ 'Parley-Session': sessionToken },
		{ message: { text, clientMessageId: randomUUID() }, ...(details ? { details } : {}) },
	);
	if (started.status !== 201) {
		throw new Error(`POST /widget/.../conversations: ${started.status} ${JSON.stringify(started.body)}`);
	}
	return { sessionToken, conversationId: started.body.conversation.id, openingMessageId: started.body.message.id };
}

/** The URLs of a conversation's visitor and operator sockets, from its first message on. */
export function socketUrls(baseUrl, workspaceId, conversationId, sessionToken) {
	const wsBase = baseUrl.replace(/^http/, 'ws');
	return {
		visitor: `${wsBase}/widget/${workspaceId}/conversations/${conversationId}/live?session=${encodeURIComponent(sessionToken)}&after=0`,
		operator: `${wsBase}/v3/conversations/${conversationId}/live?after=0`,
	};
}

/**
 * The fan-out against a running Worker, in an (empty) workspace named by `workspaceId` and its admin's
 * `token`. `grow(n)` brings it to n conversations (visitor sessions, conversations and their two sockets,
 * created as visitors do); `measure(loop)` runs the senders over all of them and returns a plain result;
 * `close()` closes every socket. Growing between measurements compares sizes without setting the first
 * conversations up twice.
 *
 * Senders form a closed loop of `concurrency`: each sends one message and waits until both sockets have it (or
 * RECEIPT_TIMEOUT_MS passed) before sending the next, so at most `concurrency` messages are in flight. Messages
 * whose send starts in the warm-up are checked for delivery but not timed.
 */
export function openFanout({ baseUrl, workspaceId, token }) {
	const auth = { Authorization: `Bearer ${token}` };
	const rooms = [];
	const sockets = [];
	/** The current measurement's sends, by the marker in their text: a frame can arrive before the POST's answer. */
	let sends = new Map();
	/** Set before the bench closes its sockets, so that only the server's closes count as early. */
	let closing = false;

	function receive(room, side, message, at) {
		const log = room[side];
		if (log.ids.has(message.id)) {
			log.duplicated++;
			return;
		}
		log.ids.add(message.id);
		if (message.seq !== log.lastSeq + 1) log.outOfOrder++;
		log.lastSeq = Math.max(log.lastSeq, message.seq);
		const send = sends.get(message.text);
		if (!send || send.room !== room) {
			if (message.id !== room.openingMessageId) log.unexpected++;
			return;
		}
		send.frames[side] = { id: message.id, seq: message.seq, at };
		if (send.frames.visitor && send.frames.operator) send.received.resolve();
	}

	async function openRoom(index) {
		const {
			sessionToken,
			conversationId: id,
			openingMessageId,
		} = await startVisitorConversation(baseUrl, workspaceId, `Opening message ${index}`);
		const room = { id, openingMessageId, visitor: new SocketLog(), operator: new SocketLog() };
		rooms[index] = room;
		const urls = socketUrls(baseUrl, workspaceId, id, sessionToken);
		const handlers = (side) => ({
			onMessage: (message, at) => receive(room, side, message, at),
			// A socket the server closes mid-run cannot receive what follows: its misses are not the sender's.
			onClose: () => {
				if (!closing) room[side].closedEarly = true;
			},
		});
		const opened = await Promise.allSettled([
			connect(urls.visitor, undefined, `visitor socket of ${id}`, handlers('visitor')),
			// Node's WebSocket (undici) takes request headers in its second argument; browsers cannot do this.
			connect(urls.operator, { headers: auth }, `operator socket of ${id}`, handlers('operator')),
		]);
		sockets.push(...opened.filter((r) => r.status === 'fulfilled').map((r) => r.value));
		const failed = opened.find((r) => r.status === 'rejected');
		if (failed) throw failed.reason;
	}

	async function grow(conversations) {
		const started = performance.now();
		const from = rooms.length;
		await inPool(conversations - from, SETUP_PARALLELISM, (i) => openRoom(from + i));
		return (performance.now() - started) / 1000;
	}

	/**
	 * Closed-loop sends for `warmupMs` then `durationMs`; or, with `sends`, exactly that many sends, all timed
	 * (one pass over the conversations, say).
	 */
	async function measure({ concurrency, warmupMs = 0, durationMs = Infinity, sends: count = Infinity }) {
		sends = new Map();
		for (const room of rooms) for (const side of SIDES) room[side].clearFaults();
		const runTag = randomUUID().slice(0, 8);
		const start = performance.now();
		const measureFrom = start + warmupMs;
		const stopAt = measureFrom + durationMs;
		let sent = 0;

		async function sender() {
			while (performance.now() < stopAt && sent < count) {
				const i = sent++;
				// Round robin: consecutive sends go to different conversations, every conversation gets its turn.
				const room = rooms[i % rooms.length];
				const marker = `Fan-out ${runTag} #${i}`;
				const send = { room, frames: {}, received: Promise.withResolvers(), status: null, message: null, error: null };
				sends.set(marker, send);
				send.sentAt = performance.now();
				try {
					const answer = await postJson(`${baseUrl}/v3/messages`, auth, { conversationId: room.id, text: marker });
					send.status = answer.status;
					if (answer.status === 201) send.message = answer.body;
					else send.error = `HTTP ${answer.status}: ${JSON.stringify(answer.body)}`;
				} catch (error) {
					send.status = 0;
					send.error = String(error);
				}
				send.answeredAt = performance.now();
				if (send.status === 201) await withTimeout(send.received.promise, RECEIPT_TIMEOUT_MS);
			}
		}

		await Promise.all(Array.from({ length: concurrency }, sender));
		const measuredMs = performance.now() - measureFrom;
		await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
		return summarize({ rooms, sends: [...sends.values()], measureFrom, measuredMs, sent });
	}

	async function close() {
		closing = true;
		await closeAll(sockets);
	}

	return { grow, measure, close };
}

function summarize({ rooms, sends, measureFrom, measuredMs, sent }) {
	const latency = { visitor: [], operator: [], answer: [] };
	const delivery = Object.fromEntries(
		SIDES.map((side) => [side, { lost: 0, duplicated: 0, outOfOrder: 0, wrongSeq: 0, unexpected: 0 }]),
	);
	let sendErrors = 0;
	let firstSendError = null;
	let measuredSends = 0;
	let deliveredInWindow = 0;
	const windowEnd = measureFrom + measuredMs;
	for (const send of sends) {
		const measured = send.sentAt >= measureFrom;
		if (measured) measuredSends++;
		if (send.status !== 201) {
			sendErrors++;
			firstSendError ??= send.error;
			continue;
		}
		if (measured) latency.answer.push(send.answeredAt - send.sentAt);
		for (const side of SIDES) {
			const frame = send.frames[side];
			if (!frame) {
				// A socket the server closed is reported on its own; its misses are not counted twice.
				if (!send.room[side].closedEarly) delivery[side].lost++;
				continue;
			}
			// The frame must carry the message the POST stored, under the same seq.
			if (frame.id !== send.message.id || frame.seq !== send.message.seq) delivery[side].wrongSeq++;
			if (measured) latency[side].push(frame.at - send.sentAt);
			// A receipt in the settle time after the window is checked, but not counted as throughput.
			if (measured && side === 'visitor' && frame.at <= windowEnd) deliveredInWindow++;
		}
	}
	for (const room of rooms) {
		for (const side of SIDES) {
			delivery[side].duplicated += room[side].duplicated;
			delivery[side].outOfOrder += room[side].outOfOrder;
			delivery[side].unexpected += room[side].unexpected;
		}
	}
	const socketsClosedEarly = rooms.reduce((n, room) => n + SIDES.filter((side) => room[side].closedEarly).length, 0);
	const faults = SIDES.reduce((n, side) => n + Object.values(delivery[side]).reduce((a, b) => a + b, 0), 0);
	return {
		conversations: rooms.length,
		sockets: rooms.length * SIDES.length,
		sent,
		measuredSends,
		sendErrors,
		firstSendError,
		measuredSeconds: round(measuredMs / 1000, 3),
		// Only receipts on the visitor sockets count: that is the side the message fans out to.
		deliveredPerSecond: round(deliveredInWindow / (measuredMs / 1000), 1),
		visitorReceipt: { messages: latency.visitor.length, ...latencySummary(latency.visitor) },
		operatorReceipt: { messages: latency.operator.length, ...latencySummary(latency.operator) },
		postAnswer: { messages: latency.answer.length, ...latencySummary(latency.answer) },
		delivery,
		socketsClosedEarly,
		exactlyOnceInOrder: faults === 0 && socketsClosedEarly === 0,
	};
}
