/**
 * Each trigger fills the template variables its table (src/model/rule-variables.ts) says, with the real values
 * of the event's world: a rule sends a message printing every one of them, a real event fires it, and the
 * message is read back. The cases are checked against the table, so a variable it lists is always asserted.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import automationGuide from '../docs/automation.md?raw';
import { sweepWaiting } from '../src/domain/automation/rules/waiting';
import { changesOf, newEvent } from '../src/model/events';
import { RULE_TEMPLATE_VARIABLES, type RuleTriggerKind, ruleVariablesMarkdown } from '../src/model/rule-variables';
import { processEvent } from '../src/queue/events-consumer';
import {
	api,
	db,
	seedOperator,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
	type Visitor,
	visitorSend,
} from './factories';

const MARKER = 'VARS';

/** A template printing each variable the trigger fills, labelled: `[agent.name={{ agent.name }}]`. */
function everyVariable(kind: RuleTriggerKind): string {
	const parts = RULE_TEMPLATE_VARIABLES[kind].map(({ name }) => `[${name}={{ ${name.replace('<key>', 'plan')} }}]`);
	return `${MARKER} ${parts.join(' ')}`;
}

const ANA = { name: 'Ana Souza', email: 'ana@example.com', phone: '+5511999990000' };

interface World {
	token: string;
	workspaceId: string;
	adminId: string;
	marta: string;
	visitor: Visitor;
}

/** A workspace with an operator named Marta Lima and a contact field `plan`; no conversation yet. */
async function world(): Promise<World> {
	const { token, workspaceId, operatorId: adminId } = await seedWorkspace();
	const { operatorId: marta } = await seedOperator(workspaceId, ['conversations:read', 'messages:send']);
	expect((await api(token, 'PATCH', `/v3/team/members/${marta}`, { name: 'Marta Lima' })).status).toBe(200);
	const field = await api(token, 'POST', '/v3/custom-fields', {
		entity: 'contact',
		key: 'plan',
		label: 'Plan',
		type: 'text',
	});
	expect(field.status).toBe(201);
	return { token, workspaceId, adminId, marta, visitor: await startVisitor(workspaceId) };
}

/**
 * Ana writes from the widget; the team then fills in her name, e-mail, phone and plan `pro` (what a visitor
 * types in the widget is a claim, not her e-mail).
 */
async function anaWrites(w: World): Promise<{ conversationId: string; contactId: string }> {
	const conversationId = await startVisitorConversation(w.visitor, 'Hi, I need help');
	const row = await env.DB.prepare('SELECT contact_id FROM conversations WHERE id = ?')
		.bind(conversationId)
		.first<{ contact_id: string }>();
	const contactId = row?.contact_id as string;
	const res = await api(w.token, 'PATCH', `/v3/contacts/${contactId}`, { ...ANA, customFields: { plan: 'pro' } });
	expect(res.status, await res.clone().text()).toBe(200);
	return { conversationId, contactId };
}

async function assign(w: World, conversationId: string, operatorId: string) {
	const res = await api(w.token, 'PATCH', `/v3/conversations/${conversationId}`, { assigneeId: operatorId });
	expect(res.status, await res.clone().text()).toBe(200);
}

async function createRule(w: World, body: Record<string, unknown>): Promise<string> {
	const res = await api(w.token, 'POST', '/v3/automation-rules', { name: 'Rule', ...body });
	expect(res.status, await res.clone().text()).toBe(201);
	return ((await res.json()) as { id: string }).id;
}

/**
 * The rule that prints every variable of its trigger, after `before` (other actions). The world's own earlier
 * events may reach the Queue's consumer after the rule exists: a `condition` keeps the rule to the event meant.
 */
function printing(
	w: World,
	trigger: { kind: RuleTriggerKind } & Record<string, unknown>,
	options: { before?: unknown[]; condition?: Record<string, unknown> } = {},
) {
	return createRule(w, {
		trigger,
		...(options.condition ? { condition: options.condition } : {}),
		actions: [...(options.before ?? []), { type: 'send_message', text: everyVariable(trigger.kind) }],
	});
}

/** Only the event that assigned the conversation to this operator. */
const assignedTo = (operatorId: string) => ({
	condition: { fact: 'vars.change.to', operator: 'eq', value: operatorId },
});

/** What the contact, its conversation and Marta as its assignee print. */
function records(w: World, contactId: string, conversationId: string) {
	return {
		'contact.id': contactId,
		'contact.name': ANA.name,
		'contact.email': ANA.email,
		'contact.phone': ANA.phone,
		'contact.custom_fields.<key>': 'pro',
		'conversation.id': conversationId,
		'conversation.channel': 'widget',
		'agent.id': w.marta,
		'agent.name': 'Marta Lima',
	};
}

/** A conversation's message texts as D1 has them (polled there: the API's rate limit is for people). */
async function textsOf(conversationId: string): Promise<string[]> {
	const { results } = await env.DB.prepare('SELECT body FROM messages WHERE conversation_id = ? ORDER BY seq')
		.bind(conversationId)
		.all<{ body: string }>();
	return results.map((row) => row.body);
}

/** Waits for the rule's message in the conversation and checks it printed exactly these values. */
async function expectPrinted(kind: RuleTriggerKind, conversationId: string, expected: Record<string, string>) {
	// Every variable the table lists for the trigger is asserted, and nothing it does not list.
	expect(Object.keys(expected).sort()).toEqual(RULE_TEMPLATE_VARIABLES[kind].map((v) => v.name).sort());
	const printed = async () => (await textsOf(conversationId)).find((t) => t.startsWith(MARKER));
	await expect.poll(printed).toBeDefined();
	const text = (await printed()) as string;
	for (const [name, value] of Object.entries(expected)) expect(text, name).toContain(`[${name}=${value}]`);
}

describe('the variables each rule trigger fills', () => {
	it('new_contact: the contact, its conversation, and the operator the rule itself assigns', async () => {
		const w = await world();
		await printing(w, { kind: 'new_contact' }, { before: [{ type: 'assign', operatorId: w.marta }] });
		const contact = await api(w.token, 'POST', '/v3/contacts', { ...ANA, customFields: { plan: 'pro' } });
		expect(contact.status, await contact.clone().text()).toBe(201);
		const { id: contactId } = (await contact.json()) as { id: string };
		const started = await api(w.token, 'POST', '/v3/conversations', { contact: { id: contactId }, channel: 'widget' });
		expect(started.status, await started.clone().text()).toBe(201);
		const { id: conversationId } = (await started.json()) as { id: string };
		await expectPrinted('new_contact', conversationId, records(w, contactId, conversationId));
	});

	it('conversation_assigned by an admin: the operator just assigned', async () => {
		const w = await world();
		const { conversationId, contactId } = await anaWrites(w);
		await assign(w, conversationId, w.adminId);
		await printing(w, { kind: 'conversation_assigned' }, assignedTo(w.marta));
		await assign(w, conversationId, w.marta);
		await expectPrinted('conversation_assigned', conversationId, {
			...records(w, contactId, conversationId),
			'change.from': w.adminId,
			'change.to': w.marta,
		});
	});

	it('conversation_assigned by another rule: the operator that rule assigned', async () => {
		const w = await world();
		const { conversationId, contactId } = await anaWrites(w);
		await assign(w, conversationId, w.adminId);
		await createRule(w, {
			trigger: { kind: 'tag_applied', tag: 'route' },
			actions: [{ type: 'assign', operatorId: w.marta }],
		});
		await printing(w, { kind: 'conversation_assigned' }, assignedTo(w.marta));
		expect((await api(w.token, 'PUT', `/v3/conversations/${conversationId}/tags/route`)).status).toBeLessThan(300);
		await expectPrinted('conversation_assigned', conversationId, {
			...records(w, contactId, conversationId),
			'change.from': w.adminId,
			'change.to': w.marta,
		});
	});

	it('conversation_closed: its assignee and the status it left', async () => {
		const w = await world();
		const { conversationId, contactId } = await anaWrites(w);
		await assign(w, conversationId, w.marta);
		await printing(w, { kind: 'conversation_closed' });
		const closed = await api(w.token, 'PATCH', `/v3/conversations/${conversationId}`, { status: 'closed' });
		expect(closed.status).toBe(200);
		await expectPrinted('conversation_closed', conversationId, {
			...records(w, contactId, conversationId),
			'change.from': 'open',
			'change.to': 'closed',
		});
	});

	it('message_outside_hours: the customer’s message', async () => {
		const w = await world();
		const { conversationId, contactId } = await anaWrites(w);
		await assign(w, conversationId, w.marta);
		const closedAlways = {
			businessHours: {
				enabled: true,
				timeZone: 'UTC',
				weekly: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
				holidays: [],
			},
		};
		expect((await api(w.token, 'PUT', '/v3/widget/settings', closedAlways)).status).toBe(200);
		await printing(
			w,
			{ kind: 'message_outside_hours' },
			{ condition: { fact: 'vars.event.payload.message.text', operator: 'eq', value: 'Anyone there?' } },
		);
		expect((await visitorSend(w.visitor, conversationId, 'Anyone there?', crypto.randomUUID())).status).toBe(201);
		await expectPrinted('message_outside_hours', conversationId, {
			...records(w, contactId, conversationId),
			'message.text': 'Anyone there?',
		});
	});

	it('tag_applied: the tag and what it was applied to', async () => {
		const w = await world();
		const { conversationId, contactId } = await anaWrites(w);
		await assign(w, conversationId, w.marta);
		await printing(w, { kind: 'tag_applied', tag: 'vip' });
		expect((await api(w.token, 'PUT', `/v3/conversations/${conversationId}/tags/vip`)).status).toBeLessThan(300);
		await expectPrinted('tag_applied', conversationId, {
			...records(w, contactId, conversationId),
			'tag.name': 'vip',
			'tag.target': 'conversation',
		});
	});

	it('custom_field_updated: the value before and after, in the contact’s open conversation', async () => {
		const w = await world();
		const { conversationId, contactId } = await anaWrites(w);
		await assign(w, conversationId, w.marta);
		await printing(
			w,
			{ kind: 'custom_field_updated', field: 'plan' },
			{ condition: { fact: 'vars.change.to', operator: 'eq', value: 'enterprise' } },
		);
		const patched = await api(w.token, 'PATCH', `/v3/contacts/${contactId}`, { customFields: { plan: 'enterprise' } });
		expect(patched.status).toBe(200);
		await expectPrinted('custom_field_updated', conversationId, {
			...records(w, contactId, conversationId),
			'contact.custom_fields.<key>': 'enterprise',
			'change.from': 'pro',
			'change.to': 'enterprise',
		});
	});

	it('conversation_waiting: how long and since when', async () => {
		const w = await world();
		const { conversationId, contactId } = await anaWrites(w);
		await assign(w, conversationId, w.marta);
		await printing(w, { kind: 'conversation_waiting', minutes: 15 });
		const since = async () =>
			(
				await env.DB.prepare('SELECT waiting_since FROM conversations WHERE id = ?')
					.bind(conversationId)
					.first<{ waiting_since: number | null }>()
			)?.waiting_since ?? null;
		await expect.poll(since).not.toBeNull();
		const waitingSince = (await since()) as number;
		expect(await sweepWaiting(env, db, waitingSince + 15 * 60_000)).toBe(1);
		await expectPrinted('conversation_waiting', conversationId, {
			...records(w, contactId, conversationId),
			'waiting.minutes': '15',
			'waiting.since': new Date(waitingSince).toISOString(),
		});
	});

	it('deal_stage_changed: the deal that moved, its stages, in its contact’s open conversation', async () => {
		const w = await world();
		const { conversationId, contactId } = await anaWrites(w);
		await assign(w, conversationId, w.marta);
		const funnel = (await (
			await api(w.token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Qualified'] })
		).json()) as { id: string; stages: Array<{ id: string }> };
		const qualified = funnel.stages[1]?.id;
		await printing(w, { kind: 'deal_stage_changed', stageId: qualified });
		const created = await api(w.token, 'POST', '/v3/deals', {
			funnel: funnel.id,
			name: 'Big one',
			contactId,
			value: 150_000,
			currency: 'BRL',
		});
		expect(created.status, await created.clone().text()).toBe(201);
		const deal = (await created.json()) as { id: string };
		expect((await api(w.token, 'PATCH', `/v3/deals/${deal.id}`, { stage: qualified })).status).toBe(200);
		await expectPrinted('deal_stage_changed', conversationId, {
			...records(w, contactId, conversationId),
			'deal.id': deal.id,
			'deal.name': 'Big one',
			'deal.status': 'open',
			'deal.stage': 'Qualified',
			'deal.funnel': 'Sales',
			'deal.value': '150000',
			'deal.currency': 'BRL',
			'change.from.name': 'New',
			'change.to.name': 'Qualified',
		});
	});

	it('is the table the automation guide publishes', () => {
		// Regenerate docs/automation.md's copy from ruleVariablesMarkdown() after changing the table.
		expect(automationGuide).toContain(ruleVariablesMarkdown());
	});

	it('covers every trigger of the table', () => {
		// The cases above, by trigger: a new trigger in the table needs its own case here.
		expect(Object.keys(RULE_TEMPLATE_VARIABLES).sort()).toEqual(
			[
				'conversation_assigned',
				'conversation_closed',
				'custom_field_updated',
				'deal_stage_changed',
				'message_outside_hours',
				'new_contact',
				'tag_applied',
				'conversation_waiting',
			].sort(),
		);
	});
});

describe('which record a rule’s templates read', () => {
	it('an assignment’s agent is the operator it assigned, though the conversation moved on since', async () => {
		const w = await world();
		const { conversationId, contactId } = await anaWrites(w);
		await assign(w, conversationId, w.adminId);
		await createRule(w, {
			trigger: { kind: 'conversation_assigned' },
			actions: [{ type: 'send_message', text: '{{ agent.name }} will help you' }],
		});
		// An assignment to Marta, handled after the admin took the conversation over.
		const assigned = newEvent(
			'conversation.updated',
			w.workspaceId,
			{ kind: 'operator', id: w.adminId },
			{
				conversation: {
					id: conversationId,
					contactId,
					channel: 'widget',
					status: 'open',
					assigneeId: w.marta,
					groupId: null,
				},
				...changesOf({ assigneeId: { from: null, to: w.marta } }),
			},
		);
		await processEvent(env, assigned);
		await expect.poll(() => textsOf(conversationId)).toContain('Marta Lima will help you');
	});

	it('a deal rule reads the deal that moved, not the contact’s latest open one', async () => {
		const w = await world();
		const { contactId, conversationId } = await anaWrites(w);
		const funnel = (await (
			await api(w.token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Won'] })
		).json()) as { id: string; stages: Array<{ id: string }> };
		const won = funnel.stages[1]?.id;
		const deal = async (name: string) =>
			(
				(await (await api(w.token, 'POST', '/v3/deals', { funnel: funnel.id, name, contactId })).json()) as {
					id: string;
				}
			).id;
		const big = await deal('Big one');
		await deal('Small one');
		await createRule(w, {
			trigger: { kind: 'deal_stage_changed', stageId: won },
			condition: { fact: 'deal.status', operator: 'eq', value: 'won' },
			actions: [{ type: 'send_message', text: 'Won {{ deal.name }} ({{ deal.status }}, {{ deal.stage }})' }],
		});
		expect((await api(w.token, 'PATCH', `/v3/deals/${big}`, { stage: won, status: 'won' })).status).toBe(200);
		await expect.poll(() => textsOf(conversationId)).toContain('Won Big one (won, Won)');
	});
});
