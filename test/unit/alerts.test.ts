// Who an event alerts (src/engines/alerts.ts), before each member's own choice: table-driven.
import { describe, expect, it } from 'vitest';
import { type AlertConversation, type AlertMember, alertTargets, mayAlert } from '../../src/engines/alerts';
import { type DomainEvent, newEvent } from '../../src/model/events';

const team: AlertMember[] = [
	{ id: 'op_ada', name: 'Ada Lovelace', email: 'ada@acme.test', groupIds: ['grp_billing'] },
	{ id: 'op_bob', name: 'Bob', email: 'bob@acme.test', groupIds: [] },
	{ id: 'op_cy', name: 'Cy', email: 'cy@acme.test', groupIds: ['grp_billing'] },
];
const operator = (id: string) => ({ kind: 'operator' as const, id });
const contact = { kind: 'contact' as const, id: 'ctc_1' };
const conversation = (assigneeId: string | null, groupId: string | null = null) => ({
	id: 'conv_1',
	contactId: 'ctc_1',
	channel: 'widget',
	status: 'open' as const,
	assigneeId,
	groupId,
});
const message = (
	authorKind: 'contact' | 'operator',
	text: string,
	isPrivate = false,
	authorId: string | null = null,
) => ({
	message: {
		id: 'msg_1',
		conversationId: 'conv_1',
		seq: 2,
		authorKind,
		authorId,
		text,
		attachmentCount: 0,
		interactive: null,
		private: isPrivate,
		createdAt: '2026-11-27T10:00:00.000Z',
	},
	channel: 'widget',
});
/** The Leads bot's notify step in conv_1, naming `operatorIds` (none: the whole team). */
const botNotice = (operatorIds: string[], contactId: string | null) =>
	newEvent(
		'bot.notification',
		'ws_1',
		{ kind: 'bot', id: 'bot_1' },
		{
			bot: { id: 'bot_1', name: 'Leads' },
			runId: 'run_1',
			text: 'A lead',
			operatorIds,
			conversationId: 'conv_1',
			contactId,
		},
	);

const cases: Array<[string, DomainEvent, AlertConversation | null, ReturnType<typeof alertTargets>]> = [
	[
		'a visitor’s new conversation alerts everyone who could take it',
		newEvent('conversation.created', 'ws_1', contact, { conversation: conversation(null) }),
		null,
		{ kind: 'new_conversation', conversationId: 'conv_1', operatorIds: ['op_ada', 'op_bob', 'op_cy'], text: '' },
	],
	[
		'in a group: its members only',
		newEvent('conversation.created', 'ws_1', contact, { conversation: conversation(null, 'grp_billing') }),
		null,
		{ kind: 'new_conversation', conversationId: 'conv_1', operatorIds: ['op_ada', 'op_cy'], text: '' },
	],
	[
		'an operator’s new conversation: not the operator',
		newEvent('conversation.created', 'ws_1', operator('op_bob'), { conversation: conversation(null) }),
		null,
		{ kind: 'new_conversation', conversationId: 'conv_1', operatorIds: ['op_ada', 'op_cy'], text: '' },
	],
	[
		'a campaign’s new conversation: nobody (it waits for the contact’s answer, not for the team)',
		newEvent('conversation.created', 'ws_1', { kind: 'campaign', id: 'cmp_1' }, { conversation: conversation(null) }),
		null,
		null,
	],
	[
		'created assigned: its assignee',
		newEvent('conversation.created', 'ws_1', contact, { conversation: conversation('op_cy') }),
		null,
		{ kind: 'assigned', conversationId: 'conv_1', operatorIds: ['op_cy'], text: '' },
	],
	[
		'assigned to oneself: nobody',
		newEvent('conversation.updated', 'ws_1', operator('op_ada'), {
			conversation: conversation('op_ada'),
			changed: ['assigneeId'],
			changes: { assigneeId: { from: null, to: 'op_ada' } },
		}),
		null,
		null,
	],
	[
		'assigned to a member who is not in the team (disabled): nobody',
		newEvent('conversation.updated', 'ws_1', operator('op_ada'), {
			conversation: conversation('op_gone'),
			changed: ['assigneeId'],
			changes: { assigneeId: { from: null, to: 'op_gone' } },
		}),
		null,
		null,
	],
	[
		'the customer writes in an assigned conversation: its assignee',
		newEvent('message.created', 'ws_1', contact, message('contact', 'Hello?')),
		{ assigneeId: 'op_bob', groupId: null },
		{ kind: 'message', conversationId: 'conv_1', operatorIds: ['op_bob'], text: 'Hello?' },
	],
	[
		'the customer writes in an unassigned conversation: nobody',
		newEvent('message.created', 'ws_1', contact, message('contact', 'Hello?')),
		{ assigneeId: null, groupId: null },
		null,
	],
	[
		'an operator’s reply: nobody',
		newEvent('message.created', 'ws_1', operator('op_ada'), message('operator', 'Hi', false, 'op_ada')),
		{ assigneeId: 'op_bob', groupId: null },
		null,
	],
	[
		'a note mentioning two: both but its author',
		newEvent(
			'message.created',
			'ws_1',
			operator('op_bob'),
			message('operator', '@"Ada Lovelace" @bob @cy look', true, 'op_bob'),
		),
		null,
		{
			kind: 'mention',
			conversationId: 'conv_1',
			operatorIds: ['op_ada', 'op_cy'],
			text: '@"Ada Lovelace" @bob @cy look',
		},
	],
	[
		'a rule naming nobody: the whole team',
		newEvent(
			'rule.notification',
			'ws_1',
			{ kind: 'rule', id: 'rul_1' },
			{ rule: { id: 'rul_1', name: 'VIP' }, text: 'VIP here', operatorIds: [], conversationId: null, contactId: null },
		),
		null,
		{ kind: 'rule', conversationId: null, operatorIds: ['op_ada', 'op_bob', 'op_cy'], text: 'VIP here' },
	],
	[
		'a rule naming one of another workspace: only the team’s',
		newEvent(
			'rule.notification',
			'ws_1',
			{ kind: 'rule', id: 'rul_1' },
			{
				rule: { id: 'rul_1', name: 'VIP' },
				text: 'VIP here',
				operatorIds: ['op_stranger', 'op_cy'],
				conversationId: 'conv_1',
				contactId: 'ctc_1',
			},
		),
		null,
		{ kind: 'rule', conversationId: 'conv_1', operatorIds: ['op_cy'], text: 'VIP here' },
	],
	[
		'a bot’s notify naming one and a stranger: the one, as a rule’s notify does',
		botNotice(['op_stranger', 'op_bob'], 'ctc_1'),
		null,
		{ kind: 'rule', conversationId: 'conv_1', operatorIds: ['op_bob'], text: 'A lead' },
	],
	[
		'a bot’s notify naming nobody: the whole team',
		botNotice([], null),
		null,
		{ kind: 'rule', conversationId: 'conv_1', operatorIds: ['op_ada', 'op_bob', 'op_cy'], text: 'A lead' },
	],
];

describe('alertTargets', () => {
	it.each(cases)('%s', (_, event, facts, expected) => {
		expect(alertTargets(event, team, facts)).toEqual(expected);
	});
});

describe('mayAlert', () => {
	// The consumer skips the team's reads on its word: it must never say no to an event that alerts someone.
	it.each(cases.filter(([, , , expected]) => expected !== null))('holds for: %s', (_, event) => {
		expect(mayAlert(event)).toBe(true);
	});

	it('is false for what alerts nobody whoever the team is', () => {
		const notAssigned = newEvent('conversation.updated', 'ws_1', operator('op_ada'), {
			conversation: conversation(null),
			changed: ['status'],
			changes: { status: { from: 'open', to: 'pending' } },
		});
		const reply = newEvent(
			'message.created',
			'ws_1',
			operator('op_ada'),
			message('operator', '@bob hi', false, 'op_ada'),
		);
		const campaign = newEvent(
			'conversation.created',
			'ws_1',
			{ kind: 'campaign', id: 'cmp_1' },
			{
				conversation: conversation(null),
			},
		);
		expect([notAssigned, reply, campaign].map(mayAlert)).toEqual([false, false, false]);
	});
});
