import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { QueryCounter, runBatch } from '../src/db/client';
import { addSpans, describeStatement, openTracedDatabase, timed, timingEntries } from '../src/db/server-timing';
import {
	api,
	db,
	seedConversation,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
	widgetApi,
} from './factories';

interface Entry {
	name: string;
	dur?: number;
	desc?: string;
}

/** The entries of a Server-Timing value, in order (no value here holds a comma or a quote). */
function parse(header: string | null): Entry[] {
	return (header ?? '').split(', ').map((entry) => {
		const [name = '', ...params] = entry.split(';');
		const parsed: Entry = { name };
		for (const param of params) {
			const [key, value = ''] = param.split('=');
			if (key === 'dur') parsed.dur = Number(value);
			if (key === 'desc') parsed.desc = value.replace(/^"|"$/g, '');
		}
		return parsed;
	});
}

const names = (entries: Entry[]) => entries.map((e) => e.name);

describe('GET /v3/conversations', () => {
	it('reports the token gate hop and its D1 statements with their durations, the hops and the total', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedConversation(workspaceId);
		const res = await api(token, 'GET', '/v3/conversations?limit=5');
		expect(res.status).toBe(200);
		const entries = parse(res.headers.get('Server-Timing'));
		expect(names(entries)).toEqual(['d1', 'token-gate', 'd1-1', 'd1-rows', 'hops', 'total']);
		// The gate's first sight of the token reads its row: counted with the page's statement.
		expect(entries[0]).toEqual({ name: 'd1', desc: '2 queries' });
		// The tag names come from a correlated subquery in the column list: the table read is still conversations.
		expect(entries[2]?.desc).toBe('select conversations');
		// The query builder reads through `raw`, whose answer does not say how many rows it read.
		expect(entries[3]?.desc).toBe('0+ read');
		for (const timedEntry of [entries[1], entries[2], entries[5]]) {
			expect(timedEntry?.dur).toBeGreaterThanOrEqual(0);
		}
		// The gate, then the page: two waits, one after the other.
		expect(entries[4]?.desc).toBe('2');
		const waited = (entries[1]?.dur ?? 0) + (entries[2]?.dur ?? 0);
		expect(entries[5]?.dur).toBeGreaterThanOrEqual(waited - 0.3);
		// The next request finds the token in the gate's memory: the page is its only statement.
		const again = parse((await api(token, 'GET', '/v3/conversations?limit=5')).headers.get('Server-Timing'));
		expect(again[0]).toEqual({ name: 'd1', desc: '1 queries' });
	});
});

describe("the widget's conversation routes", () => {
	it('read the session and whether the conversation is its contact’s in one statement, then the page', async () => {
		const { workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello there');
		const history = (session: string) =>
			widgetApi('GET', `/widget/${workspaceId}/conversations/${conversationId}/messages`, undefined, session);
		const res = await history(visitor.session);
		expect(res.status).toBe(200);
		// The session and the access check were two round trips to D1's primary before (docs/EDGE.md).
		expect(parse(res.headers.get('Server-Timing'))[0]).toEqual({ name: 'd1', desc: '2 queries' });
		// Another visitor's session is refused by the same statement, as if the conversation did not exist.
		const refused = await history((await startVisitor(workspaceId)).session);
		expect(refused.status).toBe(404);
	});
});

describe('POST /v3/messages', () => {
	it("times the send as one hop with the room's own waits inside, and keeps the D1 count of the Worker and the room", async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const res = await api(token, 'POST', '/v3/messages', { conversationId, text: 'secret-text-42' });
		expect(res.status).toBe(201);
		const header = res.headers.get('Server-Timing') ?? '';
		expect(names(parse(header))).toEqual([
			'd1',
			'token-gate',
			'post-message',
			// The room's own waits, as it returned them: its first use's import, its storage write, its D1 copy.
			'room-open',
			'room-stored',
			'room-d1',
			// No D1 round trip of its own (the room's are counted, not traced here): no rows entry.
			'hops',
			'total',
		]);
		expect(parse(header)[0]?.desc).toBe('5 queries');
		// Descriptions name statements, never what they carry.
		for (const value of [token, workspaceId, conversationId, 'secret-text-42']) expect(header).not.toContain(value);
	});
});

describe('the trace of a D1 handle', () => {
	const open = () => openTracedDatabase(env.DB, new QueryCounter());

	it('shows a batch as one round trip, and statements sent together as one hop', async () => {
		const traced = open();
		await runBatch(traced, [sql`SELECT 1`, sql`SELECT 2`]);
		await Promise.all([traced.run(sql`SELECT 3`), traced.run(sql`SELECT 4`)]);
		const entries = parse(timingEntries(traced).join(', '));
		expect(entries.map((e) => [e.name, e.desc])).toEqual([
			['d1-1', 'batch 2: select'],
			['d1-2', 'select'],
			['d1-3', 'select'],
			['d1-rows', '0 read'],
			['hops', '2'],
			['total', undefined],
		]);
	});

	it('adds named hops and the spans a Durable Object returned, which are not hops of their own', async () => {
		const traced = open();
		const answer = await timed(traced, 'room', Promise.resolve({ spans: { append: 0.4, 'd1 write': 5.1 } }));
		addSpans(traced, answer.spans, 'room');
		const entries = parse(timingEntries(traced).join(', '));
		expect(entries.slice(0, 3)).toEqual([
			{ name: 'room', dur: expect.any(Number) },
			{ name: 'room-append', dur: 0.4 },
			{ name: 'room-d1_write', dur: 5.1 },
		]);
		expect(entries[3]).toEqual({ name: 'hops', desc: '1' });
	});

	it('keeps the header to 20 entries, counting what it left out', async () => {
		const traced = open();
		for (let i = 0; i < 25; i++) await traced.run(sql`SELECT ${i}`);
		const entries = parse(timingEntries(traced).join(', '));
		expect(entries).toHaveLength(19);
		expect(entries.at(-4)).toEqual({ name: 'more', desc: '10 entries' });
		expect(entries.at(-3)).toEqual({ name: 'd1-rows', desc: '0 read' });
		expect(entries.at(-2)).toEqual({ name: 'hops', desc: '25' });
	});

	it('counts the rows D1 read for the statements that say', async () => {
		const { workspaceId } = await seedWorkspace();
		for (let i = 0; i < 3; i++) await seedConversation(workspaceId);
		const traced = open();
		await traced.all(sql`SELECT id FROM conversations WHERE workspace_id = ${workspaceId}`);
		await runBatch(traced, [sql`SELECT id FROM conversations WHERE workspace_id = ${workspaceId} LIMIT 2`]);
		const entries = parse(timingEntries(traced).join(', '));
		expect(entries.find((e) => e.name === 'd1-rows')).toEqual({ name: 'd1-rows', desc: '5 read' });
	});

	it('is a no-op on a handle opened without a trace', async () => {
		expect(await timed(db, 'ratelimit', Promise.resolve(7))).toBe(7);
		addSpans(db, { append: 1 });
		expect(timingEntries(db)).toEqual([]);
	});
});

describe('describeStatement', () => {
	const cases: Array<[string, string]> = [
		['select "id" from "api_tokens" inner join "operators" on 1 = 1', 'select api_tokens'],
		[
			'select (select json_group_array("name") from "tags") from "conversations" where "id" = ?',
			'select conversations',
		],
		['insert into "messages" ("id", "body") values (?, ?) on conflict do nothing', 'insert messages'],
		['update "conversations" set "status" = ? where "id" = ?', 'update conversations'],
		['DELETE FROM visitor_sessions WHERE id = ?', 'delete visitor_sessions'],
		['with recent as (select * from "events") select * from recent', 'with recent'],
		// A value written into the SQL never becomes the table, nor anything else shown.
		['select \'from secret\' from "contacts"', 'select contacts'],
		["select * from 'Robert''); drop'", 'select'],
		['SELECT 1', 'select'],
		['vacuum', 'sql'],
	];
	for (const [query, described] of cases) {
		it(`describes ${query}`, () => {
			expect(describeStatement(query)).toBe(described);
		});
	}
});
