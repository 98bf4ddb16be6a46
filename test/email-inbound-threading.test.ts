import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { replyLocalPart } from '../src/auth/mail-reply-token';
import { conversationOf, deliver, lastMail, mailWorkspace, receivedMails } from './email-inbound-helpers';
import { api, startVisitor, startVisitorConversation, storedTexts } from './factories';
import { gmailMail, newMessageId } from './mail-samples';

const REPLY_DOMAIN = 'reply.acme.example';

async function replyAddress(workspaceId: string, conversationId: string): Promise<string> {
	return `${await replyLocalPart(env, workspaceId, conversationId)}@${REPLY_DOMAIN}`;
}

/** A mail conversation started by `first`, and its id. */
async function mailConversation(ws: { token: string; inbox: string }, from = 'ana.souza@gmail.com') {
	const first = newMessageId();
	await deliver(gmailMail({ to: ws.inbox, from, messageId: first }), { from, to: ws.inbox });
	const conversationId = (await lastMail(ws.token)).conversationId;
	if (!conversationId) throw new Error('the first mail started no conversation');
	return { first, conversationId };
}

describe('threading a reply', () => {
	it('by the reply address: into that conversation, whatever the headers say', async () => {
		const ws = await mailWorkspace();
		const visitor = await startVisitor(ws.workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello from the site');
		const to = await replyAddress(ws.workspaceId, conversationId);
		const delivered = await deliver(gmailMail({ to, subject: 'Something else entirely' }, 'Answering by mail.'), {
			from: 'ana.souza@gmail.com',
			to,
		});
		expect(delivered.rejected).toEqual([]);
		const mail = await lastMail(ws.token);
		expect(mail).toMatchObject({ status: 'posted', conversationId });
		expect(await storedTexts(ws.token, conversationId)).toEqual(['Hello from the site', 'Answering by mail.']);
		// The widget conversation stays a widget conversation; the mail is beside it.
		expect((await conversationOf(ws.token, conversationId)).channel).toBe('widget');
		const mails = await api(ws.token, 'GET', `/v3/conversations/${conversationId}/mails`);
		expect(((await mails.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual([mail.id]);
	});

	it('by In-Reply-To', async () => {
		const ws = await mailWorkspace();
		const { first, conversationId } = await mailConversation(ws);
		await deliver(gmailMail({ to: ws.inbox, inReplyTo: first }, 'Any news?'), {
			from: 'ana.souza@gmail.com',
			to: ws.inbox,
		});
		expect((await lastMail(ws.token)).conversationId).toBe(conversationId);
		expect(await storedTexts(ws.token, conversationId)).toHaveLength(2);
	});

	it('by References, the newest id Parley knows, when In-Reply-To names a mail it never saw', async () => {
		const ws = await mailWorkspace();
		const { first, conversationId } = await mailConversation(ws);
		const unknown = newMessageId('elsewhere.example');
		await deliver(gmailMail({ to: ws.inbox, inReplyTo: unknown, references: [first, unknown] }, 'Following up.'), {
			from: 'ana.souza@gmail.com',
			to: ws.inbox,
		});
		expect((await lastMail(ws.token)).conversationId).toBe(conversationId);
	});

	it('never by subject alone: the same subject without thread headers starts another conversation', async () => {
		const ws = await mailWorkspace();
		const { conversationId } = await mailConversation(ws);
		await deliver(gmailMail({ to: ws.inbox, subject: 'Re: Order #4411 not delivered' }, 'Hello?'), {
			from: 'ana.souza@gmail.com',
			to: ws.inbox,
		});
		const mail = await lastMail(ws.token);
		expect(mail.status).toBe('posted');
		expect(mail.conversationId).not.toBe(conversationId);
		expect(await storedTexts(ws.token, conversationId)).toHaveLength(1);
	});

	it('not into another contact’s conversation by a Message-ID a third party copied', async () => {
		const ws = await mailWorkspace();
		const { first, conversationId } = await mailConversation(ws);
		await deliver(gmailMail({ to: ws.inbox, from: 'mallory@evil.example', inReplyTo: first }, 'I am Ana, honest.'), {
			from: 'mallory@evil.example',
			to: ws.inbox,
		});
		const mail = await lastMail(ws.token);
		expect(mail.conversationId).not.toBe(conversationId);
		expect((await conversationOf(ws.token, mail.conversationId ?? '')).contact.email).toBe('mallory@evil.example');
		expect(await storedTexts(ws.token, conversationId)).toHaveLength(1);
	});

	it('not across workspaces: a Message-ID of workspace A does not thread a mail to workspace B', async () => {
		const a = await mailWorkspace();
		const b = await mailWorkspace();
		const { first, conversationId } = await mailConversation(a);
		await deliver(gmailMail({ to: b.inbox, inReplyTo: first }, 'Wrong inbox.'), {
			from: 'ana.souza@gmail.com',
			to: b.inbox,
		});
		const mail = await lastMail(b.token);
		expect(mail.status).toBe('posted');
		expect(mail.conversationId).not.toBe(conversationId);
		expect(await storedTexts(a.token, conversationId)).toHaveLength(1);
	});
});

describe('a forged or foreign reply address', () => {
	it('with a forged signature posts nothing anywhere and is rejected', async () => {
		const ws = await mailWorkspace();
		const { conversationId } = await mailConversation(ws);
		const genuine = await replyAddress(ws.workspaceId, conversationId);
		const forged = genuine.replace(/\.[0-9a-z]{26}@/, `.${'0'.repeat(26)}@`);
		const delivered = await deliver(gmailMail({ to: forged }, 'Injected.'), {
			from: 'mallory@evil.example',
			to: forged,
		});
		expect(delivered.rejected).toEqual([
			'This reply address is not valid (unknown or forged): the mail was not delivered.',
		]);
		expect(await storedTexts(ws.token, conversationId)).toHaveLength(1);
		expect((await receivedMails(ws.token)).map((m) => m.status)).toEqual(['posted']);
	});

	it('signed for workspace A’s conversation but naming workspace B’s posts nothing in B', async () => {
		const a = await mailWorkspace();
		const b = await mailWorkspace();
		const own = await mailConversation(a);
		const target = await mailConversation(b, 'li.wei@icloud.com');
		// A's signature over B's conversation id: what someone who could sign for A would try.
		const crafted = await replyLocalPart(env, a.workspaceId, target.conversationId);
		const to = `${crafted}@${REPLY_DOMAIN}`;
		const delivered = await deliver(gmailMail({ to }, 'Hello B.'), { from: 'ana.souza@gmail.com', to });
		expect(delivered.rejected).toHaveLength(1);
		expect(await storedTexts(b.token, target.conversationId)).toHaveLength(1);
		expect(await storedTexts(a.token, own.conversationId)).toHaveLength(1);
		expect((await receivedMails(b.token)).map((m) => m.status)).toEqual(['posted']);
	});

	it('naming a conversation that does not exist is rejected', async () => {
		await mailWorkspace();
		const to = `reply+${'0'.repeat(26)}.${'1'.repeat(26)}@${REPLY_DOMAIN}`;
		const delivered = await deliver(gmailMail({ to }), { from: 'ana.souza@gmail.com', to });
		expect(delivered.rejected).toHaveLength(1);
	});
});
