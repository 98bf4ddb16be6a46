// The bots section of `npm run bench`:
// - reply: a visitor's message to the bot's reply, seen on the visitor's socket (sequential rounds over a few
//   conversations), against GET /health timed the same way in the same run;
// - delays: N conversations each started by a bot that waits on a short Delay, then writes once. Every run
//   must resume exactly once; the time from a Delay's due time (its step log) to the stored resumed message is
//   its lateness.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { closeAll, connect, inPool, postJson, socketUrls, startVisitorConversation, withTimeout } from './fanout.mjs';
import { apiCall as api, latencySummary, sequentialHealth } from './load.mjs';
import { ratio } from './report-format.mjs';

const REPLY_TIMEOUT_MS = 10_000;

async function liveBot(baseUrl, token, trigger, channels, definition) {
	const bot = await api(baseUrl, token, 'POST', '/v3/bots', {
		name: `bench ${trigger.kind}`,
		trigger,
		channels,
		definition,
	});
	await api(baseUrl, token, 'POST', `/v3/bots/${bot.id}/publish`);
	return bot.id;
}

/** Visitor message → bot reply on the visitor's socket, `rounds` times over `conversations` conversations. */
async function replyLatency({ baseUrl, workspace, rounds, conversations }) {
	// An echo: every answer is repeated, then asked for again (the loop waits for the visitor, as it must).
	await liveBot(baseUrl, workspace.token, { kind: 'new_conversation' }, ['widget'], {
		start: 'ask',
		steps: [
			{ id: 'ask', type: 'data_entry', prompt: 'Say something', input: 'text', variable: 'said', next: 'echo' },
			{ id: 'echo', type: 'send_message', text: 'You said: {{ said }}', next: 'ask' },
		],
	});
	const rooms = [];
	const sockets = [];
	for (let i = 0; i < conversations; i++) {
		const started = await startVisitorConversation(baseUrl, workspace.workspaceId, `hello ${i}`);
		const room = { ...started, waiting: null };
		const urls = socketUrls(baseUrl, workspace.workspaceId, started.conversationId, started.sessionToken);
		const socket = await connect(urls.visitor, undefined, `bot reply ${i}`, {
			onMessage: (message, at) => {
				if (room.waiting && message.authorKind === 'bot' && message.text === room.waiting.expect)
					room.waiting.resolve(at);
			},
			onClose: () => {},
		});
		sockets.push(socket);
		rooms.push(room);
	}
	const latencies = [];
	let timeouts = 0;
	try {
		for (let i = 0; i < rounds; i++) {
			const room = rooms[i % rooms.length];
			const text = `round ${i}`;
			let resolve;
			const replied = new Promise((r) => {
				resolve = r;
			});
			room.waiting = { expect: `You said: ${text}`, resolve };
			const sentAt = performance.now();
			const sent = await postJson(
				`${baseUrl}/widget/${workspace.workspaceId}/conversations/${room.conversationId}/messages`,
				{ 'Parley-Session': room.sessionToken },
				{ text, clientMessageId: randomUUID() },
			);
			if (sent.status !== 201) throw new Error(`visitor message: ${sent.status} ${JSON.stringify(sent.body)}`);
			const at = await withTimeout(replied, REPLY_TIMEOUT_MS);
			room.waiting = null;
			if (at === undefined) timeouts++;
			else latencies.push(at - sentAt);
		}
	} finally {
		await closeAll(sockets);
	}
	return { rounds, conversations, timeouts, ...latencySummary(latencies) };
}

/**
 * N conversations started through the API, each by a contact's message that starts a bot waiting `seconds`,
 * then writing "resumed". Checks every run finished with exactly one "resumed"; measures due → resumed.
 */
async function delays({ baseUrl, workspace, count, seconds, log }) {
	await liveBot(baseUrl, workspace.token, { kind: 'new_conversation' }, ['api'], {
		start: 'wait',
		steps: [
			{ id: 'wait', type: 'delay', seconds, next: 'done' },
			{ id: 'done', type: 'end', message: 'resumed' },
		],
	});
	const ids = [];
	const began = performance.now();
	await inPool(count, 8, async (i) => {
		const started = await api(baseUrl, workspace.token, 'POST', '/v3/conversations', {
			contact: { email: `delay-${i}@bench.example` },
			channel: 'api',
			message: { text: `delay ${i}`, author: 'contact' },
		});
		ids.push(started.id);
	});
	const startSeconds = (performance.now() - began) / 1000;
	log(`delays: ${count} conversations started in ${startSeconds.toFixed(1)} s; waiting for every run to resume`);
	const deadline = Date.now() + (seconds + 120) * 1000;
	const outcomes = new Map();
	while (outcomes.size < ids.length && Date.now() < deadline) {
		await inPool(ids.length, 8, async (i) => {
			const id = ids[i];
			if (outcomes.has(id)) return;
			const runs = await api(baseUrl, workspace.token, 'GET', `/v3/conversations/${id}/bot-runs`);
			const run = runs.data[0];
			if (run?.status !== 'finished') return;
			const messages = await api(baseUrl, workspace.token, 'GET', `/v3/conversations/${id}/messages?limit=100`);
			const resumed = messages.data.filter((m) => m.authorKind === 'bot' && m.text === 'resumed');
			const due = Date.parse(run.log.find((entry) => entry.stepId === 'wait')?.output?.until ?? '');
			outcomes.set(id, { resumed: resumed.length, lateMs: Date.parse(resumed[0]?.createdAt ?? '') - due });
		});
		if (outcomes.size < ids.length) await new Promise((resolve) => setTimeout(resolve, 1_000));
	}
	const all = [...outcomes.values()];
	return {
		conversations: count,
		delaySeconds: seconds,
		startSeconds: Number(startSeconds.toFixed(1)),
		resumed: all.length,
		resumedOnce: all.filter((o) => o.resumed === 1).length,
		resumedTwice: all.filter((o) => o.resumed > 1).length,
		notResumed: ids.length - all.length,
		dueToResumed: latencySummary(all.filter((o) => Number.isFinite(o.lateMs)).map((o) => o.lateMs)),
	};
}

/** The section: a failure is a warning and a null result, as for the other live sections. */
export async function botSection({
	baseUrl,
	replyWorkspace,
	delayWorkspace,
	rounds,
	delayConversations,
	warnings,
	log,
}) {
	try {
		log(`measuring bot replies: ${rounds} visitor messages, each timed to the bot's answer on the visitor's socket`);
		const health = await sequentialHealth(baseUrl, rounds);
		// A visitor may send 20 messages a minute (a limit no setting lifts): 15 rounds each at most.
		const conversations = Math.max(10, Math.ceil(rounds / 15));
		const reply = await replyLatency({ baseUrl, workspace: replyWorkspace, rounds, conversations });
		reply.health = health;
		reply.ratioToHealth = { p50: ratio(reply.p50Ms, health.p50Ms), p99: ratio(reply.p99Ms, health.p99Ms) };
		if (reply.timeouts > 0) warnings.push(`bot replies: ${reply.timeouts} of ${rounds} got no reply in time`);
		log(`measuring ${delayConversations} bot delays`);
		const delay = await delays({ baseUrl, workspace: delayWorkspace, count: delayConversations, seconds: 5, log });
		if (delay.resumedOnce !== delay.conversations) {
			warnings.push(
				`bot delays: ${delay.resumedOnce} of ${delay.conversations} resumed exactly once (${delay.resumedTwice} twice or more, ${delay.notResumed} not at all)`,
			);
		}
		return { reply, delays: delay };
	} catch (error) {
		warnings.push(`bots failed: ${error.message}`);
		return null;
	}
}
