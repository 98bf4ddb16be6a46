import { describe, expect, it } from 'vitest';
import { api, expectError, liveConversation, reply, seedConversation, seedWorkspace } from './factories';

interface Row {
	id: string;
	contact?: { id: string; name: string | null; email: string | null; phone: string | null };
	lastMessage?: { seq: number; authorKind: string; text: string } | null;
}

async function listRows(token: string, query: string): Promise<{ rows: Row[]; timing: string }> {
	const res = await api(token, 'GET', `/v3/conversations?${query}`);
	expect(res.status).toBe(200);
	return { rows: ((await res.json()) as { data: Row[] }).data, timing: res.headers.get('Server-Timing') ?? '' };
}

describe('GET /v3/conversations?include=', () => {
	it("carries the contact's name and the last message's first words, in the same statement count", async () => {
		const { token, conversationId } = await liveConversation();
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
		expect(row?.lastMessage).toEqual({ seq: 2, authorKind: 'operator', text: long.slice(0, 140) });
		const statements = (timing: string) => Number(/"(\d+) queries"/.exec(timing)?.[1]);
		expect(statements(full.timing)).toBe(statements(plain.timing));
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
