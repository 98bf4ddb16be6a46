import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { inWorkspaceQuery } from '../src/lib/search-terms';
import { api, expectError, liveConversation, reply, seedWorkspace } from './factories';

interface Hit {
	conversation: { id: string; status: string; contact?: { id: string; name: string | null } };
	match:
		| { in: 'contact'; field: string; snippet: Array<{ text: string; match: boolean }> }
		| {
				in: 'message';
				messageId: string;
				seq: number;
				private: boolean;
				snippet: Array<{ text: string; match: boolean }>;
		  };
}

async function search(token: string, query: string): Promise<{ data: Hit[]; nextCursor: string | null }> {
	const res = await api(token, 'GET', `/v3/conversations/search?${query}`);
	expect(res.status, await res.clone().text()).toBe(200);
	return (await res.json()) as { data: Hit[]; nextCursor: string | null };
}

const q = (words: string) => `q=${encodeURIComponent(words)}`;
const messageHits = (hits: Hit[]) => hits.filter((h) => h.match.in === 'message');

describe('GET /v3/conversations/search', () => {
	it('finds a message by a word it said, with the message, its seq and the word marked', async () => {
		const { token, conversationId } = await liveConversation();
		await reply(token, conversationId, 'Your parcel left the warehouse yesterday');
		const said = await reply(token, conversationId, 'The refund of the blue tent is on its way');
		const { data } = await search(token, q('refund tent'));
		const hit = messageHits(data)[0];
		expect(hit?.conversation.id).toBe(conversationId);
		expect(hit?.match).toMatchObject({ in: 'message', messageId: said.id, seq: said.seq, private: false });
		const marked = hit?.match.snippet.filter((p) => p.match).map((p) => p.text);
		expect(marked).toEqual(['refund', 'tent']);
		expect(hit?.match.snippet.map((p) => p.text).join('')).toBe('The refund of the blue tent is on its way');
		// A word's start finds it too, as a person types.
		expect(
			messageHits((await search(token, q('refu'))).data).map((h) => h.match.in === 'message' && h.match.seq),
		).toEqual([said.seq]);
	});

	it("finds the team's private notes, and never another workspace's messages", async () => {
		const mine = await liveConversation();
		const other = await liveConversation();
		const note = await api(mine.token, 'POST', '/v3/messages', {
			conversationId: mine.conversationId,
			text: 'Customer is a wholesaler, check the xylophone order',
			private: true,
		});
		expect(note.status).toBe(201);
		await reply(other.token, other.conversationId, 'Another xylophone question');
		const found = messageHits((await search(mine.token, q('xylophone'))).data);
		expect(found.map((h) => h.conversation.id)).toEqual([mine.conversationId]);
		expect(found[0]?.match).toMatchObject({ private: true });
		const theirs = messageHits((await search(other.token, q('xylophone'))).data);
		expect(theirs.map((h) => h.conversation.id)).toEqual([other.conversationId]);
		// The index itself answers with one workspace's rows: the words alone match both messages, the
		// workspace's query only its own.
		const count = async (match: string) =>
			(
				await env.DB.prepare('SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?')
					.bind(match)
					.first<{ n: number }>()
			)?.n;
		expect(await count('body : "xylophone"*')).toBe(2);
		expect(await count(inWorkspaceQuery(other.workspaceId, ['xylophone']))).toBe(1);
		// A workspace's id is no word of its messages.
		expect(messageHits((await search(mine.token, q(mine.workspaceId))).data)).toEqual([]);
	});

	it('no longer finds a message once its row is gone or its text redacted', async () => {
		const { token, conversationId } = await liveConversation();
		const gone = await reply(token, conversationId, 'Temporary quokka password 1234');
		const redacted = await reply(token, conversationId, 'My card number is quokka 4111');
		expect(messageHits((await search(token, q('quokka'))).data)).toHaveLength(2);
		await env.DB.prepare('DELETE FROM messages WHERE id = ?').bind(gone.id).run();
		await env.DB.prepare("UPDATE messages SET body = '[redacted]' WHERE id = ?").bind(redacted.id).run();
		expect(messageHits((await search(token, q('quokka'))).data)).toEqual([]);
		expect(messageHits((await search(token, q('redacted'))).data)).toHaveLength(1);
	});

	it("applies the inbox's filters (status, assignee)", async () => {
		const { token, conversationId, visitor } = await liveConversation();
		await reply(token, conversationId, 'about the pelican');
		const { startVisitorConversation } = await import('./factories');
		const closed = await startVisitorConversation(visitor, 'another pelican here');
		expect((await api(token, 'PATCH', `/v3/conversations/${closed}`, { status: 'closed' })).status).toBe(200);
		const ids = async (query: string) => messageHits((await search(token, query)).data).map((h) => h.conversation.id);
		expect(new Set(await ids(q('pelican')))).toEqual(new Set([conversationId, closed]));
		expect(await ids(`${q('pelican')}&status=closed`)).toEqual([closed]);
		expect(await ids(`${q('pelican')}&status=open`)).toEqual([conversationId]);
		expect(await ids(`${q('pelican')}&assigneeId=none&status=open`)).toEqual([conversationId]);
	});

	it("finds a contact by name, e-mail, phone and the console's short id", async () => {
		const { token, conversationId } = await liveConversation();
		const contactId = (
			(await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json()) as {
				contactId: string;
			}
		).contactId;
		const field = async (query: string) =>
			(await search(token, q(query))).data.find((h) => h.match.in === 'contact')?.match as
				| { field: string; snippet: Array<{ text: string; match: boolean }> }
				| undefined;
		expect((await field(contactId.slice(-5)))?.field).toBe('shortId');
		await api(token, 'PATCH', `/v3/contacts/${contactId}`, {
			name: 'Ana Souza',
			email: 'ana.souza@example.com',
			phone: '+351912345678',
		});
		expect(await field('souza')).toMatchObject({ field: 'name' });
		expect((await field('souza'))?.snippet.filter((p) => p.match).map((p) => p.text)).toEqual(['Souza']);
		expect(await field('example.com')).toMatchObject({ field: 'email' });
		expect(await field('912345')).toMatchObject({ field: 'phone' });
		expect((await field(contactId.slice(-5).toLowerCase()))?.field).toBe('shortId');
		// A renamed contact is found by its new name only.
		await api(token, 'PATCH', `/v3/contacts/${contactId}`, { name: 'Bea Lima' });
		expect(await field('souza')).toMatchObject({ field: 'email' });
		expect(await field('lima')).toMatchObject({ field: 'name' });
	});

	it('pages the hits with a cursor, each once', async () => {
		const { token, conversationId } = await liveConversation();
		for (let i = 0; i < 5; i++) await reply(token, conversationId, `walrus number ${i}`);
		const first = await search(token, `${q('walrus')}&limit=2`);
		expect(first.data).toHaveLength(2);
		const seen = [...first.data];
		let cursor = first.nextCursor;
		while (cursor) {
			const next = await search(token, `${q('walrus')}&limit=2&cursor=${cursor}`);
			seen.push(...next.data);
			cursor = next.nextCursor;
		}
		const seqs = seen.map((h) => (h.match.in === 'message' ? h.match.seq : 0));
		expect(seqs).toEqual([6, 5, 4, 3, 2]);
	});

	it('treats hostile query syntax as text: results or 422, never a 500', async () => {
		const { token, conversationId } = await liveConversation();
		await reply(token, conversationId, 'He said "hello" NEAR the body: of it');
		const hostile = [
			'"',
			'"hello',
			'hello"',
			'he*',
			'*',
			'NEAR(hello body)',
			'body:hello',
			'hello OR',
			'AND',
			'NOT hello',
			'(hello',
			"'; DROP TABLE messages; --",
			'^hello',
			'hello + body - it',
			'{body}: hello',
			'\u0000hello',
			'\uE000hello\uE001',
		];
		for (const query of hostile) {
			const res = await api(token, 'GET', `/v3/conversations/search?${q(query)}`);
			expect([200, 422], `${query}: ${res.status}`).toContain(res.status);
		}
		const found = await search(token, q('"hello" NEAR body:'));
		expect(messageHits(found.data)).toHaveLength(1);
		expect(messageHits((await search(token, q('"hello'))).data)).toHaveLength(1);
	});

	it('refuses an empty, wordless or too long query with a 422', async () => {
		const { token } = await seedWorkspace();
		for (const query of ['', '   ', '"*"', `${'a'.repeat(201)}`]) {
			await expectError(await api(token, 'GET', `/v3/conversations/search?${q(query)}`), 422);
		}
		await expectError(await api(token, 'GET', '/v3/conversations/search'), 422);
		await expectError(await api(token, 'GET', `/v3/conversations/search?${q('x')}&cursor=nope`), 422);
	});

	it('needs conversations:read', async () => {
		const { workspaceId } = await seedWorkspace();
		const { seedOperator } = await import('./factories');
		const sender = await seedOperator(workspaceId, ['messages:send']);
		await expectError(await api(sender.token, 'GET', `/v3/conversations/search?${q('refund')}`), 403);
	});
});

describe('the search indexes', () => {
	it('are read through FTS5, never by a scan of messages or contacts', async () => {
		const plan = async (sql: string) =>
			(
				await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
					.bind(inWorkspaceQuery('ws_x', ['refund']), 'ws_x')
					.all<{ detail: string }>()
			).results.map((r) => r.detail);
		const messages =
			await plan(`SELECT messages.id FROM messages_fts JOIN messages ON messages.rowid = messages_fts.rowid
			JOIN conversations ON conversations.id = messages.conversation_id
			WHERE messages_fts MATCH ?1 AND messages.workspace_id = ?2 ORDER BY messages_fts.rowid DESC LIMIT 21`);
		expect(messages[0]).toMatch(/SCAN messages_fts VIRTUAL TABLE INDEX/);
		expect(messages.join('\n')).not.toMatch(/SCAN messages\b|SCAN conversations\b/);
		expect(messages.join('\n')).not.toMatch(/TEMP B-TREE/);
		const contacts =
			await plan(`SELECT conversations.id FROM contacts_fts JOIN contacts ON contacts.rowid = contacts_fts.rowid
			JOIN conversations ON conversations.workspace_id = contacts.workspace_id AND conversations.contact_id = contacts.id
			WHERE contacts_fts MATCH ?1 AND contacts.workspace_id = ?2 ORDER BY contacts_fts.rowid DESC, conversations.id DESC LIMIT 21`);
		expect(contacts[0]).toMatch(/SCAN contacts_fts VIRTUAL TABLE INDEX/);
		expect(contacts.join('\n')).not.toMatch(/SCAN contacts\b|SCAN conversations\b/);
	});
});
