// The automation section of `npm run bench`: auto-assignment and automation rules, each against GET /health
// in the same run.
// - assignment under creation: 5 operators online (each with its inbox feed socket open, as a console holds
//   it), a round-robin assignment rule, then N conversations started by visitors through the widget endpoints,
//   8 at a time. Each assignment is seen on the admin's inbox feed (`conversation.updated` with an assignee),
//   whose event says when it was made (`occurredAt`): start → assigned and start → on the feed (p50/p99);
//   decisions per second count from the first start to the last assignment made; the spread is the largest
//   minus the smallest operator's share.
// - queue drain: the same operators set themselves away, N more conversations wait in the queue, then all
//   five come back online at once: decisions per second from the first "online" to the last assignment made.
// - rule executions: a rule on `tag_applied` (urgent) that answers the customer and tags the conversation
//   `triaged`; the tag applied through the API to N seeded conversations, 8 at a time. Each execution's own
//   finishedAt minus its PATCH's start gives the latency; executions per second count from the first PATCH to
//   the last execution finished.
// - one at a time (ONE_AT_A_TIME of each, before the loads above): a conversation started once the previous one
//   is assigned, timed from its start request (its visitor's session made before) to the assignment's
//   `occurredAt`; a tag applied once the previous execution finished, timed from its PATCH to the execution's
//   finishedAt. What a person waits on when nothing else queues: the figures the 150 ms goal is about.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { inPool, postJson, startVisitorConversation, withTimeout } from './fanout.mjs';
import { allPages, apiCall as api, latencySummary, sequentialHealth } from './load.mjs';
import { ratio, round } from './report-format.mjs';

const DONE_TIMEOUT_MS = 300_000;
/** Shorter spans than this make no rate: a few timer ticks would decide it. */
const MIN_SPAN_MS = 50;

/** The latest of `times`, or null when there are none. */
const latest = (times) => (times.length === 0 ? null : Math.max(...times));

/** `count` per second over `fromMs`..`toMs`, or null when the span is missing or too short to mean anything. */
const perSecond = (count, fromMs, toMs) =>
	toMs === null || toMs - fromMs < MIN_SPAN_MS ? null : round(count / ((toMs - fromMs) / 1000), 1);
const OPERATORS = 5;
const FEED_OPEN_TIMEOUT_MS = 15_000;

/**
 * Opens the inbox feed of `token` and resolves once its first frame (everyone's presence) arrived; every
 * later `event` frame goes to `onEvent` with its arrival time (Date.now(), comparable with the Worker's ISO
 * times: both run on this machine).
 */
async function openFeed(baseUrl, token, onEvent) {
	const socket = await withTimeout(
		new Promise((resolve, reject) => {
			const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v3/live`, {
				headers: { Authorization: `Bearer ${token}` },
			});
			let open = false;
			socket.addEventListener('message', (message) => {
				const at = Date.now();
				const frame = JSON.parse(message.data);
				if (frame.type === 'presence' && !open) {
					open = true;
					resolve(socket);
				} else if (frame.type === 'event') onEvent(frame.event, at);
			});
			socket.addEventListener('error', () => open || reject(new Error('inbox feed: refused or failed')));
			socket.addEventListener('close', (event) => open || reject(new Error(`inbox feed closed (${event.code})`)));
		}),
		FEED_OPEN_TIMEOUT_MS,
	);
	if (!socket) throw new Error(`inbox feed: no presence frame within ${FEED_OPEN_TIMEOUT_MS / 1000} s`);
	return socket;
}

/** Waits until `done()` holds or DONE_TIMEOUT_MS passed, checking every `everyMs`. */
async function until(done, everyMs = 100) {
	const deadline = Date.now() + DONE_TIMEOUT_MS;
	while (!(await done()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, everyMs));
}

/** The team: OPERATORS members with their own tokens and feed sockets, online. */
async function team(baseUrl, admin) {
	const members = [];
	for (let i = 0; i < OPERATORS; i++) {
		const member = await api(baseUrl, admin, 'POST', '/v3/team/members', {
			email: `agent-${i}@bench.example`,
			name: `Agent ${i}`,
			permissions: ['conversations:read', 'messages:send'],
		});
		const { token } = await api(baseUrl, admin, 'POST', `/v3/team/members/${member.id}/token`);
		const socket = await openFeed(baseUrl, token, () => {});
		members.push({ id: member.id, token, socket });
	}
	return members;
}

const setStatus = (baseUrl, members, status) =>
	Promise.all(members.map((m) => api(baseUrl, m.token, 'PUT', '/v3/me/status', { status })));

/** Starts `n` visitor conversations 8 at a time; returns when each started (Date.now()), by id. */
async function startConversations(baseUrl, workspaceId, n, label) {
	const startedAt = new Map();
	await inPool(n, 8, async (i) => {
		const at = Date.now();
		const { conversationId } = await startVisitorConversation(baseUrl, workspaceId, `${label} ${i}`);
		startedAt.set(conversationId, at);
	});
	return startedAt;
}

/** Conversations started, and tags applied, one at a time before each load (see the header). */
export const ONE_AT_A_TIME = 20;

/** Starts one conversation (its visitor's session made first, untimed); returns its id and when its start began. */
async function startOne(baseUrl, workspaceId, text) {
	const session = await postJson(`${baseUrl}/widget/${workspaceId}/sessions`, {}, {});
	if (session.status !== 200) throw new Error(`POST /widget/.../sessions: ${session.status}`);
	const at = Date.now();
	const started = await postJson(
		`${baseUrl}/widget/${workspaceId}/conversations`,
		{ 'Parley-Session': session.body.sessionToken },
		{ message: { text, clientMessageId: randomUUID() } },
	);
	if (started.status !== 201) throw new Error(`POST /widget/.../conversations: ${started.status}`);
	return { id: started.body.conversation.id, at };
}

async function assignment({ baseUrl, workspace, conversations, log }) {
	/** The first assignment of each conversation seen on the admin's feed: made when, seen when, and to whom. */
	const assigned = new Map();
	const watcher = await openFeed(baseUrl, workspace.token, (event, seen) => {
		if (event.type !== 'conversation.updated') return;
		const to = event.payload.changes?.assigneeId?.to;
		const id = event.payload.conversation.id;
		if (to && !assigned.has(id)) assigned.set(id, { at: Date.parse(event.occurredAt), seen, to });
	});
	// The admin watching is present too: busy, so that only the five agents take conversations.
	await api(baseUrl, workspace.token, 'PUT', '/v3/me/status', { status: 'busy' });
	const members = await team(baseUrl, workspace.token);
	try {
		await setStatus(baseUrl, members, 'online');
		await api(baseUrl, workspace.token, 'POST', '/v3/assignment/rules', {
			name: 'Everyone in turn',
			policy: { strategy: 'round_robin' },
		});

		log(`assignment: ${ONE_AT_A_TIME} conversations started one at a time, each once the previous one is assigned`);
		const oneByOne = [];
		for (let i = 0; i < ONE_AT_A_TIME; i++) {
			const { id, at } = await startOne(baseUrl, workspace.workspaceId, `One ${i}`);
			await until(() => assigned.has(id), 10);
			if (assigned.has(id)) oneByOne.push(assigned.get(id).at - at);
		}
		const oneAtATime = {
			conversations: ONE_AT_A_TIME,
			assigned: oneByOne.length,
			startToAssigned: latencySummary(oneByOne),
		};
		log(`assignment: ${conversations} conversations started by visitors while ${OPERATORS} operators are online`);
		const began = Date.now();
		const created = await startConversations(baseUrl, workspace.workspaceId, conversations, 'Hello');
		const createdSeconds = (Date.now() - began) / 1000;
		await until(() => [...created.keys()].every((id) => assigned.has(id)));
		const live = [...created].filter(([id]) => assigned.has(id));
		const perOperator = members.map((m) => live.filter(([id]) => assigned.get(id).to === m.id).length);
		const lastLive = latest(live.map(([id]) => assigned.get(id).at));
		const underCreation = {
			conversations,
			assigned: live.length,
			toOthers: live.length - perOperator.reduce((a, b) => a + b, 0),
			perOperator,
			spread: Math.max(...perOperator) - Math.min(...perOperator),
			creationsPerSecond: round(conversations / Math.max(0.001, createdSeconds), 1),
			startToAssigned: latencySummary(live.map(([id, at]) => assigned.get(id).at - at)),
			startToFeed: latencySummary(live.map(([id, at]) => assigned.get(id).seen - at)),
			decisionsPerSecond: perSecond(live.length, began, lastLive),
		};

		log(`assignment: ${conversations} conversations queued while everyone is away, then everyone back online`);
		await setStatus(baseUrl, members, 'away');
		const queueBegan = Date.now();
		const queued = await startConversations(baseUrl, workspace.workspaceId, conversations, 'Anyone there?');
		const queuedSeconds = (Date.now() - queueBegan) / 1000;
		await until(async () => {
			const queue = await api(baseUrl, workspace.token, 'GET', '/v3/assignment/queue');
			return queue.data.length >= conversations;
		}, 250);
		const queueLength = (await api(baseUrl, workspace.token, 'GET', '/v3/assignment/queue')).data.length;
		if (queueLength < conversations) throw new Error(`assignment: ${queueLength} of ${conversations} queued`);
		const assignedWhileAway = [...queued.keys()].filter((id) => assigned.has(id)).length;
		const online = Date.now();
		await setStatus(baseUrl, members, 'online');
		await until(() => [...queued.keys()].every((id) => assigned.has(id)));
		const drained = [...queued.keys()].filter((id) => assigned.has(id));
		const lastDrained = latest(drained.map((id) => assigned.get(id).at));
		const drain = {
			conversations,
			creationsPerSecond: round(conversations / Math.max(0.001, queuedSeconds), 1),
			queueLength,
			assignedWhileAway,
			assigned: drained.length,
			onlineToLast: lastDrained === null ? null : lastDrained - online,
			decisionsPerSecond: perSecond(drained.length, online, lastDrained),
		};
		return { operators: OPERATORS, oneAtATime, underCreation, drain };
	} finally {
		await Promise.allSettled([watcher, ...members.map((m) => m.socket)].map((s) => s.close(1000, 'bench done')));
	}
}

async function ruleExecutions({ baseUrl, workspace, events, log }) {
	const ids = workspace.conversationIds.slice(0, events);
	if (ids.length < events) throw new Error(`rules: ${events} events need as many seeded conversations`);
	const rule = await api(baseUrl, workspace.token, 'POST', '/v3/automation-rules', {
		name: 'Urgent: answer and triage',
		trigger: { kind: 'tag_applied', tag: 'urgent' },
		actions: [
			{ type: 'send_message', text: 'Thanks {{ contact.name | default: "there" }}, this one goes first.' },
			{ type: 'apply_tag', tag: 'triaged' },
		],
	});
	log(`rules: the tag "urgent" applied to ${ONE_AT_A_TIME} conversations one at a time, each once the last is done`);
	const single = workspace.conversationIds.slice(events, events + ONE_AT_A_TIME);
	const oneByOne = [];
	for (const id of single) {
		const at = Date.now();
		await api(baseUrl, workspace.token, 'PATCH', `/v3/conversations/${id}`, { tags: ['urgent'] });
		let finished = null;
		await until(async () => {
			const page = await api(
				baseUrl,
				workspace.token,
				'GET',
				`/v3/automation-rules/executions?ruleId=${rule.id}&limit=100`,
			);
			const mine = page.data.find((e) => e.conversationId === id && e.status !== 'running');
			finished = mine ? Date.parse(mine.finishedAt) : null;
			return finished !== null;
		}, 10);
		if (finished !== null) oneByOne.push(finished - at);
	}
	const oneAtATime = { events: single.length, finished: oneByOne.length, tagToDone: latencySummary(oneByOne) };
	log(`rules: the tag "urgent" applied to ${events} conversations, 8 at a time`);
	const patchedAt = new Map();
	const began = Date.now();
	await inPool(events, 8, async (i) => {
		patchedAt.set(ids[i], Date.now());
		await api(baseUrl, workspace.token, 'PATCH', `/v3/conversations/${ids[i]}`, { tags: ['urgent'] });
	});
	log(`rules: ${events} tags applied in ${((Date.now() - began) / 1000).toFixed(1)} s; waiting for the executions`);
	let executions = [];
	await until(async () => {
		executions = (
			await allPages(baseUrl, workspace.token, `/v3/automation-rules/executions?ruleId=${rule.id}&limit=100`)
		).filter((e) => !single.includes(e.conversationId));
		return executions.length >= events && executions.every((e) => e.status !== 'running');
	}, 1000);
	const done = executions.filter((e) => e.status === 'succeeded');

	return {
		oneAtATime,
		events,
		executions: executions.length,
		succeeded: done.length,
		failed: executions.filter((e) => e.status === 'failed').length,
		skipped: executions.filter((e) => e.status === 'skipped').length,
		actionsPerExecution: 2,
		tagToDone: latencySummary(done.map((e) => Date.parse(e.finishedAt) - patchedAt.get(e.conversationId))),
		executionsPerSecond: perSecond(done.length, began, latest(done.map((e) => Date.parse(e.finishedAt)))),
	};
}

export async function automationSection({
	baseUrl,
	assignmentWorkspace,
	rulesWorkspace,
	conversations,
	events,
	health,
	warnings,
	log,
}) {
	const started = performance.now();
	const routing = await assignment({ baseUrl, workspace: assignmentWorkspace, conversations, log });
	const { underCreation: live, drain } = routing;
	if (live.assigned !== conversations) warnings.push(`assignment: ${live.assigned} of ${conversations} assigned`);
	if (live.spread > 1) warnings.push(`assignment: round robin spread ${live.spread} (${live.perOperator.join(', ')})`);
	if (drain.assignedWhileAway > 0) warnings.push(`assignment: ${drain.assignedWhileAway} assigned while all away`);
	if (drain.assigned !== conversations) warnings.push(`assignment: ${drain.assigned} of ${conversations} drained`);
	const rules = await ruleExecutions({ baseUrl, workspace: rulesWorkspace, events, log });
	if (rules.succeeded !== events) {
		warnings.push(`rules: ${rules.succeeded} of ${events} executions succeeded (${rules.failed} failed)`);
	}
	const healthSequential = await sequentialHealth(baseUrl, 200);
	log(`automation: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
	return {
		assignment: routing,
		rules,
		healthSequential,
		ratios: {
			assignedOneAtATimeP50: ratio(routing.oneAtATime.startToAssigned.p50Ms, healthSequential.p50Ms),
			tagToDoneOneAtATimeP50: ratio(rules.oneAtATime.tagToDone.p50Ms, healthSequential.p50Ms),
			assignedP50: ratio(live.startToAssigned.p50Ms, healthSequential.p50Ms),
			assignedP99: ratio(live.startToAssigned.p99Ms, healthSequential.p99Ms),
			decisionsPerSecondToHealthRps: health ? ratio(live.decisionsPerSecond, health.rps) : null,
			drainPerSecondToHealthRps: health ? ratio(drain.decisionsPerSecond, health.rps) : null,
			tagToDoneP50: ratio(rules.tagToDone.p50Ms, healthSequential.p50Ms),
			tagToDoneP99: ratio(rules.tagToDone.p99Ms, healthSequential.p99Ms),
			executionsPerSecondToHealthRps: health ? ratio(rules.executionsPerSecond, health.rps) : null,
		},
	};
}
