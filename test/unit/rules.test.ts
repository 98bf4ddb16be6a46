import { describe, expect, it } from 'vitest';
import { firing, MAX_CHAIN_DEPTH, type RuleSnapshot, ruleTriggerSchema } from '../../src/engines/rules';
import type { Actor } from '../../src/model/actor';
import { type DomainEvent, newEvent } from '../../src/model/events';

const person: Actor = { kind: 'operator', id: 'op_1' };
const conversation = {
	id: 'conv_1',
	contactId: 'ctc_1',
	channel: 'widget',
	status: 'open' as const,
	assigneeId: null,
	groupId: null,
};
const rule = (trigger: unknown, condition: RuleSnapshot['condition'] = null): RuleSnapshot => ({
	id: 'rule_1',
	trigger: ruleTriggerSchema.parse(trigger),
	condition,
});
const updated = (changes: Record<string, { from: unknown; to: unknown }>, actor: Actor = person): DomainEvent =>
	newEvent(
		'conversation.updated',
		'ws_1',
		actor,
		{ conversation, changed: Object.keys(changes) as never, changes } as never,
		Date.parse('2026-11-23T12:00:00Z'),
	);

describe('which events fire which rules', () => {
	it('meets each trigger only with its own event, and says why not otherwise', () => {
		const assigned = updated({ assigneeId: { from: null, to: 'op_2' } });
		const closed = updated({ status: { from: 'open', to: 'closed' } });
		expect(firing(rule({ kind: 'conversation_assigned' }), assigned, {})).toEqual({
			fires: true,
			change: { from: null, to: 'op_2' },
		});
		expect(firing(rule({ kind: 'conversation_assigned' }), closed, {})).toEqual({
			fires: false,
			why: 'no assignment',
			noted: false,
		});
		expect(firing(rule({ kind: 'conversation_closed' }), closed, {}).fires).toBe(true);
		const unassigned = updated({ assigneeId: { from: 'op_2', to: null } });
		expect(firing(rule({ kind: 'conversation_assigned' }), unassigned, {}).fires).toBe(false);

		const message = (authorKind: string) =>
			newEvent('message.created', 'ws_1', person, {
				message: {
					id: 'msg_1',
					conversationId: 'conv_1',
					seq: 1,
					authorKind,
					authorId: null,
					text: 'hi',
					attachmentCount: 0,
					interactive: null,
					createdAt: '2026-11-23T22:00:00.000Z',
				},
			} as never);
		const outside = rule({ kind: 'message_outside_hours' });
		expect(firing(outside, message('contact'), { withinBusinessHours: false }).fires).toBe(true);
		expect(firing(outside, message('contact'), { withinBusinessHours: true })).toMatchObject({
			why: 'within business hours',
		});
		expect(firing(outside, message('operator'), { withinBusinessHours: false }).fires).toBe(false);

		const tagged = newEvent('tag.applied', 'ws_1', person, {
			tag: { id: 't', name: 'VIP' },
			target: { kind: 'contact', id: 'ctc_1' },
		});
		expect(firing(rule({ kind: 'tag_applied', tag: 'vip' }), tagged, {}).fires).toBe(true);
		expect(firing(rule({ kind: 'tag_applied', tag: 'lead' }), tagged, {}).fires).toBe(false);
		expect(firing(rule({ kind: 'tag_applied' }), tagged, {}).fires).toBe(true);

		const plan = newEvent('contact.updated', 'ws_1', person, {
			contact: { id: 'ctc_1', name: 'Ana', email: null, phone: null, verified: false },
			changed: ['customFields.plan'],
			changes: { 'customFields.plan': { from: 'free', to: 'pro' } },
		});
		const upgraded = rule(
			{ kind: 'custom_field_updated', field: 'plan' },
			{ fact: 'vars.change.to', operator: 'eq', value: 'pro' },
		);
		expect(firing(upgraded, plan, {})).toEqual({ fires: true, change: { from: 'free', to: 'pro' } });
		const downgraded = rule(
			{ kind: 'custom_field_updated', field: 'plan' },
			{ fact: 'vars.change.to', operator: 'eq', value: 'free' },
		);
		expect(firing(downgraded, plan, {})).toEqual({ fires: false, why: 'the condition does not hold', noted: true });
		expect(firing(rule({ kind: 'custom_field_updated', field: 'size' }), plan, {}).fires).toBe(false);
	});

	it('fires for a new contact only without a conversation in the window', () => {
		const at = Date.parse('2026-11-23T12:00:00Z');
		const started = newEvent('conversation.created', 'ws_1', person, { conversation }, at);
		const r = rule({ kind: 'new_contact', windowDays: 7 });
		expect(firing(r, started, { previousConversationAt: null }).fires).toBe(true);
		expect(firing(r, started, { previousConversationAt: at - 8 * 86_400_000 }).fires).toBe(true);
		expect(firing(r, started, { previousConversationAt: at - 6 * 86_400_000 })).toEqual({
			fires: false,
			why: 'the contact had a conversation in the last 7 days',
			noted: true,
		});
		const created = newEvent('contact.created', 'ws_1', person, {
			contact: { id: 'ctc_1', name: null, email: null, phone: null, verified: false },
		});
		expect(firing(r, created, { previousConversationAt: null })).toMatchObject({ fires: false, noted: false });
	});

	it('never fires on its own change, and chains stop at the depth limit', () => {
		const r = rule({ kind: 'conversation_closed' });
		const own = updated({ status: { from: 'open', to: 'closed' } }, { kind: 'rule', id: 'rule_1', depth: 1 });
		expect(firing(r, own, {})).toEqual({ fires: false, why: 'its own change', noted: true });
		const byAnother = updated({ status: { from: 'open', to: 'closed' } }, { kind: 'rule', id: 'rule_2', depth: 1 });
		expect(firing(r, byAnother, {}).fires).toBe(true);
		const deep = updated(
			{ status: { from: 'open', to: 'closed' } },
			{ kind: 'rule', id: 'rule_2', depth: MAX_CHAIN_DEPTH },
		);
		expect(firing(r, deep, {})).toMatchObject({ fires: false, why: `a chain of ${MAX_CHAIN_DEPTH} rules stops here` });
		// Its own tag change is no close: not worth a line in the execution log.
		const tagged = updated({ tags: { from: [], to: ['x'] } }, { kind: 'rule', id: 'rule_1', depth: 1 });
		expect(firing(r, tagged, {})).toMatchObject({ fires: false, noted: false });
	});

	it('fires a waiting rule on its own threshold while the customer still waits', () => {
		const since = '2026-11-23T12:00:00.000Z';
		const waiting = (minutes: number) =>
			newEvent(
				'conversation.waiting',
				'ws_1',
				{ kind: 'system', id: null },
				{ conversation, waitingSince: since, minutes },
			);
		const r = rule({ kind: 'conversation_waiting', minutes: 15 });
		expect(firing(r, waiting(15), { stillWaitingSince: since }).fires).toBe(true);
		expect(firing(r, waiting(30), { stillWaitingSince: since })).toMatchObject({ fires: false, noted: false });
		expect(firing(r, waiting(15), { stillWaitingSince: null })).toEqual({
			fires: false,
			why: 'an operator has replied since',
			noted: true,
		});
	});
});
