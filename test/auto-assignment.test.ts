import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { contacts, conversations } from '../src/db/schema';
import { assignmentSignal, type WaitingConversation } from '../src/domain/assignment/auto-assignment';
import { newId } from '../src/lib/ids';
import type { Actor } from '../src/model/actor';
import { type DomainEvent, newEvent } from '../src/model/events';
import { team } from './assignment-helpers';
import {
	api,
	db,
	expectError,
	reply,
	seedOperator,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
	visitorSend,
} from './factories';

async function assignmentRule(token: string, policy: Record<string, unknown>, extra: Record<string, unknown> = {}) {
	const res = await api(token, 'POST', '/v3/assignment/rules', { name: 'Route', policy, ...extra });
	expect(res.status, await res.clone().text()).toBe(201);
	return ((await res.json()) as { id: string }).id;
}

/** `n` open, unassigned conversations written straight to D1, each with its own contact (or `contactId`'s). */
async function waitingConversations(
	workspaceId: string,
	n: number,
	contactId?: string,
): Promise<WaitingConversation[]> {
	const now = Date.now();
	const list: WaitingConversation[] = [];
	const statements = [];
	for (let i = 0; i < n; i++) {
		const contact = contactId ?? newId('ctc', now);
		const id = newId('conv', now);
		if (!contactId)
			statements.push(
				db.insert(contacts).values({ id: contact, workspaceId, customFields: {}, createdAt: now, updatedAt: now }),
			);
		statements.push(
			db.insert(conversations).values({
				id,
				workspaceId,
				contactId: contact,
				channel: 'widget',
				status: 'open',
				createdAt: now,
				updatedAt: now,
				statusChangedAt: now,
				lastActivityAt: now,
			}),
		);
		list.push({ conversationId: id, contactId: contact, channel: 'widget', groupId: null, since: now + i });
	}
	for (let i = 0; i < statements.length; i += 50) {
		const slice = statements.slice(i, i + 50);
		await db.batch(slice as [(typeof slice)[number], ...typeof slice]);
	}
	return list;
}

/** Open conversations per assignee in the workspace (null: unassigned). */
async function loads(workspaceId: string): Promise<Map<string | null, number>> {
	const { results } = await env.DB.prepare(
		"SELECT assignee_id, count(*) AS n FROM conversations WHERE workspace_id = ? AND status != 'closed' GROUP BY assignee_id",
	)
		.bind(workspaceId)
		.all<{ assignee_id: string | null; n: number }>();
	return new Map(results.map((r) => [r.assignee_id, r.n]));
}

const hub = (workspaceId: string) => env.WORKSPACE_HUB.getByName(workspaceId);

/** Who the conversation is assigned to, as D1 records it. */
async function assigneeOf(conversationId: string): Promise<string | null | undefined> {
	const row = await env.DB.prepare('SELECT assignee_id FROM conversations WHERE id = ?')
		.bind(conversationId)
		.first<{ assignee_id: string | null }>();
	return row?.assignee_id;
}

const queued = async (workspaceId: string) => (await hub(workspaceId).assignmentQueue()).map((q) => q.conversationId);

/** Open all day every day, except on `holidays`: closed now when today is one, open again at UTC midnight. */
const allDay = [{ start: '00:00', end: '24:00' }];
const allWeek = { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay, sun: allDay };

describe('auto-assignment', () => {
	it('spreads 1,000 conversations arriving together evenly over 5 online operators (round robin)', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const ops = await team(workspaceId, ['online', 'online', 'online', 'online', 'online']);
		await assignmentRule(token, { strategy: 'round_robin' });
		const waiting = await waitingConversations(workspaceId, 1000);
		await Promise.all(waiting.map((w) => hub(workspaceId).enqueueForAssignment(workspaceId, [w])));
		const counts = await loads(workspaceId);
		expect(counts.get(null) ?? 0).toBe(0);
		const perOperator = ops.map((id) => counts.get(id) ?? 0);
		expect(perOperator.reduce((a, b) => a + b, 0)).toBe(1000);
		expect(Math.max(...perOperator) - Math.min(...perOperator)).toBeLessThanOrEqual(1);
		// The consumer has taken every assignment's event (it records a batch before reacting to it), so the
		// tests after this one do not wait behind a thousand of them.
		await expect
			.poll(
				async () =>
					(
						await env.DB.prepare(
							"SELECT count(*) AS n FROM events WHERE workspace_id = ? AND type = 'conversation.updated'",
						)
							.bind(workspaceId)
							.first<{ n: number }>()
					)?.n,
				{ timeout: 60_000 },
			)
			.toBe(1000);
	}, 120_000);

	it('gives each conversation to the least loaded operator (load balanced)', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const [a, b, c] = await team(workspaceId, ['online', 'online', 'online']);
		await assignmentRule(token, { strategy: 'load_balanced' });
		// Loads before: a 3, b 0, c 1.
		for (const [op, n] of [
			[a, 3],
			[c, 1],
		] as const) {
			for (const w of await waitingConversations(workspaceId, n)) {
				await db.update(conversations).set({ assigneeId: op }).where(eq(conversations.id, w.conversationId));
			}
		}
		const waiting = await waitingConversations(workspaceId, 5);
		for (const w of waiting) await hub(workspaceId).enqueueForAssignment(workspaceId, [w]);
		const counts = await loads(workspaceId);
		expect([a, b, c].map((id) => counts.get(id as string))).toEqual([3, 3, 3]);
	});

	it('returns a contact to the operator who last served it (last agent), else falls back', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const [other, second] = await team(workspaceId, ['online', 'online']);
		await assignmentRule(token, { strategy: 'last_agent', fallback: 'round_robin' });
		const [earlier] = await waitingConversations(workspaceId, 1);
		if (!earlier) throw new Error('no conversation');
		await db
			.update(conversations)
			.set({ assigneeId: second, status: 'closed' })
			.where(eq(conversations.id, earlier.conversationId));
		const again = await waitingConversations(workspaceId, 3, earlier.contactId);
		for (const w of again) await hub(workspaceId).enqueueForAssignment(workspaceId, [w]);
		const counts = await loads(workspaceId);
		expect(counts.get(second as string)).toBe(3);

		// The last agent gone offline: the next conversation falls back to round robin, to the one online.
		await runInDurableObject(hub(workspaceId), async (_instance, state) => {
			state.storage.sql.exec(
				"UPDATE presence SET status = 'offline', chosen = 'offline' WHERE operator_id = ?",
				second,
			);
		});
		const [later] = await waitingConversations(workspaceId, 1, earlier.contactId);
		await hub(workspaceId).enqueueForAssignment(workspaceId, [later as WaitingConversation]);
		const after = await loads(workspaceId);
		expect(after.get(other as string)).toBe(1);
		expect(after.get(second as string)).toBe(3);
	});

	it('never exceeds a capacity, queues the rest, and assigns one the moment a conversation closes', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const ops = await team(workspaceId, ['online', 'online'], 2);
		await assignmentRule(token, { strategy: 'round_robin' });
		const waiting = await waitingConversations(workspaceId, 6);
		// Queued together, so the queue's order is theirs (the 1,000 above arrive as separate calls).
		await hub(workspaceId).enqueueForAssignment(workspaceId, waiting);
		const counts = await loads(workspaceId);
		expect(ops.map((id) => counts.get(id))).toEqual([2, 2]);
		expect(counts.get(null)).toBe(2);
		const queue = (await (await api(token, 'GET', '/v3/assignment/queue')).json()) as {
			data: Array<{ conversationId: string }>;
		};
		expect(queue.data.map((q) => q.conversationId)).toEqual(waiting.slice(4).map((w) => w.conversationId));

		// An operator closes one: the longest waiting conversation is theirs at once.
		const { results } = await env.DB.prepare('SELECT id FROM conversations WHERE assignee_id = ? LIMIT 1')
			.bind(ops[0])
			.all<{ id: string }>();
		expect((await api(token, 'PATCH', `/v3/conversations/${results[0]?.id}`, { status: 'closed' })).status).toBe(200);
		await expect
			.poll(
				async () =>
					(
						await env.DB.prepare('SELECT assignee_id FROM conversations WHERE id = ?')
							.bind(waiting[4]?.conversationId)
							.first<{ assignee_id: string | null }>()
					)?.assignee_id,
			)
			.toBe(ops[0]);
		expect((await loads(workspaceId)).get(ops[0] as string)).toBe(2);
	});

	it('never gives work to offline or busy operators', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const [online, offline, busy, away] = await team(workspaceId, ['online', 'offline', 'busy', 'away']);
		await assignmentRule(token, { strategy: 'round_robin', onlyOnline: false, respectStatus: true });
		const waiting = await waitingConversations(workspaceId, 8);
		for (const w of waiting) await hub(workspaceId).enqueueForAssignment(workspaceId, [w]);
		const counts = await loads(workspaceId);
		expect(counts.get(offline as string)).toBeUndefined();
		expect(counts.get(busy as string)).toBeUndefined();
		// Away operators may take work when only online ones is off; the online one shares with them.
		expect([counts.get(online as string), counts.get(away as string)]).toEqual([4, 4]);
	});

	it('assigns a waiting conversation when an operator comes online, and takes it back when it goes offline unanswered', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await assignmentRule(token, { strategy: 'round_robin' });
		const ana = await seedOperator(workspaceId, ['conversations:read', 'messages:send']);
		// A visitor writes while nobody is online: the conversation waits in the queue.
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Anyone?');
		await expect
			.poll(
				async () =>
					(
						(await (await api(token, 'GET', '/v3/assignment/queue')).json()) as {
							data: Array<{ conversationId: string }>;
						}
					).data.map((q) => q.conversationId),
				{
					interval: 500,
				},
			)
			.toEqual([conversationId]);
		// Ana comes online (no console open: her grace period starts, 1 s in tests): the conversation is hers.
		expect((await api(ana.token, 'PUT', '/v3/me/status', { status: 'online' })).status).toBe(200);
		const assignee = async () =>
			(
				await env.DB.prepare('SELECT assignee_id FROM conversations WHERE id = ?')
					.bind(conversationId)
					.first<{ assignee_id: string | null }>()
			)?.assignee_id;
		await expect.poll(assignee).toBe(ana.operatorId);
		// She never answers and her console is gone past the grace period: back to the queue.
		await expect.poll(assignee).toBeNull();
		// Released in D1 first, then queued in the hub: polled, as the API's queue would be read.
		await expect
			.poll(async () => (await hub(workspaceId).assignmentQueue()).map((q) => q.conversationId))
			.toEqual([conversationId]);

		// A conversation someone answered stays hers when she goes.
		const answered = await startVisitorConversation(await startVisitor(workspaceId), 'Hello');
		await reply(token, answered, 'Hi, how can I help?');
		await expect
			.poll(
				async () =>
					(
						await env.DB.prepare('SELECT waiting_since FROM conversations WHERE id = ?')
							.bind(answered)
							.first<{ waiting_since: number | null }>()
					)?.waiting_since,
			)
			.toBeNull();
		expect((await api(ana.token, 'PUT', '/v3/me/status', { status: 'online' })).status).toBe(200);
		const answeredBy = async () =>
			(
				await env.DB.prepare('SELECT assignee_id FROM conversations WHERE id = ?')
					.bind(answered)
					.first<{ assignee_id: string | null }>()
			)?.assignee_id;
		await expect.poll(answeredBy).toBe(ana.operatorId);
		await expect
			.poll(async () => (await hub(workspaceId).presenceOf()).find((p) => p.operatorId === ana.operatorId)?.status)
			.toBe('offline');
		// The unanswered one was hers again meanwhile, then handed back a second time.
		const moves = async (to: string | null) =>
			(
				await env.DB.prepare(
					"SELECT count(*) AS n FROM events WHERE type = 'conversation.updated' AND json_extract(payload, '$.conversation.id') = ? AND json_extract(payload, '$.changes.assigneeId.to') IS ?",
				)
					.bind(conversationId, to)
					.first<{ n: number }>()
			)?.n;
		await expect.poll(() => moves(ana.operatorId)).toBe(2);
		await expect.poll(() => moves(null)).toBe(2);
		await expect.poll(assignee).toBeNull();
		expect(await answeredBy()).toBe(ana.operatorId);
	});

	it('keeps conversations waiting outside business hours and assigns them when the hours open', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const [ana] = await team(workspaceId, ['online']);
		const today = new Date().toISOString().slice(0, 10);
		const closed = { timeZone: 'UTC', weekly: allWeek, holidays: [today] };
		expect((await api(token, 'PUT', '/v3/widget/settings', { businessHours: closed })).status).toBe(200);
		await assignmentRule(token, { strategy: 'round_robin', considerBusinessHours: true });
		const [first] = await waitingConversations(workspaceId, 1);
		if (!first) throw new Error('no conversation');
		await hub(workspaceId).enqueueForAssignment(workspaceId, [first]);
		// Ana is online, but today is a holiday: it waits, and the hub wakes itself at midnight, when it opens.
		expect(await assigneeOf(first.conversationId)).toBeNull();
		expect(await queued(workspaceId)).toEqual([first.conversationId]);
		const midnight = Date.parse(`${today}T00:00:00Z`) + 86_400_000;
		const opening = await runInDurableObject(hub(workspaceId), async (_instance, state) =>
			state.storage.sql.exec<{ due_at: number }>("SELECT due_at FROM timers WHERE id = 'assignment-opening'").toArray(),
		);
		expect(opening).toEqual([{ due_at: midnight }]);

		// Midnight comes (the holiday is over; its timer brought forward to now): the alarm assigns it, nobody else.
		await env.DB.prepare(
			"UPDATE widget_settings SET settings = json_set(settings, '$.businessHours.holidays', json('[]')) WHERE workspace_id = ?",
		)
			.bind(workspaceId)
			.run();
		await runInDurableObject(hub(workspaceId), async (_instance, state) => {
			state.storage.sql.exec("UPDATE timers SET due_at = ? WHERE id = 'assignment-opening'", Date.now());
		});
		expect(await runDurableObjectAlarm(hub(workspaceId))).toBe(true);
		expect(await assigneeOf(first.conversationId)).toBe(ana);
		expect(await queued(workspaceId)).toEqual([]);

		// Closed again, then the admin opens the hours by hand: what waited is assigned at once, with no timer.
		expect((await api(token, 'PUT', '/v3/widget/settings', { businessHours: closed })).status).toBe(200);
		const [second] = await waitingConversations(workspaceId, 1);
		await hub(workspaceId).enqueueForAssignment(workspaceId, [second as WaitingConversation]);
		expect(await assigneeOf(second?.conversationId as string)).toBeNull();
		const open = { ...closed, holidays: [] };
		expect((await api(token, 'PUT', '/v3/widget/settings', { businessHours: open })).status).toBe(200);
		expect(await assigneeOf(second?.conversationId as string)).toBe(ana);
	});

	it('queues a conversation its greeter bot transfers to a person, not before, and one the team opens at once', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const [ana] = await team(workspaceId, ['online']);
		await assignmentRule(token, { strategy: 'round_robin' });
		const created = await api(token, 'POST', '/v3/bots', {
			name: 'Greeter',
			trigger: { kind: 'new_conversation' },
			definition: {
				start: 'email',
				steps: [
					{ id: 'email', type: 'data_entry', prompt: 'Your e-mail?', input: 'email', variable: 'email', next: 'bye' },
					{ id: 'bye', type: 'transfer', message: 'Thanks! A person will help you now.' },
				],
			},
		});
		expect(created.status).toBe(201);
		const { id: botId } = (await created.json()) as { id: string };
		expect((await api(token, 'POST', `/v3/bots/${botId}/publish`)).status).toBe(200);

		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hi');
		const runStatus = async () => {
			const res = await api(token, 'GET', `/v3/conversations/${conversationId}/bot-runs`);
			return ((await res.json()) as { data: Array<{ status: string }> }).data[0]?.status;
		};
		// The bot has it: asking, nobody assigned, nothing queued. The consumer reacts to the creation right after
		// recording it, in the same batch: once it is recorded, a second is ample for an assignment to show.
		await expect.poll(runStatus, { interval: 500 }).toBe('waiting');
		await expect
			.poll(async () =>
				env.DB.prepare(
					"SELECT count(*) AS n FROM events WHERE type = 'conversation.created' AND json_extract(payload, '$.conversation.id') = ?",
				)
					.bind(conversationId)
					.first<number>('n'),
			)
			.toBe(1);
		await new Promise((resolve) => setTimeout(resolve, 1000));
		expect(await assigneeOf(conversationId)).toBeNull();
		expect(await queued(workspaceId)).toEqual([]);

		// The visitor answers; the bot transfers: the conversation enters the queue and is Ana's.
		expect((await visitorSend(visitor, conversationId, 'ana@example.com', crypto.randomUUID())).status).toBe(201);
		await expect.poll(() => assigneeOf(conversationId)).toBe(ana);
		expect(await runStatus()).toBe('transferred');

		// A conversation the team opens is not greeted: it waits for a person at once.
		const opened = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'bia@example.com' },
			channel: 'widget',
			message: { text: 'Hi Bia, about your order…' },
		});
		expect(opened.status, await opened.clone().text()).toBe(201);
		const { id: openedId } = (await opened.json()) as { id: string };
		await expect.poll(() => assigneeOf(openedId)).toBe(ana);
	});

	it('reads who takes a conversation in a workspace with a greeter bot from its first message and its bot runs', async () => {
		const { token, workspaceId, operatorId } = await seedWorkspace();
		const created = await api(token, 'POST', '/v3/bots', {
			name: 'Greeter',
			trigger: { kind: 'new_conversation' },
			channels: ['widget'],
			definition: { start: 'bye', steps: [{ id: 'bye', type: 'transfer', message: 'A person will help.' }] },
		});
		const { id: botId } = (await created.json()) as { id: string };
		expect((await api(token, 'POST', `/v3/bots/${botId}/publish`)).status).toBe(200);
		const [waiting] = await waitingConversations(workspaceId, 1);
		const conversationId = waiting?.conversationId as string;
		const summary = { id: conversationId, contactId: waiting?.contactId as string, status: 'open' as const };
		const conversation = { ...summary, channel: 'widget', assigneeId: null, groupId: null };
		const first = (authorKind: 'contact' | 'operator' | 'bot') =>
			newEvent('message.created', workspaceId, { kind: authorKind, id: null } as Actor, {
				message: {
					id: 'msg_1',
					conversationId,
					seq: 1,
					authorKind,
					authorId: null,
					text: 'Hi',
					attachmentCount: 0,
					private: false,
					interactive: null,
					createdAt: new Date().toISOString(),
				},
				channel: 'widget',
			});
		const ended = (status: 'finished' | 'transferred' | 'stopped' | 'failed') =>
			newEvent(
				'bot.run_ended',
				workspaceId,
				{ kind: 'bot', id: botId },
				{
					bot: { id: botId, name: 'Greeter' },
					runId: 'run_1',
					conversationId,
					status,
					reason: null,
				},
			);
		const signal = async (event: DomainEvent) => (await assignmentSignal(db, event))?.kind ?? null;
		const operator = { kind: 'operator', id: operatorId } as const;

		// Greeted on its channel: the creation waits for the first message; elsewhere it waits at once.
		expect(await signal(newEvent('conversation.created', workspaceId, operator, { conversation }))).toBeNull();
		const email = { conversation: { ...conversation, channel: 'email' } };
		expect(await signal(newEvent('conversation.created', workspaceId, operator, email))).toBe('waiting');
		// The customer's first message is the greeter's; a bot's opening does not stop it; an operator's does.
		expect(await signal(first('contact'))).toBeNull();
		expect(await signal(first('bot'))).toBeNull();
		expect(await signal(first('operator'))).toBe('waiting');
		// A bot that hands over or fails leaves the customer to a person; one that finished or was stopped, not.
		expect(await signal(ended('transferred'))).toBe('waiting');
		expect(await signal(ended('failed'))).toBe('waiting');
		expect(await signal(ended('finished'))).toBeNull();
		expect(await signal(ended('stopped'))).toBeNull();
		// Someone took it meanwhile: nothing to queue.
		await db.update(conversations).set({ assigneeId: operatorId }).where(eq(conversations.id, conversationId));
		expect(await signal(first('operator'))).toBeNull();
		expect(await signal(ended('failed'))).toBeNull();
	});

	it("routes a conversation a rule sends to a group to that group's operator (group based)", async () => {
		const { token, workspaceId } = await seedWorkspace();
		const [ana, bia] = await team(workspaceId, ['online', 'online']);
		const group = await api(token, 'POST', '/v3/team/groups', { name: 'Billing', memberIds: [bia] });
		expect(group.status).toBe(201);
		const { id: groupId } = (await group.json()) as { id: string };
		await assignmentRule(
			token,
			{ strategy: 'group_based', groupId },
			{ condition: { fact: 'conversation.groupId', operator: 'eq', value: groupId } },
		);
		const rule = await api(token, 'POST', '/v3/automation-rules', {
			name: 'Billing questions',
			trigger: { kind: 'tag_applied', tag: 'billing' },
			actions: [{ type: 'assign', groupId }],
		});
		expect(rule.status, await rule.clone().text()).toBe(201);

		const [waiting] = await waitingConversations(workspaceId, 1);
		const conversationId = waiting?.conversationId as string;
		// Outside the group, no assignment rule routes it.
		await hub(workspaceId).enqueueForAssignment(workspaceId, [waiting as WaitingConversation]);
		expect(await assigneeOf(conversationId)).toBeNull();

		// Tagged billing: the rule routes it to the group, and the group's rule gives it to Bia, never to Ana.
		expect((await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { tags: ['billing'] })).status).toBe(200);
		await expect.poll(() => assigneeOf(conversationId)).toBe(bia);
		const row = await env.DB.prepare('SELECT group_id FROM conversations WHERE id = ?')
			.bind(conversationId)
			.first<{ group_id: string }>();
		expect(row?.group_id).toBe(groupId);
		expect((await loads(workspaceId)).get(ana as string)).toBeUndefined();
	});
});

describe('assignment rules API', () => {
	/** The workspace's assignment_rule.* events, oldest first: type, actor and payload. */
	async function ruleEvents(workspaceId: string) {
		const { results } = await env.DB.prepare(
			"SELECT type, actor, payload FROM events WHERE workspace_id = ? AND type LIKE 'assignment_rule.%' ORDER BY occurred_at, id",
		)
			.bind(workspaceId)
			.all<{ type: string; actor: string; payload: string }>();
		return results.map((r) => ({ type: r.type, actor: JSON.parse(r.actor), ...JSON.parse(r.payload) }));
	}

	it('creates, lists in the order tried, changes and deletes rules, announcing each change', async () => {
		const { token, workspaceId, operatorId } = await seedWorkspace();
		const low = await assignmentRule(token, { strategy: 'round_robin' });
		const high = await assignmentRule(token, { strategy: 'load_balanced' }, { priority: 5, name: 'First' });
		const listed = (await (await api(token, 'GET', '/v3/assignment/rules')).json()) as {
			data: Array<{ id: string; policy: Record<string, unknown> }>;
		};
		expect(listed.data.map((r) => r.id)).toEqual([high, low]);
		// Options left out are their defaults.
		expect(listed.data[1]?.policy).toEqual({
			strategy: 'round_robin',
			groupId: null,
			onlyOnline: true,
			respectStatus: true,
			considerBusinessHours: false,
		});

		const patched = await api(token, 'PATCH', `/v3/assignment/rules/${low}`, { enabled: false, priority: 9 });
		expect(await patched.json()).toMatchObject({ id: low, enabled: false, priority: 9 });
		// A change that moves nothing is not announced.
		expect((await api(token, 'PATCH', `/v3/assignment/rules/${low}`, { priority: 9 })).status).toBe(200);
		expect((await api(token, 'GET', `/v3/assignment/rules/${low}`)).status).toBe(200);
		expect((await api(token, 'DELETE', `/v3/assignment/rules/${low}`)).status).toBe(204);
		await expectError(await api(token, 'GET', `/v3/assignment/rules/${low}`), 404);

		// Recorded by the events consumer, from the Queue.
		await expect
			.poll(async () => (await ruleEvents(workspaceId)).some((e) => e.type === 'assignment_rule.deleted'))
			.toBe(true);
		const events = await ruleEvents(workspaceId);
		expect(events.map((e) => e.type)).toEqual([
			'assignment_rule.created',
			'assignment_rule.created',
			'assignment_rule.updated',
			'assignment_rule.deleted',
		]);
		expect(events.every((e) => e.actor.kind === 'operator' && e.actor.id === operatorId)).toBe(true);
		expect(events[2]).toMatchObject({
			rule: { id: low, name: 'Route' },
			changed: ['enabled', 'priority'],
			changes: { enabled: { from: true, to: false }, priority: { from: 0, to: 9 } },
		});
	});

	it('points every invalid field out and stores nothing; members and other workspaces cannot reach rules', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const broken = await api(token, 'POST', '/v3/assignment/rules', {
			name: 'Broken',
			condition: { fact: 'contact.email', operator: 'is_set' },
			policy: { strategy: 'group_based' },
		});
		const { message } = await expectError(broken, 422);
		expect(message).toContain('json.policy.groupId: group_based needs a groupId');
		const unknownGroup = await api(token, 'POST', '/v3/assignment/rules', {
			name: 'Nobody',
			condition: { fact: 'contact.email', operator: 'is_set' },
			policy: { strategy: 'group_based', groupId: 'grp_nope' },
		});
		const problems = (await expectError(unknownGroup, 422)).message;
		expect(problems).toContain('json.condition: an assignment rule reads conversation.channel');
		expect(problems).toContain('json.policy.groupId: no group grp_nope in this workspace');
		expect((await (await api(token, 'GET', '/v3/assignment/rules')).json()) as unknown).toEqual({ data: [] });

		const id = await assignmentRule(token, { strategy: 'round_robin' });
		const member = await seedOperator(workspaceId, ['conversations:read']);
		await expectError(await api(member.token, 'GET', '/v3/assignment/rules'), 403);
		await expectError(await api(member.token, 'DELETE', `/v3/assignment/rules/${id}`), 403);
		// The queue is for whoever reads conversations.
		expect((await api(member.token, 'GET', '/v3/assignment/queue')).status).toBe(200);
		const other = await seedWorkspace();
		await expectError(await api(other.token, 'PATCH', `/v3/assignment/rules/${id}`, { priority: 1 }), 404);
		await expectError(await api(other.token, 'DELETE', `/v3/assignment/rules/${id}`), 404);
		expect((await api(token, 'GET', `/v3/assignment/rules/${id}`)).status).toBe(200);
	});
});
