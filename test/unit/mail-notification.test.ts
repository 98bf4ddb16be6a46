import { describe, expect, it } from 'vitest';
import { mentionedMembers } from '../../src/engines/mail/mentions';
import {
	composeNotification,
	type NotificationInput,
	notificationKey,
	parseNotificationKey,
} from '../../src/engines/mail/notification';

const team = [
	{ id: 'op_ada', name: 'Ada Lovelace', email: 'ada@acme.test' },
	{ id: 'op_bob', name: 'Bob', email: 'robert.smith@acme.test' },
	{ id: 'op_cy', name: 'Cy Young', email: 'cy@acme.test' },
	{ id: 'op_adam', name: 'Adam', email: 'adam@acme.test' },
];

describe('mentionedMembers', () => {
	const cases: Array<[string, string[]]> = [
		['@ada can you look?', ['op_ada']],
		['@ADA and @Robert.Smith', ['op_ada', 'op_bob']],
		['@bob (by name)', ['op_bob']],
		['@AdaLovelace by name without spaces', ['op_ada']],
		['@"Cy Young" by full name', ['op_cy']],
		['@"cy young", lower-case', ['op_cy']],
		['ask @ada.', ['op_ada']],
		['@adam is not @ada', ['op_ada', 'op_adam']],
		['@adamant matches nobody', []],
		['mail ada@acme.test: an address is no mention', []],
		['@@ada is no mention', []],
		['no mention at all', []],
		['@"Ada" is not her full name', []],
		['@ada @ada twice is once', ['op_ada']],
	];
	it.each(cases)('%s', (text, expected) => {
		expect(mentionedMembers(text, team)).toEqual(expected);
	});
});

describe('notification keys', () => {
	it('round-trips, with and without a conversation', () => {
		const withConversation = { kind: 'assigned', operatorId: 'op_1', conversationId: 'conv_1', ref: 'evt_1' } as const;
		expect(notificationKey(withConversation)).toBe('notify:assigned:op_1:conv_1:evt_1');
		expect(parseNotificationKey(notificationKey(withConversation))).toEqual(withConversation);
		const contactOnly = { kind: 'rule', operatorId: 'op_1', conversationId: null, ref: 'evt_2' } as const;
		expect(parseNotificationKey(notificationKey(contactOnly))).toEqual(contactOnly);
	});

	it.each([
		'continuation:conv_1:3',
		'notify:unknown:op:conv:ref',
		'notify:assigned:op:conv',
		'notify:assigned:op:conv:ref:extra',
	])('reads %s as no notification', (key) => {
		expect(parseNotificationKey(key)).toBeNull();
	});
});

describe('composeNotification', () => {
	const input: NotificationInput = {
		kind: 'mention',
		from: { address: 'support@acme.test', name: 'Acme\r\nBcc: all@acme.test' },
		to: 'ada@acme.test',
		workspaceName: 'Acme',
		contactLabel: 'Eve <script>',
		by: 'Bob\nSubject: hi',
		detail: '@ada look at <b>this</b>',
		lastCustomerMessage: 'Where is my <img src=x onerror=alert(1)> order?\nThanks',
		link: 'https://parley.test/console/conversations/conv_1',
	};

	it('says what happened, quotes the customer escaped, links the conversation, and is auto-generated', () => {
		const mail = composeNotification(input);
		expect(mail.subject).toBe('[Acme] Bob Subject: hi mentioned you in a private note');
		expect(mail.from).toEqual({ email: 'support@acme.test', name: 'Acme Bcc: all@acme.test' });
		expect(mail.headers['Auto-Submitted']).toBe('auto-generated');
		expect(mail.text).toContain('> Where is my <img src=x onerror=alert(1)> order?\n> Thanks');
		expect(mail.text).toContain('Open the conversation: https://parley.test/console/conversations/conv_1');
		expect(mail.html).toContain('Where is my &lt;img src=x onerror=alert(1)&gt; order?');
		expect(mail.html).toContain('Eve &lt;script&gt; wrote:');
		expect(mail.html).toContain('@ada look at &lt;b&gt;this&lt;/b&gt;');
		expect(mail.html).not.toMatch(/<img|<script|<b>/);
		expect(mail.html).toContain('<a href="https://parley.test/console/conversations/conv_1">');
	});

	it.each([
		['assigned', '[Acme] A conversation with Eve <script> was assigned to you'],
		['unanswered', '[Acme] A new conversation with Eve <script> has waited 10 minutes with nobody on it'],
		['rule', '[Acme] Rule “Bob Subject: hi” notified you with Eve <script>'],
	] as const)('words the %s subject', (kind, subject) => {
		expect(composeNotification({ ...input, kind, minutes: 10 }).subject).toBe(subject);
	});

	it('words a bot’s notify as the bot’s, under the same kind as a rule’s', () => {
		expect(composeNotification({ ...input, kind: 'rule', notifier: 'bot' }).subject).toBe(
			'[Acme] Bot “Bob Subject: hi” notified you with Eve <script>',
		);
		expect(composeNotification({ ...input, kind: 'rule', notifier: 'bot', by: null }).subject).toBe(
			'[Acme] A bot notified you with Eve <script>',
		);
	});

	it('refuses an address that is not plainly one', () => {
		expect(() => composeNotification({ ...input, to: 'ada@acme.test\r\nBcc: x@y.z' })).toThrow(/not a plain/);
	});
});
