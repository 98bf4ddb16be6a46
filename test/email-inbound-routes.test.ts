import { describe, expect, it } from 'vitest';
import { deliver, lastMail, mailWorkspace, receivedMails } from './email-inbound-helpers';
import { api, expectError, seedOperator } from './factories';
import { bounceMail, gmailMail, newMessageId, vacationMail } from './mail-samples';

describe('/v3/email/addresses', () => {
	it('lists, adds (lower-cased) and removes a workspace’s inbound addresses', async () => {
		const ws = await mailWorkspace();
		const added = await api(ws.token, 'POST', '/v3/email/addresses', { address: 'Billing@ACME.example' });
		expect(added.status).toBe(201);
		const address = (await added.json()) as { id: string; address: string };
		expect(address.address).toBe('billing@acme.example');
		const listed = (await (await api(ws.token, 'GET', '/v3/email/addresses')).json()) as {
			data: { address: string }[];
		};
		expect(listed.data.map((a) => a.address)).toEqual([ws.inbox, 'billing@acme.example']);
		expect((await api(ws.token, 'DELETE', `/v3/email/addresses/${address.id}`)).status).toBe(204);
		await expectError(await api(ws.token, 'DELETE', `/v3/email/addresses/${address.id}`), 404);
		// Mail to a removed address is rejected from then on.
		const delivered = await deliver(gmailMail({ to: 'billing@acme.example' }), {
			from: 'ana.souza@gmail.com',
			to: 'billing@acme.example',
		});
		expect(delivered.rejected).toHaveLength(1);
	});

	it('refuses an address another workspace has (409), a reply+ address and a malformed one (422)', async () => {
		const a = await mailWorkspace();
		const b = await mailWorkspace();
		await expectError(await api(b.token, 'POST', '/v3/email/addresses', { address: a.inbox.toUpperCase() }), 409);
		await expectError(await api(b.token, 'POST', '/v3/email/addresses', { address: 'reply+abc@acme.example' }), 422);
		await expectError(await api(b.token, 'POST', '/v3/email/addresses', { address: 'not an address' }), 422);
	});

	it('is for admins only', async () => {
		const ws = await mailWorkspace();
		const agent = await seedOperator(ws.workspaceId, ['conversations:read', 'messages:send']);
		await expectError(await api(agent.token, 'GET', '/v3/email/addresses'), 403);
		await expectError(await api(agent.token, 'POST', '/v3/email/addresses', { address: 'x@acme.example' }), 403);
	});
});

describe('/v3/email/inbound', () => {
	it('filters by status and pages with a cursor, newest first', async () => {
		const ws = await mailWorkspace();
		const first = newMessageId();
		await deliver(gmailMail({ to: ws.inbox, messageId: first }), { from: 'ana.souza@gmail.com', to: ws.inbox });
		await deliver(vacationMail({ to: ws.inbox, inReplyTo: first }), { from: 'ana.souza@gmail.com', to: ws.inbox });
		await deliver(bounceMail('x@contoso.example', newMessageId(), { to: ws.inbox }), { from: '', to: ws.inbox });
		expect((await receivedMails(ws.token, '?status=ignored')).map((m) => m.kind)).toEqual(['bounce', 'auto_reply']);
		expect((await receivedMails(ws.token, '?status=posted')).map((m) => m.kind)).toEqual(['message']);
		const page1 = (await (await api(ws.token, 'GET', '/v3/email/inbound?limit=2')).json()) as {
			data: { kind: string }[];
			nextCursor: string | null;
		};
		expect(page1.data.map((m) => m.kind)).toEqual(['bounce', 'auto_reply']);
		const page2 = (await (
			await api(ws.token, 'GET', `/v3/email/inbound?limit=2&cursor=${page1.nextCursor}`)
		).json()) as {
			data: { kind: string }[];
			nextCursor: string | null;
		};
		expect(page2).toEqual({ data: [expect.objectContaining({ kind: 'message' })], nextCursor: null });
		await expectError(await api(ws.token, 'GET', '/v3/email/inbound?status=lost'), 422);
		await expectError(await api(ws.token, 'GET', '/v3/email/inbound?cursor=nope'), 422);
	});

	it('the list is for admins; one mail, its original and a conversation’s mails for readers of conversations', async () => {
		const ws = await mailWorkspace();
		await deliver(gmailMail({ to: ws.inbox }), { from: 'ana.souza@gmail.com', to: ws.inbox });
		const mail = await lastMail(ws.token);
		const reader = await seedOperator(ws.workspaceId, ['conversations:read']);
		await expectError(await api(reader.token, 'GET', '/v3/email/inbound'), 403);
		expect((await api(reader.token, 'GET', `/v3/email/inbound/${mail.id}`)).status).toBe(200);
		expect((await api(reader.token, 'GET', `/v3/email/inbound/${mail.id}/raw`)).status).toBe(200);
		expect((await api(reader.token, 'GET', `/v3/conversations/${mail.conversationId}/mails`)).status).toBe(200);
		const sender = await seedOperator(ws.workspaceId, ['messages:send']);
		await expectError(await api(sender.token, 'GET', `/v3/email/inbound/${mail.id}`), 403);
		await expectError(await api(sender.token, 'GET', `/v3/email/inbound/${mail.id}/raw`), 403);
	});
});

describe('tenant isolation', () => {
	it('workspace B cannot list, read, download or remove what is A’s', async () => {
		const a = await mailWorkspace();
		const b = await mailWorkspace();
		await deliver(gmailMail({ to: a.inbox }), { from: 'ana.souza@gmail.com', to: a.inbox });
		const mail = await lastMail(a.token);
		const [address] = ((await (await api(a.token, 'GET', '/v3/email/addresses')).json()) as { data: { id: string }[] })
			.data;
		expect(await receivedMails(b.token)).toEqual([]);
		expect(((await (await api(b.token, 'GET', '/v3/email/addresses')).json()) as { data: unknown[] }).data).toEqual([
			expect.objectContaining({ address: b.inbox }),
		]);
		await expectError(await api(b.token, 'GET', `/v3/email/inbound/${mail.id}`), 404);
		await expectError(await api(b.token, 'GET', `/v3/email/inbound/${mail.id}/raw`), 404);
		await expectError(await api(b.token, 'GET', `/v3/conversations/${mail.conversationId}/mails`), 404);
		await expectError(await api(b.token, 'DELETE', `/v3/email/addresses/${address?.id}`), 404);
		// A's address still receives.
		expect((await api(a.token, 'GET', `/v3/email/inbound/${mail.id}`)).status).toBe(200);
		expect(
			((await (await api(a.token, 'GET', '/v3/email/addresses')).json()) as { data: unknown[] }).data,
		).toHaveLength(1);
	});
});
