import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { PROMPT_WITHIN_MS } from '../durable-objects/hub-prompt';
import { contacts, conversations } from '../src/db/schema';
import { deliverEvents } from '../src/events/deliver';
import { newId } from '../src/lib/ids';
import { type DomainEvent, newEvent } from '../src/model/events';
import { processEvent } from '../src/queue/events-consumer';
import { team } from './assignment-helpers';
import {
	api,
	db,
	liveConversation,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
	storedTexts,
} from './factories';

/**
 * The prompt path (durable-objects/hub-prompt.ts): an event a person waits on reaches its workspace's hub as
 * soon as the Queue has it. Its events here go to a recording Queue that no consumer reads, so whatever
 * happens to them happens by the prompt path alone; the Queue's own delivery, later, is `processEvent` (what
 * the consumer calls), and must change nothing.
 */
function recordingQueue() {
	const sent: DomainEvent[] = [];
	const queue = {
		async sendBatch(messages: Iterable<MessageSendRequest<DomainEvent>>) {
			for (const message of messages) sent.push(message.body);
		},
		async send(body: DomainEvent) {
			sent.push(body);
		},
	};
	return { sent, env: { ...env, EVENTS: queue as unknown as Queue } as Env };
}

/** An open conversation written straight to D1 (its own contact), as a start commits it. */
async function openConversation(workspaceId: string, extra: Partial<typeof conversations.$inferInsert> = {}) {
	const now = Date.now();
	const contactId = newId('ctc', now);
	const id = newId('conv', now);
	await db.insert(contacts).values({ id: contactId, workspaceId, customFields: {}, createdAt: now, updatedAt: now });
	await db.insert(conversations).values({
		id,
		workspaceId,
		contactId,
		channel: 'widget',
		status: 'open',
		createdAt: now,
		updatedAt: now,
		statusChangedAt: now,
		lastActivityAt: now,
		...extra,
	});
	return { id, contactId };
}

const summary = (id: string, contactId: string) => ({
	id,
	contactId,
	channel: 'widget',
	status: 'open' as const,
	assigneeId: null,
	groupId: null,
});

async function assigneeOf(conversationId: string) {
	const row = await env.DB.prepare('SELECT assignee_id, updated_at FROM conversations WHERE id = ?')
		.bind(conversationId)
		.first<{ assignee_id: string | null; updated_at: number }>();
	return row;
}

/** The conversation's assignments (a `conversation.updated` to an operator) the events log holds. */
async function assignmentsOf(conversationId: string): Promise<number> {
	const row = await env.DB.prepare(
		"SELECT count(*) AS n FROM events WHERE type = 'conversation.updated' AND json_extract(payload, '$.conversation.id') = ? AND json_extract(payload, '$.changes.assigneeId.to') IS NOT NULL",
	)
		.bind(conversationId)
		.first<{ n: number }>();
	return row?.n ?? 0;
}

async function assignmentRule(token: string) {
	const res = await api(token, 'POST', '/v3/assignment/rules', { name: 'Turns', policy: { strategy: 'round_robin' } });
	expect(res.status, await res.clone().text()).toBe(201);
}

describe('the prompt path', () => {
	it('assigns a started conversation without the events Queue, and its later delivery changes nothing', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await assignmentRule(token);
		const [ana] = await team(workspaceId, ['online']);
		const { id, contactId } = await openConversation(workspaceId);
		const started = newEvent(
			'conversation.created',
			workspaceId,
			{ kind: 'contact', id: contactId },
			{ conversation: summary(id, contactId) },
		);
		const queue = recordingQueue();
		const began = Date.now();
		await deliverEvents(queue.env, [started]);
		// The Queue holds the event (the record), and no consumer has it: the assignment is the prompt path's.
		expect(queue.sent.map((e) => e.id)).toEqual([started.id]);
		await expect.poll(async () => (await assigneeOf(id))?.assignee_id, { interval: 10 }).toBe(ana);
		// The proof is the Queue nobody reads; the bound only says it was not a slow path either (loose enough
		// for two loaded cores: the bench times it).
		expect(Date.now() - began).toBeLessThan(2_000);
		const before = await assigneeOf(id);
		await expect.poll(() => assignmentsOf(id)).toBe(1);

		// The Queue delivers the same event: the hub has heard it, and nothing moves.
		await processEvent(env, started);
		// And a hub that forgot it (a restart) queues it again, but its round finds it assigned in D1.
		await env.WORKSPACE_HUB.getByName(workspaceId).enqueueForAssignment(workspaceId, [
			{ conversationId: id, contactId, channel: 'widget', groupId: null, since: Date.parse(started.occurredAt) },
		]);
		expect(await env.WORKSPACE_HUB.getByName(workspaceId).assignmentQueue()).toEqual([]);
		expect(await assigneeOf(id)).toEqual(before);
		// The consumer has had time to record anything a second assignment would have announced.
		await processEvent(env, started);
		expect(await assignmentsOf(id)).toBe(1);
	});

	it('leaves an event that reaches the hub late to the Queue', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await assignmentRule(token);
		const [ana] = await team(workspaceId, ['online']);
		const queue = recordingQueue();
		// A flush retried after a failure, or the sweep: older than PROMPT_WITHIN_MS, the Queue's alone.
		const late = await openConversation(workspaceId);
		const old = newEvent(
			'conversation.created',
			workspaceId,
			{ kind: 'contact', id: late.contactId },
			{ conversation: summary(late.id, late.contactId) },
			Date.now() - PROMPT_WITHIN_MS - 1_000,
		);
		await deliverEvents(queue.env, [old]);
		// A fresh one behind it is assigned: the hub has had the late one by then (and dropped it unread).
		const fresh = await openConversation(workspaceId);
		await deliverEvents(queue.env, [
			newEvent(
				'conversation.created',
				workspaceId,
				{ kind: 'contact', id: fresh.contactId },
				{ conversation: summary(fresh.id, fresh.contactId) },
			),
		]);
		await expect.poll(async () => (await assigneeOf(fresh.id))?.assignee_id, { interval: 10 }).toBe(ana);
		expect(queue.sent).toHaveLength(2);
		expect((await assigneeOf(late.id))?.assignee_id).toBeNull();
		// The Queue's delivery of the late one assigns it.
		await processEvent(env, old);
		expect((await assigneeOf(late.id))?.assignee_id).toBe(ana);
	});

	it('hears of a new assignment rule at once, where it had known the workspace not to assign', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const [ana] = await team(workspaceId, ['online']);
		const queue = recordingQueue();
		const created = (c: { id: string; contactId: string }) =>
			newEvent(
				'conversation.created',
				workspaceId,
				{ kind: 'contact', id: c.contactId },
				{
					conversation: summary(c.id, c.contactId),
				},
			);
		const before = await openConversation(workspaceId);
		const hub = env.WORKSPACE_HUB.getByName(workspaceId);
		const known = () =>
			runInDurableObject(
				hub,
				(instance) => (instance as unknown as { assignment: { assigning: boolean | null } }).assignment.assigning,
			);
		const startedBefore = created(before);
		await deliverEvents(queue.env, [startedBefore]);
		// No rule: the hub has learnt that it does not assign, and asks D1 no more.
		await expect.poll(known).toBe(false);
		await assignmentRule(token);
		const after = await openConversation(workspaceId);
		await deliverEvents(queue.env, [created(after)]);
		await expect.poll(async () => (await assigneeOf(after.id))?.assignee_id, { interval: 10 }).toBe(ana);
		expect(await known()).toBe(true);
		// The one started before the rule was not the hub's to queue; the Queue's delivery (by now under the
		// rule) assigns it, as it always did.
		expect((await assigneeOf(before.id))?.assignee_id).toBeNull();
		await processEvent(env, startedBefore);
		expect((await assigneeOf(before.id))?.assignee_id).toBe(ana);
	});

	it("hands an offline operator's waiting conversation to another at once, once", async () => {
		const { token, workspaceId } = await seedWorkspace();
		await assignmentRule(token);
		const [ana, ben] = await team(workspaceId, ['online', 'online']);
		const now = Date.now();
		// Ana's, the customer's last word unanswered.
		const { id } = await openConversation(workspaceId, { assigneeId: ana, waitingSince: now });
		const hub = env.WORKSPACE_HUB.getByName(workspaceId);
		// Removed from the team: offline at once, as a grace period ending is (the same hand-back).
		await hub.removeOperator(workspaceId, ana as string, { kind: 'operator', id: null });
		// The hub hands it back and assigns it itself, no event Queue in between: done when the call's work is.
		await expect.poll(async () => (await assigneeOf(id))?.assignee_id, { interval: 10 }).toBe(ben);
		expect(Date.now() - now).toBeLessThan(2_000);
		// Everything the Queue then delivers (the hand-back, the assignment) changes nothing.
		await expect.poll(() => assignmentsOf(id)).toBe(1);
		await hub.assignmentChanged(workspaceId);
		expect((await assigneeOf(id))?.assignee_id).toBe(ben);
		expect(await assignmentsOf(id)).toBe(1);
	});

	it("runs a rule's answer and tag without the events Queue, once when both paths deliver", async () => {
		const { token, workspaceId, conversationId } = await liveConversation();
		const res = await api(token, 'POST', '/v3/automation-rules', {
			name: 'Urgent first',
			trigger: { kind: 'tag_applied', tag: 'urgent' },
			actions: [
				{ type: 'send_message', text: 'This one goes first.' },
				{ type: 'apply_tag', tag: 'triaged' },
			],
		});
		expect(res.status, await res.clone().text()).toBe(201);
		const ruleId = ((await res.json()) as { id: string }).id;
		const tagged = () =>
			newEvent(
				'tag.applied',
				workspaceId,
				{ kind: 'operator', id: null },
				{ tag: { id: 'tag_x', name: 'urgent' }, target: { kind: 'conversation', id: conversationId } },
			);
		const executions = async () =>
			(
				await env.DB.prepare('SELECT status FROM rule_executions WHERE rule_id = ? ORDER BY created_at')
					.bind(ruleId)
					.all<{ status: string }>()
			).results.map((r) => r.status);
		/** The conversation's `triaged` taggings the events log holds: a second application would be a second. */
		const tags = async () =>
			(
				await env.DB.prepare(
					"SELECT count(*) AS n FROM events WHERE type = 'tag.applied' AND json_extract(payload, '$.tag.name') = 'triaged' AND json_extract(payload, '$.target.id') = ?",
				)
					.bind(conversationId)
					.first<{ n: number }>()
			)?.n;
		const answers = async () => (await storedTexts(token, conversationId)).filter((t) => t === 'This one goes first.');

		// The prompt path alone (the Queue records and nobody consumes).
		const first = tagged();
		const queue = recordingQueue();
		const began = Date.now();
		await deliverEvents(queue.env, [first]);
		await expect.poll(executions, { interval: 10 }).toEqual(['succeeded']);
		expect(Date.now() - began).toBeLessThan(2_000);
		await expect.poll(answers).toHaveLength(1);
		await expect.poll(tags).toBe(1);
		// The Queue's delivery comes after: the execution is found done.
		await processEvent(env, first);
		expect(await executions()).toEqual(['succeeded']);

		// Both at once, a second tagging: one execution, whichever claims it; the other finds it claimed (the
		// Queue's retries until it is done) or done.
		const second = tagged();
		const both = recordingQueue();
		await Promise.all([deliverEvents(both.env, [second]), processEvent(env, second).catch(() => undefined)]);
		await expect.poll(executions).toEqual(['succeeded', 'succeeded']);
		await expect
			.poll(() =>
				processEvent(env, second).then(
					() => true,
					() => false,
				),
			)
			.toBe(true);
		expect(await executions()).toEqual(['succeeded', 'succeeded']);
		await expect.poll(answers).toHaveLength(2);
		// Applied once by the first execution; the second finds it applied and announces nothing.
		expect(await tags()).toBe(1);
	});

	it('hears at once that a rule it keeps was disabled, and that another was created', async () => {
		const { token, workspaceId, conversationId } = await liveConversation();
		const rule = async (name: string, priority: number) => {
			const res = await api(token, 'POST', '/v3/automation-rules', {
				name,
				priority,
				trigger: { kind: 'tag_applied', tag: 'vip' },
				actions: [{ type: 'apply_tag', tag: name.toLowerCase() }],
			});
			expect(res.status, await res.clone().text()).toBe(201);
			return ((await res.json()) as { id: string }).id;
		};
		const executions = async (ruleId: string) =>
			(
				await env.DB.prepare('SELECT count(*) AS n FROM rule_executions WHERE rule_id = ?')
					.bind(ruleId)
					.first<{ n: number }>()
			)?.n;
		const vip = () =>
			deliverEvents(recordingQueue().env, [
				newEvent(
					'tag.applied',
					workspaceId,
					{ kind: 'operator', id: null },
					{ tag: { id: 'tag_v', name: 'vip' }, target: { kind: 'conversation', id: conversationId } },
				),
			]);
		// The first runs before the second (priority): once the second has run for an event, so had the first.
		const first = await rule('First', 10);
		const second = await rule('Second', 0);
		await vip();
		await expect.poll(() => executions(second)).toBe(1);
		expect(await executions(first)).toBe(1);

		// Disabled: the hub, which keeps the rules it read, stops running it with the very next event.
		const off = await api(token, 'PATCH', `/v3/automation-rules/${first}`, { enabled: false });
		expect(off.status, await off.clone().text()).toBe(200);
		await vip();
		await expect.poll(() => executions(second)).toBe(2);
		expect(await executions(first)).toBe(1);

		// Created: the next event runs it too.
		const third = await rule('Third', 5);
		await vip();
		await expect.poll(() => executions(second)).toBe(3);
		expect(await executions(third)).toBe(1);
		expect(await executions(first)).toBe(1);
	});

	it("leaves a start's rules to the Queue, so that a rule's answer never comes before the customer's message", async () => {
		const { token, workspaceId } = await seedWorkspace();
		const res = await api(token, 'POST', '/v3/automation-rules', {
			name: 'Welcome',
			trigger: { kind: 'new_contact' },
			actions: [{ type: 'send_message', text: 'Welcome!' }],
		});
		expect(res.status, await res.clone().text()).toBe(201);
		const conversationId = await startVisitorConversation(await startVisitor(workspaceId), 'Hello?');
		// Polled in D1 (the room's copy), read once through the API: polling the API spent the token's rate limit
		// on a loaded machine, and its 429 had no messages to read.
		const copied = async () =>
			(
				await env.DB.prepare('SELECT body FROM messages WHERE conversation_id = ? ORDER BY seq')
					.bind(conversationId)
					.all<{ body: string }>()
			).results.length;
		await expect.poll(copied).toBe(2);
		expect(await storedTexts(token, conversationId)).toEqual(['Hello?', 'Welcome!']);
	});
});
