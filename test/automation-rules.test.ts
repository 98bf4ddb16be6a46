import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ExecutionBusy } from '../src/domain/automation/rules/executions';
import { sweepWaiting } from '../src/domain/automation/rules/waiting';
import { type DomainEvent, newEvent } from '../src/model/events';
import { processEvent } from '../src/queue/events-consumer';
import {
	api,
	closeConversation,
	db,
	expectError,
	liveConversation,
	reply,
	seedOperator,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
	storedTexts,
	visitorSend,
} from './factories';

interface Execution {
	status: string;
	reason: string | null;
	outcomes: Array<{ type: string; ok: boolean; error?: string; data?: Record<string, unknown> }>;
	depth: number;
	event_id: string;
	event_type: string;
}

async function createRule(token: string, body: Record<string, unknown>): Promise<string> {
	const res = await api(token, 'POST', '/v3/automation-rules', { name: 'Rule', ...body });
	expect(res.status, await res.clone().text()).toBe(201);
	return ((await res.json()) as { id: string }).id;
}

/** A rule's executions as D1 has them (polled there: the API's rate limit is for people). */
async function executionsOf(ruleId: string): Promise<Execution[]> {
	const { results } = await env.DB.prepare(
		'SELECT status, reason, outcomes, depth, event_id, event_type FROM rule_executions WHERE rule_id = ? ORDER BY created_at, id',
	)
		.bind(ruleId)
		.all<Omit<Execution, 'outcomes'> & { outcomes: string }>();
	return results.map((row) => ({ ...row, outcomes: JSON.parse(row.outcomes) }));
}

/** Waits until the rule has an execution that `done` holds of, and returns them all. */
async function executionsWhen(ruleId: string, done: (list: Execution[]) => boolean): Promise<Execution[]> {
	await expect.poll(async () => done(await executionsOf(ruleId))).toBe(true);
	return executionsOf(ruleId);
}

const finished = (list: Execution[]) => list.some((e) => e.status !== 'running');

/** Business hours that are closed now and every day (the team is never in). */
const alwaysClosed = {
	businessHours: {
		enabled: true,
		timeZone: 'UTC',
		weekly: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
		holidays: [],
	},
};

describe('/v3/automation-rules', () => {
	it('creates, lists in run order, changes and deletes rules; only admins may', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const low = await createRule(token, {
			name: 'Low',
			priority: -1,
			trigger: { kind: 'conversation_closed' },
			actions: [{ type: 'apply_tag', tag: 'closed' }],
		});
		const high = await createRule(token, {
			name: 'High',
			priority: 5,
			trigger: { kind: 'tag_applied', tag: 'vip' },
			condition: { fact: 'contact.email', operator: 'is_set' },
			actions: [{ type: 'notify', text: 'A VIP: {{ contact.name }}' }],
		});
		const listed = (await (await api(token, 'GET', '/v3/automation-rules')).json()) as {
			data: Array<{ id: string; actions: unknown[] }>;
		};
		expect(listed.data.map((r) => r.id)).toEqual([high, low]);
		expect(listed.data[0]?.actions).toEqual([{ type: 'notify', text: 'A VIP: {{ contact.name }}', operatorIds: [] }]);

		const patched = await api(token, 'PATCH', `/v3/automation-rules/${low}`, { enabled: false, priority: 9 });
		expect(patched.status).toBe(200);
		expect(await patched.json()).toMatchObject({ id: low, enabled: false, priority: 9 });
		await expect
			.poll(async () => {
				const row = await env.DB.prepare("SELECT payload FROM events WHERE workspace_id = ? AND type = 'rule.updated'")
					.bind(workspaceId)
					.first<{ payload: string }>();
				return row ? JSON.parse(row.payload).changed : null;
			})
			.toEqual(['enabled', 'priority']);

		const member = await seedOperator(workspaceId, ['conversations:read']);
		await expectError(await api(member.token, 'GET', '/v3/automation-rules'), 403);
		await expectError(
			await api(member.token, 'POST', '/v3/automation-rules', {
				name: 'x',
				trigger: { kind: 'conversation_closed' },
				actions: [{ type: 'apply_tag', tag: 'x' }],
			}),
			403,
		);

		expect((await api(token, 'DELETE', `/v3/automation-rules/${low}`)).status).toBe(204);
		await expectError(await api(token, 'GET', `/v3/automation-rules/${low}`), 404);
		const other = await seedWorkspace();
		await expectError(await api(other.token, 'GET', `/v3/automation-rules/${high}`), 404);
	});

	it('points every invalid field out, and stores nothing', async () => {
		const { token } = await seedWorkspace();
		const res = await api(token, 'POST', '/v3/automation-rules', {
			name: 'Broken',
			trigger: { kind: 'conversation_closed' },
			condition: { fact: 'answer.text', operator: 'eq', value: 'x' },
			actions: [
				{ type: 'send_message', text: 'Hi {{ contact.name ' },
				{ type: 'assign', operatorId: 'op_x', groupId: 'grp_x' },
			],
		});
		const { message } = await expectError(res, 422);
		expect(message).toContain('json.condition: a rule reads contact, conversation');
		expect(message).toContain('json.actions.0.text: not a valid template');
		expect(message).toContain('json.actions.1: give an operatorId or a groupId');

		const unknown = await api(token, 'POST', '/v3/automation-rules', {
			name: 'Unknown ids',
			trigger: { kind: 'deal_stage_changed' },
			actions: [
				{ type: 'start_bot', botId: 'bot_nope' },
				{ type: 'notify', text: 'x', operatorIds: ['op_nope'] },
			],
		});
		expect((await expectError(unknown, 422)).message).toBe(
			'json.actions.0.botId: no bot bot_nope in this workspace; json.actions.1.operatorIds.0: no operator op_nope in this workspace',
		);

		const shape = await api(token, 'POST', '/v3/automation-rules', {
			name: 'No trigger kind',
			trigger: { kind: 'when_it_rains' },
			actions: [],
		});
		const shapeError = await expectError(shape, 422);
		expect(shapeError.message).toContain('json.trigger.kind: Invalid discriminator value');
		expect(shapeError.message).toContain('json.actions: Too small');
		const list = (await (await api(token, 'GET', '/v3/automation-rules')).json()) as { data: unknown[] };
		expect(list.data).toEqual([]);
	});
});

describe('rule triggers and actions', () => {
	it('answers a customer outside business hours and tags the conversation, and says why not within them', async () => {
		const { token, workspaceId } = await seedWorkspace();
		expect((await api(token, 'PUT', '/v3/widget/settings', alwaysClosed)).status).toBe(200);
		const ruleId = await createRule(token, {
			trigger: { kind: 'message_outside_hours' },
			actions: [
				{ type: 'send_message', text: 'We are closed, {{ contact.name | default: "friend" }}. Back at 9:00.' },
				{ type: 'apply_tag', tag: 'after-hours' },
			],
		});
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Anyone there?');
		const [execution] = await executionsWhen(ruleId, finished);
		expect(execution).toMatchObject({ status: 'succeeded', event_type: 'message.created', depth: 1 });
		await expect.poll(() => storedTexts(token, conversationId)).toContain('We are closed, friend. Back at 9:00.');
		const conversation = (await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json()) as {
			tags: string[];
		};
		expect(conversation.tags).toContain('after-hours');
		// The rule's own message is no customer's: delivered again on purpose, it sends no second reply.
		type Row = { id: string; type: string; workspace_id: string; occurred_at: number; actor: string; payload: string };
		const ownEvent = () =>
			env.DB.prepare(
				"SELECT id, type, workspace_id, occurred_at, actor, payload FROM events WHERE type = 'message.created' AND json_extract(payload, '$.message.conversationId') = ? AND json_extract(payload, '$.message.authorKind') = 'bot'",
			)
				.bind(conversationId)
				.first<Row>();
		await expect.poll(ownEvent).not.toBeNull();
		const own = await ownEvent();
		await processEvent(env, {
			id: own?.id,
			type: own?.type,
			workspaceId: own?.workspace_id,
			occurredAt: new Date(own?.occurred_at ?? 0).toISOString(),
			actor: JSON.parse(own?.actor ?? '{}'),
			payload: JSON.parse(own?.payload ?? '{}'),
		} as DomainEvent);
		// Handled to the end above: a firing would have claimed an execution row before its first action.
		expect(await executionsOf(ruleId)).toHaveLength(1);

		// Within hours (a controlled clock: the message's own time is what counts), the rule says why it did not fire.
		const open = {
			...alwaysClosed.businessHours,
			weekly: { ...alwaysClosed.businessHours.weekly, mon: [{ start: '09:00', end: '18:00' }] },
		};
		expect((await api(token, 'PUT', '/v3/widget/settings', { businessHours: open })).status).toBe(200);
		const mondayNoon = Date.parse('2026-11-23T12:00:00Z');
		const inHours = newEvent(
			'message.created',
			workspaceId,
			{ kind: 'contact', id: null },
			{
				message: {
					id: 'msg_in_hours',
					conversationId,
					seq: 9,
					authorKind: 'contact',
					authorId: null,
					text: 'hello?',
					attachmentCount: 0,
					private: false,
					interactive: null,
					createdAt: new Date(mondayNoon).toISOString(),
				},
				channel: 'widget',
			},
			mondayNoon,
		);
		await processEvent(env, inHours);
		const list = await executionsOf(ruleId);
		expect(list.find((e) => e.event_id === inHours.id)).toMatchObject({
			status: 'skipped',
			reason: 'within business hours',
		});
	});

	it('creates a task for the operator a conversation is assigned to', async () => {
		const { token, operatorId, conversationId } = await liveConversation();
		const ruleId = await createRule(token, {
			trigger: { kind: 'conversation_assigned' },
			condition: { fact: 'vars.change.from', operator: 'is_empty' },
			actions: [
				{ type: 'create_task', title: 'Follow up with {{ contact.name | default: "the visitor" }}', dueInMinutes: 60 },
			],
		});
		expect((await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { assigneeId: operatorId })).status).toBe(
			200,
		);
		const [execution] = await executionsWhen(ruleId, finished);
		expect(execution?.status).toBe('succeeded');
		const task = await env.DB.prepare(
			'SELECT title, assignee_id, conversation_id, due_at, created_at FROM tasks WHERE id = ?',
		)
			.bind(execution?.outcomes[0]?.data?.id)
			.first<{ title: string; assignee_id: string; conversation_id: string; due_at: number; created_at: number }>();
		expect(task).toMatchObject({
			title: 'Follow up with the visitor',
			assignee_id: operatorId,
			conversation_id: conversationId,
		});
		expect((task?.due_at ?? 0) - (task?.created_at ?? 0)).toBe(3_600_000);
	});

	it('saves the transcript to the contact’s open deal when a conversation closes, else to the contact, or a new deal', async () => {
		const { token, conversationId, workspaceId } = await liveConversation();
		const funnel = await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Won'] });
		const { id: funnelId } = (await funnel.json()) as { id: string };
		const ruleId = await createRule(token, {
			trigger: { kind: 'conversation_closed' },
			actions: [
				{ type: 'save_to_crm', newDeal: { funnelId, name: 'Chat with {{ contact.name | default: "a visitor" }}' } },
			],
		});
		await reply(token, conversationId, 'Happy to help!');
		await closeConversation(token, conversationId);
		const [execution] = await executionsWhen(ruleId, finished);
		expect(execution?.outcomes[0]).toMatchObject({ ok: true, data: { subject: { kind: 'deal' }, dealCreated: true } });
		const note = await env.DB.prepare('SELECT text, subject_id, author_kind FROM notes WHERE id = ?')
			.bind(execution?.outcomes[0]?.data?.noteId)
			.first<{ text: string; subject_id: string; author_kind: string }>();
		expect(note?.author_kind).toBe('rule');
		expect(note?.text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} Customer: Hi, I need help\n.* Operator: Happy to help!/);

		// Closed again: the contact's open deal (the one the rule made) gets the next transcript.
		const visitorConversation = await env.DB.prepare('SELECT contact_id FROM conversations WHERE id = ?')
			.bind(conversationId)
			.first<{ contact_id: string }>();
		expect((await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { status: 'open' })).status).toBe(200);
		await closeConversation(token, conversationId);
		const both = await executionsWhen(ruleId, (list) => list.filter((e) => e.status !== 'running').length === 2);
		expect(both[1]?.outcomes[0]?.data).toMatchObject({ subject: { kind: 'deal', id: note?.subject_id } });
		const deals = await env.DB.prepare('SELECT count(*) AS n FROM deals WHERE workspace_id = ? AND contact_id = ?')
			.bind(workspaceId, visitorConversation?.contact_id)
			.first<{ n: number }>();
		expect(deals?.n).toBe(1);

		// Without `newDeal`, a contact with no open deal gets the note itself.
		const patched = await api(token, 'PATCH', `/v3/automation-rules/${ruleId}`, { actions: [{ type: 'save_to_crm' }] });
		expect(patched.status).toBe(200);
		const stranger = await startVisitor(workspaceId);
		const other = await startVisitorConversation(stranger, 'Just browsing');
		await closeConversation(token, other);
		const all = await executionsWhen(ruleId, (list) => list.filter((e) => e.status !== 'running').length === 3);
		const strangerContact = await env.DB.prepare('SELECT contact_id FROM conversations WHERE id = ?')
			.bind(other)
			.first<{ contact_id: string }>();
		expect(all[2]?.outcomes[0]?.data).toMatchObject({ subject: { kind: 'contact', id: strangerContact?.contact_id } });
		const contactNote = await env.DB.prepare('SELECT subject_kind, text FROM notes WHERE id = ?')
			.bind(all[2]?.outcomes[0]?.data?.noteId)
			.first<{ subject_kind: string; text: string }>();
		expect(contactNote).toMatchObject({ subject_kind: 'contact' });
		expect(contactNote?.text).toContain('Customer: Just browsing');
	});

	it('notifies the team when a tag is applied, and updates the contact when a custom field moves', async () => {
		const { token, workspaceId, conversationId } = await liveConversation();
		expect(
			(await api(token, 'POST', '/v3/custom-fields', { entity: 'contact', key: 'plan', label: 'Plan', type: 'text' }))
				.status,
		).toBe(201);
		const notifyRule = await createRule(token, {
			trigger: { kind: 'tag_applied', tag: 'VIP' },
			actions: [{ type: 'notify', text: 'VIP in {{ conversation.id }}' }],
		});
		const upgradeRule = await createRule(token, {
			trigger: { kind: 'custom_field_updated', field: 'plan' },
			condition: {
				all: [
					{ fact: 'vars.change.from', operator: 'eq', value: 'free' },
					{ fact: 'vars.change.to', operator: 'eq', value: 'pro' },
				],
			},
			actions: [{ type: 'apply_tag', tag: 'upgraded', target: 'contact' }],
		});
		expect((await api(token, 'PUT', `/v3/conversations/${conversationId}/tags/vip`)).status).toBeLessThan(300);
		const [notified] = await executionsWhen(notifyRule, finished);
		expect(notified?.status).toBe('succeeded');
		const eventId = notified?.outcomes[0]?.data?.eventId as string;
		await expect
			.poll(
				async () =>
					(await env.DB.prepare('SELECT payload FROM events WHERE id = ?').bind(eventId).first<{ payload: string }>())
						?.payload,
			)
			.toContain(`VIP in ${conversationId}`);

		const contact = await env.DB.prepare('SELECT contact_id FROM conversations WHERE id = ?')
			.bind(conversationId)
			.first<{ contact_id: string }>();
		const contactPath = `/v3/contacts/${contact?.contact_id}`;
		expect((await api(token, 'PATCH', contactPath, { customFields: { plan: 'free' } })).status).toBe(200);
		expect((await api(token, 'PATCH', contactPath, { customFields: { plan: 'pro' } })).status).toBe(200);
		const list = await executionsWhen(upgradeRule, (l) => l.length === 2 && l.every((e) => e.status !== 'running'));
		expect(list.map((e) => e.status).sort()).toEqual(['skipped', 'succeeded']);
		expect(list.find((e) => e.status === 'skipped')?.reason).toBe('the condition does not hold');
		const tags = await env.DB.prepare(
			'SELECT t.name FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.workspace_id = ? AND ct.contact_id = ?',
		)
			.bind(workspaceId, contact?.contact_id)
			.all<{ name: string }>();
		expect(tags.results.map((t) => t.name)).toContain('upgraded');
	});

	it('fires for a new contact, and not for its second conversation within the window', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const ruleId = await createRule(token, {
			trigger: { kind: 'new_contact', windowDays: 30 },
			actions: [{ type: 'apply_tag', tag: 'first-contact' }],
		});
		const visitor = await startVisitor(workspaceId);
		const first = await startVisitorConversation(visitor, 'Hello');
		await executionsWhen(ruleId, finished);
		await closeConversation(token, first);
		await startVisitorConversation(visitor, 'Me again');
		const list = await executionsWhen(ruleId, (l) => l.length === 2 && finished(l));
		expect(list.map((e) => e.status)).toEqual(['succeeded', 'skipped']);
		expect(list[1]?.reason).toBe('the contact had a conversation in the last 30 days');
	});

	it('starts a bot when a deal enters a stage', async () => {
		const { token, conversationId } = await liveConversation();
		const funnel = (await (
			await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Qualified'] })
		).json()) as {
			id: string;
			stages: Array<{ id: string; name: string }>;
		};
		const qualified = funnel.stages[1]?.id;
		const bot = (await (
			await api(token, 'POST', '/v3/bots', {
				name: 'Qualifier',
				trigger: { kind: 'manual' },
				definition: { start: 'hi', steps: [{ id: 'hi', type: 'send_message', text: 'A specialist will call you.' }] },
			})
		).json()) as { id: string };
		expect((await api(token, 'POST', `/v3/bots/${bot.id}/publish`)).status).toBe(200);
		const ruleId = await createRule(token, {
			trigger: { kind: 'deal_stage_changed', stageId: qualified },
			actions: [{ type: 'start_bot', botId: bot.id }],
		});
		const contact = await env.DB.prepare('SELECT contact_id FROM conversations WHERE id = ?')
			.bind(conversationId)
			.first<{ contact_id: string }>();
		const deal = (await (
			await api(token, 'POST', '/v3/deals', { funnel: funnel.id, name: 'Big one', contactId: contact?.contact_id })
		).json()) as { id: string };
		expect((await api(token, 'PATCH', `/v3/deals/${deal.id}`, { stage: qualified })).status).toBe(200);
		const [execution] = await executionsWhen(ruleId, finished);
		expect(execution, JSON.stringify(execution)).toMatchObject({
			status: 'succeeded',
			event_type: 'deal.stage_changed',
		});
		await expect.poll(() => storedTexts(token, conversationId)).toContain('A specialist will call you.');
	});
});

describe('the waiting trigger', () => {
	it('fires once per waiting period, and again only after an operator replied and the customer wrote again', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const ruleId = await createRule(token, {
			trigger: { kind: 'conversation_waiting', minutes: 15 },
			actions: [{ type: 'send_message', text: 'Sorry for the wait, someone will be with you shortly.' }],
		});
		const waitingSince = async () =>
			(
				await env.DB.prepare('SELECT waiting_since FROM conversations WHERE id = ?')
					.bind(conversationId)
					.first<{ waiting_since: number | null }>()
			)?.waiting_since ?? null;
		await expect.poll(waitingSince).not.toBeNull();
		const since = (await waitingSince()) as number;

		// The clock is the sweep's: 14 minutes is not yet, 15 is.
		expect(await sweepWaiting(env, db, since + 14 * 60_000)).toBe(0);
		expect(await sweepWaiting(env, db, since + 15 * 60_000)).toBe(1);
		await executionsWhen(ruleId, finished);
		await expect
			.poll(() => storedTexts(token, conversationId))
			.toContain('Sorry for the wait, someone will be with you shortly.');
		// Recorded: later sweeps of the same period send nothing (the bot's message does not end the wait).
		await expect.poll(() => sweepWaiting(env, db, since + 60 * 60_000)).toBe(0);
		expect(await waitingSince()).toBe(since);

		// An operator replies: no longer waiting. The customer writes again: a new period, a new firing.
		await reply(token, conversationId, 'Here now!');
		await expect.poll(waitingSince).toBeNull();
		expect(await sweepWaiting(env, db, since + 120 * 60_000)).toBe(0);
		expect((await visitorSend(visitor, conversationId, 'One more thing', crypto.randomUUID())).status).toBe(201);
		await expect.poll(waitingSince).not.toBeNull();
		const again = (await waitingSince()) as number;
		expect(await sweepWaiting(env, db, again + 15 * 60_000)).toBe(1);
		const list = await executionsWhen(ruleId, (l) => l.length === 2 && l.every((e) => e.status !== 'running'));
		expect(list.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
	});
});

describe('rule executions', () => {
	it('runs an event once per rule, however often it is delivered', async () => {
		const { token, workspaceId, conversationId } = await liveConversation();
		const ruleId = await createRule(token, {
			trigger: { kind: 'tag_applied' },
			actions: [
				{ type: 'send_message', text: 'Tagged {{ vars.event.payload.tag.name }}' },
				{
					type: 'create_task',
					title: 'Look at it',
					assigneeId: (await seedOperator(workspaceId, ['admin'])).operatorId,
				},
			],
		});
		const event: DomainEvent = newEvent(
			'tag.applied',
			workspaceId,
			{ kind: 'operator', id: null },
			{ tag: { id: 'tag_x', name: 'urgent' }, target: { kind: 'conversation', id: conversationId } },
		);
		await processEvent(env, event);
		await processEvent(env, event);
		const list = await executionsOf(ruleId);
		expect(list).toHaveLength(1);
		expect(list[0]?.status).toBe('succeeded');
		await expect
			.poll(async () => (await storedTexts(token, conversationId)).filter((t) => t === 'Tagged urgent'))
			.toHaveLength(1);
		const tasks = await env.DB.prepare('SELECT count(*) AS n FROM tasks WHERE workspace_id = ?')
			.bind(workspaceId)
			.first<{ n: number }>();
		expect(tasks?.n).toBe(1);
	});

	it('leaves a fresh claim to its delivery, and takes over a dead one where it stopped', async () => {
		const { token, workspaceId, conversationId } = await liveConversation();
		const ruleId = await createRule(token, {
			trigger: { kind: 'tag_applied', tag: 'resume' },
			actions: [
				{ type: 'apply_tag', tag: 'first' },
				{ type: 'apply_tag', tag: 'second' },
			],
		});
		const event = newEvent(
			'tag.applied',
			workspaceId,
			{ kind: 'operator', id: null },
			{ tag: { id: 'tag_r', name: 'resume' }, target: { kind: 'conversation', id: conversationId } },
		);
		// Another delivery claimed it and did the first action.
		const now = Date.now();
		await env.DB.prepare(
			"INSERT INTO rule_executions (id, workspace_id, rule_id, event_id, event_type, conversation_id, contact_id, status, reason, outcomes, depth, created_at, updated_at) VALUES ('rex_claimed', ?, ?, ?, 'tag.applied', ?, NULL, 'running', NULL, ?, 1, ?, ?)",
		)
			.bind(workspaceId, ruleId, event.id, conversationId, JSON.stringify([{ type: 'apply_tag', ok: true }]), now, now)
			.run();
		await expect(processEvent(env, event)).rejects.toBeInstanceOf(ExecutionBusy);
		// Its worker died two minutes ago: this delivery takes over at the second action.
		await env.DB.prepare('UPDATE rule_executions SET updated_at = ? WHERE id = ?')
			.bind(now - 120_000, 'rex_claimed')
			.run();
		await processEvent(env, event);
		const [execution] = await executionsOf(ruleId);
		expect(execution?.status).toBe('succeeded');
		expect(execution?.outcomes.map((o) => o.type)).toEqual(['apply_tag', 'apply_tag']);
		const { results } = await env.DB.prepare(
			'SELECT t.name FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.conversation_id = ?',
		)
			.bind(conversationId)
			.all<{ name: string }>();
		expect(results.map((r) => r.name)).toContain('second');
		expect(results.map((r) => r.name)).not.toContain('first');
	});

	it('logs a failing action and still runs the others', async () => {
		const { token, conversationId } = await liveConversation();
		const bot = (await (
			await api(token, 'POST', '/v3/bots', {
				name: 'Never published',
				trigger: { kind: 'manual' },
				definition: { start: 'hi', steps: [{ id: 'hi', type: 'send_message', text: 'hi' }] },
			})
		).json()) as { id: string };
		const ruleId = await createRule(token, {
			trigger: { kind: 'tag_applied', tag: 'escalate' },
			actions: [
				{ type: 'start_bot', botId: bot.id },
				{ type: 'apply_tag', tag: 'escalated' },
			],
		});
		expect((await api(token, 'PUT', `/v3/conversations/${conversationId}/tags/escalate`)).status).toBeLessThan(300);
		const [execution] = await executionsWhen(ruleId, finished);
		expect(execution?.status).toBe('failed');
		expect(execution?.outcomes[0]).toMatchObject({ type: 'start_bot', ok: false });
		expect(execution?.outcomes[0]?.error).toMatch(/publish/i);
		expect(execution?.outcomes[1]).toMatchObject({ type: 'apply_tag', ok: true });
		const res = await api(token, 'GET', `/v3/automation-rules/executions?ruleId=${ruleId}&status=failed`);
		const page = (await res.json()) as { data: Array<{ actions: Array<{ ok: boolean }> }> };
		expect(page.data).toHaveLength(1);
		expect(page.data[0]?.actions.map((a) => a.ok)).toEqual([false, true]);
	});

	it('never fires on its own change, and stops two rules that feed each other', async () => {
		const { token, conversationId } = await liveConversation();
		const ping = await createRule(token, {
			name: 'Ping',
			trigger: { kind: 'tag_applied', tag: 'ping' },
			actions: [
				{ type: 'apply_tag', tag: 'ping', remove: true },
				{ type: 'apply_tag', tag: 'pong' },
			],
		});
		const pong = await createRule(token, {
			name: 'Pong',
			trigger: { kind: 'tag_applied', tag: 'pong' },
			actions: [
				{ type: 'apply_tag', tag: 'pong', remove: true },
				{ type: 'apply_tag', tag: 'ping' },
			],
		});
		expect((await api(token, 'PUT', `/v3/conversations/${conversationId}/tags/ping`)).status).toBeLessThan(300);
		// Ping (depth 1) → Pong (2) → Ping (3) → Pong stops: a chain of 3 rules.
		// Settled: an execution's last status is written after the change it made has already set off the next.
		const settled = (l: Execution[]) => l.some((e) => e.status === 'skipped') && l.every((e) => e.status !== 'running');
		const pongs = await executionsWhen(pong, settled);
		expect(pongs.map((e) => [e.status, e.depth])).toEqual([
			['succeeded', 2],
			['skipped', 4],
		]);
		expect(pongs[1]?.reason).toBe('a chain of 3 rules stops here');
		const pings = await executionsWhen(ping, (l) => l.length === 2 && l.every((e) => e.status !== 'running'));
		expect(pings.map((e) => [e.status, e.depth])).toEqual([
			['succeeded', 1],
			['succeeded', 3],
		]);

		// A rule that applies the very tag it fires on does not fire on its own change.
		const again = await createRule(token, {
			name: 'Self',
			trigger: { kind: 'tag_applied', tag: 'self' },
			actions: [
				{ type: 'apply_tag', tag: 'self', remove: true },
				{ type: 'apply_tag', tag: 'self' },
			],
		});
		expect((await api(token, 'PUT', `/v3/conversations/${conversationId}/tags/self`)).status).toBeLessThan(300);
		const selfs = await executionsWhen(again, settled);
		expect(selfs.map((e) => e.status)).toEqual(['succeeded', 'skipped']);
		expect(selfs[1]?.reason).toBe('its own change');
	});
});
