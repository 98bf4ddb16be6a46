import { describe, expect, it } from 'vitest';
import { api, expectError, liveConversation, reply, seedConversation, seedWorkspace } from './factories';

interface Row {
	id: string;
	contact?: { id: string; name: string | null; email: string | null; phone: string | null };
	lastMessage?: { seq: number; authorKind: string; authorId: string | null; private: boolean; text: string } | null;
}

async function listRows(token: string, query: string): Promise<{ rows: Row[]; timing: string }> {
	const res = await api(token, 'GET', `/v3/conversations?${query}`);
	expect(res.status).toBe(200);
	return { rows: ((await res.json()) as { data: Row[] }).data, timing: res.headers.get('Server-Timing') ?? '' };
}

describe('GET /v3/conversations?include=', () => {
	it("carries the contact's name and the last message's first words, in the same statement count", async () => {
		const { token, conversationId, operatorId } = await liveConversation();
		const contact = await api(token, 'GET', `/v3/conversations/${conversationId}`);
		const contactId = ((await contact.json()) as { contactId: string }).contactId;
		await api(token, 'PATCH', `/v3/contacts/${contactId}`, { name: 'Ana Souza', email: 'ana@example.com' });
		const long = `Thanks for waiting. ${'x'.repeat(300)}`;
		await reply(token, conversationId, long);

		const plain = await listRows(token, 'limit=5');
		expect(plain.rows[0]?.contact).toBeUndefined();
		expect(plain.rows[0]?.lastMessage).toBeUndefined();

		const full = await listRows(token, 'limit=5&include=contact,lastMessage');
		const row = full.rows.find((r) => r.id === conversationId);
		expect(row?.contact).toEqual({ id: contactId, name: 'Ana Souza', email: 'ana@example.com', phone: null });
		expect(row?.lastMessage).toEqual({
			seq: 2,
			authorKind: 'operator',
			authorId: operatorId,
			private: false,
			text: long.slice(0, 140),
		});
		const statements = (timing: string) => Number(/"(\d+) queries"/.exec(timing)?.[1]);
		expect(Number.isInteger(statements(plain.timing))).toBe(true);
		expect(statements(full.timing)).toBe(statements(plain.timing));
	});

	it('marks a private note as such in the preview', async () => {
		const { token, conversationId, operatorId } = await liveConversation();
		const res = await api(token, 'POST', '/v3/messages', {
			conversationId,
			text: 'Check billing first',
			private: true,
		});
		expect(res.status).toBe(201);
		const { rows } = await listRows(token, 'include=lastMessage');
		expect(rows.find((r) => r.id === conversationId)?.lastMessage).toEqual({
			seq: 2,
			authorKind: 'operator',
			authorId: operatorId,
			private: true,
			text: 'Check billing first',
		});
	});

	it('answers a null lastMessage for a conversation with no message yet', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const id = await seedConversation(workspaceId);
		const { rows } = await listRows(token, 'include=lastMessage');
		expect(rows.find((r) => r.id === id)?.lastMessage).toBeNull();
	});

	it('refuses an unknown include with a 422 naming it', async () => {
		const { token } = await seedWorkspace();
		const res = await api(token, 'GET', '/v3/conversations?include=contact,messages');
		const body = await expectError(res, 422);
		expect(body.message).toContain('messages');
	});
});

describe('GET /v3/conversations/{id}/messages?before=', () => {
	it('answers the newest messages before a seq, oldest first, so a console scrolls back page by page', async () => {
		const { token, conversationId } = await liveConversation();
		for (let i = 2; i <= 12; i++) await reply(token, conversationId, `reply ${i}`);
		const page = async (query: string) => {
			const res = await api(token, 'GET', `/v3/conversations/${conversationId}/messages?${query}`);
			expect(res.status).toBe(200);
			const body = (await res.json()) as { data: { seq: number }[]; nextCursor: string | null };
			return { seqs: body.data.map((m) => m.seq), nextCursor: body.nextCursor };
		};
		expect(await page('before=13&limit=5')).toEqual({ seqs: [8, 9, 10, 11, 12], nextCursor: null });
		expect(await page('before=8&limit=5')).toEqual({ seqs: [3, 4, 5, 6, 7], nextCursor: null });
		expect(await page('before=3&limit=5')).toEqual({ seqs: [1, 2], nextCursor: null });
	});

	it('refuses before together with a cursor, and a conversation of another workspace', async () => {
		const { token, conversationId } = await liveConversation();
		const other = await seedWorkspace();
		expect(
			(
				await expectError(
					await api(token, 'GET', `/v3/conversations/${conversationId}/messages?before=2&cursor=x`),
					422,
				)
			).message,
		).toContain('before');
		await expectError(await api(other.token, 'GET', `/v3/conversations/${conversationId}/messages?before=5`), 404);
	});
});
