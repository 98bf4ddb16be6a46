import { describe, expect, it } from 'vitest';
import { conversationOf, deliver, lastMail, mailWorkspace, receivedMails } from './email-inbound-helpers';
import { api, closeConversation, storedTexts } from './factories';
import { appleMail, gmailMail, newMessageId, outlookMail } from './mail-samples';

describe('a new mail', () => {
	it('starts a conversation on channel email with its subject, the contact created by address', async () => {
		const ws = await mailWorkspace();
		const delivered = await deliver(gmailMail({ to: ws.inbox, from: 'Ana.Souza@Gmail.example' }), {
			from: 'ana.souza@gmail.example',
			to: ws.inbox,
		});
		expect(delivered.rejected).toEqual([]);
		const mail = await lastMail(ws.token);
		expect(mail).toMatchObject({
			status: 'posted',
			kind: 'message',
			failure: null,
			subject: 'Order #4411 not delivered',
		});
		const conversation = await conversationOf(ws.token, mail.conversationId ?? '');
		expect(conversation).toMatchObject({ channel: 'email', subject: 'Order #4411 not delivered', status: 'open' });
		expect(conversation.contact).toMatchObject({ email: 'ana.souza@gmail.example', name: 'Ana Souza' });
		// What Ana wrote, without Gmail's quote of the thread.
		expect(await storedTexts(ws.token, mail.conversationId ?? '')).toEqual(['Hi, my order #4411 has not arrived yet.']);
	});

	it('finds the contact that already has the address, and leaves its name alone', async () => {
		const ws = await mailWorkspace();
		const created = await api(ws.token, 'POST', '/v3/contacts', { name: 'John M.', email: 'j.miller@contoso.example' });
		expect(created.status).toBe(201);
		const contactId = ((await created.json()) as { id: string }).id;
		await deliver(outlookMail({ to: ws.inbox }), { from: 'j.miller@contoso.example', to: ws.inbox });
		const mail = await lastMail(ws.token);
		const conversation = await conversationOf(ws.token, mail.conversationId ?? '');
		expect(conversation.contact).toMatchObject({ id: contactId, name: 'John M.' });
		expect(await storedTexts(ws.token, mail.conversationId ?? '')).toEqual([
			'Yes, please cancel the subscription.\n\nJohn Miller\nContoso Ltd.',
		]);
	});

	it('posts once when the same mail is delivered twice', async () => {
		const ws = await mailWorkspace();
		const raw = appleMail({ to: ws.inbox, messageId: newMessageId('icloud.com') });
		await deliver(raw, { from: 'li.wei@icloud.com', to: ws.inbox });
		await deliver(raw, { from: 'li.wei@icloud.com', to: ws.inbox });
		const mails = await receivedMails(ws.token);
		expect(mails).toHaveLength(2);
		const first = mails.find((m) => m.status === 'posted');
		const second = mails.find((m) => m.status !== 'posted');
		expect(first).toMatchObject({ status: 'posted' });
		expect(second).toMatchObject({
			status: 'ignored',
			conversationId: first?.conversationId,
			messageId: first?.messageId,
		});
		expect(second?.failure).toMatch(/already received/);
		expect(await storedTexts(ws.token, first?.conversationId ?? '')).toEqual([
			'Great, thank you! I will try again tonight.',
		]);
		const list = (await (await api(ws.token, 'GET', '/v3/conversations')).json()) as { data: unknown[] };
		expect(list.data).toHaveLength(1);
	});

	it('rejects mail to an address no workspace has, so the sender hears of it, and keeps it', async () => {
		const ws = await mailWorkspace();
		const delivered = await deliver(gmailMail({ to: 'nobody@acme.example' }), {
			from: 'ana.souza@gmail.example',
			to: 'nobody@acme.example',
		});
		expect(delivered.rejected).toEqual(['No Parley inbox receives mail at nobody@acme.example.']);
		expect(delivered.forwarded).toEqual([]);
		// Recorded without a workspace: no workspace's admin lists it.
		expect(await receivedMails(ws.token)).toEqual([]);
	});

	it('takes a subaddress (support+billing@) as its inbound address', async () => {
		const ws = await mailWorkspace();
		const [local, domain] = ws.inbox.split('@');
		const to = `${local}+billing@${domain}`;
		const delivered = await deliver(gmailMail({ to }), { from: 'ana.souza@gmail.example', to });
		expect(delivered.rejected).toEqual([]);
		expect((await lastMail(ws.token)).status).toBe('posted');
	});

	it('stores a subject that smuggles a line break (a header injection) as one line, and says so', async () => {
		const ws = await mailWorkspace();
		// "Hi\r\nBcc: victim@example.com" as an encoded word.
		const subject = `=?UTF-8?B?${btoa('Hi\r\nBcc: victim@example.com')}?=`;
		await deliver(gmailMail({ to: ws.inbox, subject }), { from: 'ana.souza@gmail.example', to: ws.inbox });
		const mail = await lastMail(ws.token);
		expect(mail.subject).toBe('Hi Bcc: victim@example.com');
		expect(mail.status).toBe('posted');
		expect(mail.failure).toMatch(/line break/);
		expect((await conversationOf(ws.token, mail.conversationId ?? '')).subject).toBe('Hi Bcc: victim@example.com');
	});
});

describe('a reply to a closed conversation', () => {
	it('reopens it, as a widget visitor’s message does', async () => {
		const ws = await mailWorkspace();
		const first = newMessageId();
		await deliver(gmailMail({ to: ws.inbox, messageId: first }), { from: 'ana.souza@gmail.com', to: ws.inbox });
		const conversationId = (await lastMail(ws.token)).conversationId ?? '';
		await closeConversation(ws.token, conversationId);
		await deliver(gmailMail({ to: ws.inbox, inReplyTo: first, references: [first] }, 'One more thing.'), {
			from: 'ana.souza@gmail.com',
			to: ws.inbox,
		});
		expect((await lastMail(ws.token)).conversationId).toBe(conversationId);
		await expect.poll(async () => (await conversationOf(ws.token, conversationId)).status).toBe('open');
		expect(await storedTexts(ws.token, conversationId)).toEqual([
			'Hi, my order #4411 has not arrived yet.',
			'One more thing.',
		]);
	});

	it('starts a new e-mail conversation when the workspace’s customers start a new one', async () => {
		const ws = await mailWorkspace();
		expect((await api(ws.token, 'PUT', '/v3/widget/settings', { closedConversationReply: 'new' })).status).toBe(200);
		const first = newMessageId();
		await deliver(gmailMail({ to: ws.inbox, messageId: first }), { from: 'ana.souza@gmail.com', to: ws.inbox });
		const closed = (await lastMail(ws.token)).conversationId ?? '';
		await closeConversation(ws.token, closed);
		await deliver(gmailMail({ to: ws.inbox, inReplyTo: first, references: [first] }, 'Still waiting.'), {
			from: 'ana.souza@gmail.com',
			to: ws.inbox,
		});
		const mail = await lastMail(ws.token);
		expect(mail.status).toBe('posted');
		expect(mail.conversationId).not.toBe(closed);
		const fresh = await conversationOf(ws.token, mail.conversationId ?? '');
		expect(fresh).toMatchObject({ channel: 'email', status: 'open', subject: 'Order #4411 not delivered' });
		expect(await storedTexts(ws.token, mail.conversationId ?? '')).toEqual(['Still waiting.']);
	});
});
