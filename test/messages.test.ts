import { describe, expect, it } from 'vitest';
import { api, expectError, seedConversation, seedWorkspace } from './factories';

interface Message {
	id: string;
	seq: number;
	text: string;
	authorKind: string;
	authorId: string;
}

describe('POST /v3/messages', () => {
	it('stores an operator message with the next sequence number and updates the conversation', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId, {}, Date.now() - 60_000);
		const first = await api(token, 'POST', '/v3/messages', { conversationId, text: 'Hello 👋' });
		expect(first.status).toBe(201);
		expect(await first.json()).toMatchObject({
			seq: 1,
			text: 'Hello 👋',
			authorKind: 'operator',
			authorId: operatorId,
		});
		const second = (await (
			await api(token, 'POST', '/v3/messages', { conversationId, text: 'Anyone?' })
		).json()) as Message;
		expect(second.seq).toBe(2);
		const conversation = (await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json()) as {
			lastMessageSeq: number;
			unreadByContact: number;
			lastMessageAt: string;
		};
		expect(conversation).toMatchObject({ lastMessageSeq: 2, unreadByContact: 2 });
		expect(Date.parse(conversation.lastMessageAt)).toBeGreaterThan(Date.now() - 10_000);
	});

	it('gives concurrent sends distinct, gap-free sequence numbers', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const sent = await Promise.all(
			Array.from({ length: 12 }, (_, i) => api(token, 'POST', '/v3/messages', { conversationId, text: `m${i}` })),
		);
		const seqs = (await Promise.all(sent.map(async (r) => ((await r.json()) as Message).seq))).sort((x, y) => x - y);
		expect(seqs).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
	});

	it('returns the first message for a retried Idempotency-Key instead of a duplicate', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const headers = { 'Idempotency-Key': 'order-42-confirmation' };
		const first = await api(token, 'POST', '/v3/messages', { conversationId, text: 'Confirmed' }, headers);
		const retry = await api(token, 'POST', '/v3/messages', { conversationId, text: 'Confirmed' }, headers);
		expect(first.status).toBe(201);
		expect(retry.status).toBe(201);
		expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
		const a = (await first.json()) as Message;
		const b = (await retry.json()) as Message;
		expect(b).toEqual(a);
		const page = (await (await api(token, 'GET', `/v3/conversations/${conversationId}/messages`)).json()) as {
			data: Message[];
		};
		expect(page.data).toHaveLength(1);
		// The same key with another text is a client bug: refused, nothing stored.
		const misuse = await api(token, 'POST', '/v3/messages', { conversationId, text: 'Cancelled' }, headers);
		await expectError(misuse, 422);
		const otherAttachment = await api(
			token,
			'POST',
			'/v3/messages',
			{
				conversationId,
				text: 'Confirmed',
				attachments: [{ url: 'https://cdn.example/x.pdf', name: 'x.pdf', contentType: 'application/pdf', size: 10 }],
			},
			headers,
		);
		await expectError(otherAttachment, 422);
		const after = (await (await api(token, 'GET', `/v3/conversations/${conversationId}/messages`)).json()) as {
			data: Message[];
		};
		expect(after.data.map((m) => m.text)).toEqual(['Confirmed']);
	});

	it('rejects empty text, a missing conversation and a non-JSON body with the error body', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		expect(
			(await expectError(await api(token, 'POST', '/v3/messages', { conversationId, text: '  ' }), 422)).message,
		).toContain('json.text');
		await expectError(await api(token, 'POST', '/v3/messages', { conversationId: 'conv_missing', text: 'x' }), 404);
		await expectError(await api(token, 'POST', '/v3/messages', '{"conversationId":'), 400);
		const plain = await api(null, 'POST', '/v3/messages', undefined, {
			Authorization: `Bearer ${token}`,
			'Content-Type': 'text/plain',
		});
		await expectError(plain, 415);
	});
});

describe('GET /v3/conversations/{id}/messages', () => {
	it('pages oldest first by sequence with an opaque cursor', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		for (let i = 1; i <= 5; i++) await api(token, 'POST', '/v3/messages', { conversationId, text: `m${i}` });
		const first = (await (await api(token, 'GET', `/v3/conversations/${conversationId}/messages?limit=3`)).json()) as {
			data: Message[];
			nextCursor: string;
		};
		expect(first.data.map((m) => m.text)).toEqual(['m1', 'm2', 'm3']);
		const rest = (await (
			await api(token, 'GET', `/v3/conversations/${conversationId}/messages?limit=3&cursor=${first.nextCursor}`)
		).json()) as { data: Message[]; nextCursor: string | null };
		expect(rest.data.map((m) => m.seq)).toEqual([4, 5]);
		expect(rest.nextCursor).toBeNull();
	});

	it('answers 200 with no data for an empty conversation and 404 for an unknown one', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const empty = await api(token, 'GET', `/v3/conversations/${conversationId}/messages`);
		expect(await empty.json()).toEqual({ data: [], nextCursor: null });
		await expectError(await api(token, 'GET', '/v3/conversations/conv_nope/messages'), 404);
	});
});
