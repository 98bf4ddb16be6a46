import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { buildConversationMail } from '../src/domain/channels/email/build';
import { deliver, lastMail, mailWorkspace } from './email-inbound-helpers';
import { conversationDeliveries, SENDER } from './email-outbound-helpers';
import { api, db } from './factories';
import { gmailMail, newMessageId } from './mail-samples';

/**
 * A bot on the e-mail channel: it starts on a mail's new conversation, its messages go out as mails with its
 * buttons as a numbered list, and the customer answers by replying with a number or the text, which reaches
 * the bot as the label, as a press in the widget would.
 */

const poll = { timeout: 20_000 };
const CUSTOMER = 'ana.souza@gmail.com';

const planBot = {
	start: 'plan',
	steps: [
		{
			id: 'plan',
			type: 'data_entry',
			prompt: 'Which plan are you on?',
			input: 'buttons',
			variable: 'plan',
			choices: [{ label: 'Free' }, { label: 'Pro' }, { label: 'Enterprise' }],
			next: 'bye',
		},
		{ id: 'bye', type: 'end', message: '{{ plan }}: noted, a specialist will write to you.' },
	],
};

async function texts(token: string, conversationId: string): Promise<string[]> {
	const res = await api(token, 'GET', `/v3/conversations/${conversationId}/messages?limit=100`);
	return ((await res.json()) as { data: Array<{ text: string }> }).data.map((m) => m.text);
}

describe('a bot on an e-mail conversation', () => {
	it('mails its buttons as numbered choices and takes a reply by number as the choice', async () => {
		const ws = await mailWorkspace();
		expect((await api(ws.token, 'PUT', '/v3/email/settings', { senderAddress: SENDER })).status).toBe(200);
		const created = await api(ws.token, 'POST', '/v3/bots', {
			name: 'Plans',
			trigger: { kind: 'new_conversation' },
			channels: ['email'],
			definition: planBot,
		});
		expect(created.status).toBe(201);
		const { id: botId } = (await created.json()) as { id: string };
		expect((await api(ws.token, 'POST', `/v3/bots/${botId}/publish`)).status).toBe(200);

		const first = newMessageId();
		await deliver(gmailMail({ to: ws.inbox, from: CUSTOMER, messageId: first }, 'Can I change my plan?'), {
			from: CUSTOMER,
			to: ws.inbox,
		});
		const conversationId = (await lastMail(ws.token)).conversationId;
		if (!conversationId) throw new Error('the mail started no conversation');
		await expect
			.poll(() => texts(ws.token, conversationId), poll)
			.toEqual(['Can I change my plan?', 'Which plan are you on?']);

		// The bot's question went out by mail, its buttons as a numbered list.
		await expect
			.poll(async () => (await conversationDeliveries(conversationId)).map((d) => [d.kind, d.status]), poll)
			.toEqual([['reply', 'sent']]);
		const [delivery] = await conversationDeliveries(conversationId);
		if (!delivery) throw new Error('no delivery');
		const built = await buildConversationMail(env, db, [delivery]);
		if ('skip' in built) throw new Error(built.skip);
		expect(built.mail.text).toContain('Which plan are you on?\n\n1. Free\n2. Pro\n3. Enterprise\n');

		// The customer answers "2." above the quoted mail: the bot takes "Pro".
		await deliver(
			gmailMail(
				{ to: ws.inbox, from: CUSTOMER, messageId: newMessageId(), inReplyTo: first, subject: 'Re: plan' },
				'2.',
			),
			{ from: CUSTOMER, to: ws.inbox },
		);
		await expect
			.poll(() => texts(ws.token, conversationId), poll)
			.toEqual([
				'Can I change my plan?',
				'Which plan are you on?',
				'Pro',
				'Pro: noted, a specialist will write to you.',
			]);
	});

	it('posts a reply that answers no button as written', async () => {
		const ws = await mailWorkspace();
		const first = newMessageId();
		await deliver(gmailMail({ to: ws.inbox, from: CUSTOMER, messageId: first }, 'Hello'), {
			from: CUSTOMER,
			to: ws.inbox,
		});
		const conversationId = (await lastMail(ws.token)).conversationId;
		if (!conversationId) throw new Error('the mail started no conversation');
		const asked = await api(ws.token, 'POST', '/v3/messages', {
			conversationId,
			text: 'Which one?',
			interactive: { type: 'buttons', buttons: [{ label: 'Sales' }, { label: 'Support' }] },
		});
		expect(asked.status).toBe(201);
		for (const [i, body] of ['7', 'support', 'Neither, I have a question\nabout invoices'].entries()) {
			await deliver(gmailMail({ to: ws.inbox, from: CUSTOMER, messageId: newMessageId(), inReplyTo: first }, body), {
				from: CUSTOMER,
				to: ws.inbox,
			});
			await expect.poll(async () => (await texts(ws.token, conversationId)).length, poll).toBe(3 + i);
		}
		// "7" chooses nothing and stays "7"; "support" is the label; two lines stay as written.
		expect((await texts(ws.token, conversationId)).slice(2)).toEqual([
			'7',
			'Support',
			'Neither, I have a question\nabout invoices',
		]);
	});
});
