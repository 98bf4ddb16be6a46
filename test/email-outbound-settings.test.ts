import { describe, expect, it } from 'vitest';
import { conversationWith, mailingWorkspace, SENDER, seedDelivery } from './email-outbound-helpers';
import { api, expectError, seedOperator, seedWorkspace } from './factories';

describe('GET /v3/email/settings', () => {
	it('says no mail can go out, and why, until a sender is set', async () => {
		const { token } = await seedWorkspace();
		const res = await api(token, 'GET', '/v3/email/settings');
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({
			senderName: null,
			senderAddress: null,
			replyDomain: null,
			continuationEnabled: true,
			continuationDelaySeconds: 120,
			linkOrigin: null,
			sending: { ready: false, reason: 'no sender set' },
		});
	});
});

describe('PUT /v3/email/settings', () => {
	it('saves a partial update and the origin links in mail use', async () => {
		const { token } = await mailingWorkspace();
		const res = await api(token, 'PUT', '/v3/email/settings', {
			continuationDelaySeconds: 300,
			replyDomain: 'Reply.Acme.test',
		});
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({
			senderName: 'Acme support',
			senderAddress: SENDER,
			replyDomain: 'reply.acme.test',
			continuationEnabled: true,
			continuationDelaySeconds: 300,
			linkOrigin: 'https://parley.test',
			sending: { ready: true, reason: null },
		});
	});

	it('refuses what is not a sender, a domain or a delay, in the spec’s error body', async () => {
		const { token } = await seedWorkspace();
		const refused: Array<[Record<string, unknown>, string]> = [
			[{ senderAddress: 'Acme <support@acme.test>' }, 'senderAddress'],
			[{ senderAddress: 'support@acme.test\r\nBcc: all@example.com' }, 'senderAddress'],
			[{ senderName: 'Acme\r\nBcc: all@example.com' }, 'senderName'],
			[{ senderName: 'Acme\u202Eevil' }, 'senderName'],
			[{ replyDomain: 'not a domain' }, 'replyDomain'],
			[{ continuationDelaySeconds: 5 }, 'continuationDelaySeconds'],
			[{ sending: { ready: true } }, 'sending'],
		];
		for (const [body, field] of refused) {
			const error = await expectError(await api(token, 'PUT', '/v3/email/settings', body), 422);
			expect(error.message, JSON.stringify(body)).toContain(field);
		}
		expect(
			((await (await api(token, 'GET', '/v3/email/settings')).json()) as { senderName: unknown }).senderName,
		).toBeNull();
	});

	it('is for admins only', async () => {
		const { workspaceId } = await seedWorkspace();
		const { token } = await seedOperator(workspaceId, ['conversations:read', 'messages:send']);
		await expectError(await api(token, 'GET', '/v3/email/settings'), 403);
		await expectError(await api(token, 'PUT', '/v3/email/settings', { senderAddress: SENDER }), 403);
		await expectError(await api(token, 'GET', '/v3/email/deliveries'), 403);
	});
});

describe('GET /v3/email/deliveries', () => {
	it('pages the workspace’s deliveries newest first, by status, and never another workspace’s', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const { conversationId, contactId, email } = await conversationWith(token, 'api', ['one']);
		const ids: string[] = [];
		for (let i = 0; i < 3; i++) {
			ids.push(
				await seedDelivery(workspaceId, { conversationId, contactId, recipient: email, firstSeq: 1, lastSeq: 1 }),
			);
		}
		const first = await api(token, 'GET', '/v3/email/deliveries?limit=2');
		const page = (await first.json()) as { data: Array<{ id: string; status: string }>; nextCursor: string | null };
		expect(page.data).toHaveLength(2);
		const rest = await api(token, 'GET', `/v3/email/deliveries?limit=2&cursor=${page.nextCursor}`);
		const last = (await rest.json()) as { data: Array<{ id: string }>; nextCursor: string | null };
		expect([...page.data, ...last.data].map((d) => d.id).sort()).toEqual([...ids].sort());
		expect(last.nextCursor).toBeNull();
		const failed = await api(token, 'GET', '/v3/email/deliveries?status=failed');
		expect(((await failed.json()) as { data: unknown[] }).data).toEqual([]);
		await expectError(await api(token, 'GET', '/v3/email/deliveries?status=lost'), 422);

		const other = await mailingWorkspace({ senderAddress: 'hello@other.test' });
		const theirs = await api(other.token, 'GET', '/v3/email/deliveries');
		expect(((await theirs.json()) as { data: unknown[] }).data).toEqual([]);
		const settings = (await (await api(other.token, 'GET', '/v3/email/settings')).json()) as { senderAddress: string };
		expect(settings.senderAddress).toBe('hello@other.test');
		// Another workspace's conversation: its messages (and their mail states) are a 404 here.
		await expectError(await api(other.token, 'GET', `/v3/conversations/${conversationId}/messages`), 404);
	});
});
