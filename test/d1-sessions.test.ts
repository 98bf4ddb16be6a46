import { describe, expect, it } from 'vitest';
import { BOOKMARK_HEADER, mayReadReplica, openRequestSessions, parseBookmark } from '../src/db/sessions';
import { api, seedConversation, seedWorkspace } from './factories';

// The shape D1 hands out (locally and in the Time Travel documentation): four groups of hex digits.
const SHAPE = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

describe('x-d1-bookmark on /v3', () => {
	it('answers a GET with a bookmark, and one sent back is accepted and never moves the answer backwards', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedConversation(workspaceId);
		const first = await api(token, 'GET', '/v3/conversations?limit=5');
		expect(first.status).toBe(200);
		const bookmark = first.headers.get(BOOKMARK_HEADER) ?? '';
		expect(bookmark).toMatch(SHAPE);
		const again = await api(token, 'GET', '/v3/conversations?limit=5', undefined, { [BOOKMARK_HEADER]: bookmark });
		expect(again.status).toBe(200);
		expect((again.headers.get(BOOKMARK_HEADER) ?? '') >= bookmark).toBe(true);
	});

	it('answers a write with its bookmark, and a read sent with it sees the write', async () => {
		const { token } = await seedWorkspace();
		const before = (await api(token, 'GET', '/v3/tags')).headers.get(BOOKMARK_HEADER) ?? '';
		const created = await api(token, 'POST', '/v3/tags', { name: 'vip' }, { [BOOKMARK_HEADER]: before });
		expect(created.status).toBe(201);
		const written = created.headers.get(BOOKMARK_HEADER) ?? '';
		expect(written).toMatch(SHAPE);
		expect(written > before).toBe(true);
		const list = await api(token, 'GET', '/v3/tags', undefined, { [BOOKMARK_HEADER]: written });
		expect(list.status).toBe(200);
		expect(((await list.json()) as { data: { name: string }[] }).data.map((t) => t.name)).toContain('vip');
		expect((list.headers.get(BOOKMARK_HEADER) ?? '') >= written).toBe(true);
	});

	it("answers POST /v3/messages with the room's write's bookmark, which the next read of the messages passes", async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const before = (await api(token, 'GET', '/v3/conversations')).headers.get(BOOKMARK_HEADER) ?? '';
		// The request itself sends no statement (the gate and the room do): the bookmark is the room's.
		const sent = await api(
			token,
			'POST',
			'/v3/messages',
			{ conversationId, text: 'hello' },
			{ [BOOKMARK_HEADER]: before },
		);
		expect(sent.status).toBe(201);
		const written = sent.headers.get(BOOKMARK_HEADER) ?? '';
		expect(written).toMatch(SHAPE);
		expect(written > before).toBe(true);
		const page = await api(token, 'GET', `/v3/conversations/${conversationId}/messages`, undefined, {
			[BOOKMARK_HEADER]: written,
		});
		expect(((await page.json()) as { data: { text: string }[] }).data.map((m) => m.text)).toContain('hello');
		// A read receipt is the room's write too.
		const read = await api(
			token,
			'POST',
			`/v3/conversations/${conversationId}/read`,
			{ seq: 2 },
			{
				[BOOKMARK_HEADER]: written,
			},
		);
		expect(read.status).toBe(200);
		expect((read.headers.get(BOOKMARK_HEADER) ?? '') > written).toBe(true);
	});

	it('answers POST /v3/conversations with a first message with a bookmark the message is read with', async () => {
		const { token } = await seedWorkspace();
		const started = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'ana@example.com' },
			message: { text: 'first words' },
		});
		expect(started.status).toBe(201);
		const { id } = (await started.json()) as { id: string };
		const written = started.headers.get(BOOKMARK_HEADER) ?? '';
		expect(written).toMatch(SHAPE);
		const page = await api(token, 'GET', `/v3/conversations/${id}/messages`, undefined, { [BOOKMARK_HEADER]: written });
		expect(((await page.json()) as { data: { text: string }[] }).data.map((m) => m.text)).toEqual(['first words']);
	});

	it('ignores a malformed bookmark: the request is answered, with a bookmark of its own', async () => {
		const { token } = await seedWorkspace();
		for (const bad of ['not a bookmark', `${'0'.repeat(8)}-${'f'.repeat(100)}`, '"00000000"', 'ffff-zz']) {
			const res = await api(token, 'GET', '/v3/tags', undefined, { [BOOKMARK_HEADER]: bad });
			expect(res.status, bad).toBe(200);
			expect(res.headers.get(BOOKMARK_HEADER), bad).toMatch(SHAPE);
		}
	});
});

describe('parseBookmark', () => {
	it.each([
		['00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683', true],
		['00000000-00000001-00000000-00000000000000000000000000000000', true],
		['', false],
		['first-primary', false],
		['0000-', false],
		[`${'a'.repeat(50)}-${'b'.repeat(50)}`, false],
		['00000000 00000001', false],
	])('%s: kept %s', (header, kept) => {
		expect(parseBookmark(header) !== null).toBe(kept);
	});
});

describe('mayReadReplica', () => {
	const request = (method: string, path: string, headers: Record<string, string> = {}) =>
		new Request(`https://parley.example${path}`, { method, headers });
	it.each([
		['GET', '/v3/conversations', {}, true],
		['HEAD', '/v3/reports/conversations', {}, true],
		['POST', '/v3/messages', {}, false],
		['PATCH', '/v3/conversations/cnv_1', {}, false],
		['GET', '/v3/live', { Upgrade: 'websocket' }, false],
		['GET', '/v3/conversations/cnv_1/live', { Upgrade: 'WebSocket' }, false],
		['GET', '/widget/ws_1/config', {}, false],
		['GET', '/mail/stop/abc', {}, false],
	])('%s %s %j: %s', (method, path, headers, replica) => {
		expect(mayReadReplica(request(method, path, headers))).toBe(replica);
	});
});

/** A stand-in binding that records the sessions opened and fails the queries of a session D1 "cannot serve". */
function fakeBinding(refused: (constraint: string) => boolean, failure = 'D1_ERROR: bookmark is too old') {
	const opened: string[] = [];
	let version = 5;
	const binding = {
		withSession(constraint = 'first-unconstrained') {
			opened.push(constraint);
			let seen: string | null = constraint.startsWith('first-') ? null : constraint;
			const answer = async () => {
				if (refused(constraint)) throw new Error(failure);
				version++;
				seen = `00000000-${String(version).padStart(8, '0')}-00000000-${'0'.repeat(32)}`;
				return { results: [], success: true, meta: {} };
			};
			const statement = { bind: () => statement, all: answer, run: answer, first: answer, raw: answer };
			return { prepare: () => statement, batch: answer, getBookmark: () => seen };
		},
	};
	return { binding: binding as unknown as D1Database, opened };
}

describe('openRequestSessions', () => {
	const sent = '00000000-00000003-00000000-00000000000000000000000000000000';
	const get = (bookmark?: string) =>
		new Request('https://parley.example/v3/tags', { headers: bookmark ? { [BOOKMARK_HEADER]: bookmark } : {} });

	it('reads a GET through one session from the client bookmark, or first-unconstrained without one', async () => {
		for (const [request, constraint] of [
			[get(sent), sent],
			[get(), 'first-unconstrained'],
			[get('garbage!'), 'first-unconstrained'],
		] as const) {
			const { binding, opened } = fakeBinding(() => false);
			const sessions = openRequestSessions(() => binding, request);
			await sessions.d1.prepare('select 1').all();
			await sessions.d1.prepare('select 2').bind(1).all();
			expect(opened).toEqual([constraint]);
			expect(sessions.bookmark()).toMatch(/^00000000-00000007-/);
		}
	});

	it('runs each statement and batch of a write in a first-primary session of its own', async () => {
		const { binding, opened } = fakeBinding(() => false);
		const post = new Request('https://parley.example/v3/tags', {
			method: 'POST',
			headers: { [BOOKMARK_HEADER]: sent },
		});
		const sessions = openRequestSessions(() => binding, post);
		expect(sessions.bookmark()).toBe(sent);
		await sessions.d1.prepare('select 1').first();
		await sessions.d1.batch([sessions.d1.prepare('insert 1'), sessions.d1.prepare('insert 2')]);
		expect(opened).toEqual(['first-primary', 'first-primary']);
		expect(sessions.bookmark()).toMatch(/^00000000-00000007-/);
	});

	it('retries once on the primary when D1 refuses the bookmark, and hands back the primary one', async () => {
		const { binding, opened } = fakeBinding((constraint) => constraint === sent);
		const sessions = openRequestSessions(() => binding, get(sent));
		await expect(sessions.d1.prepare('select 1').all()).resolves.toMatchObject({ success: true });
		await sessions.d1.prepare('select 2').all();
		expect(opened).toEqual([sent, 'first-primary']);
		expect(sessions.bookmark()).toMatch(/^00000000-00000007-/);
	});

	it("sends the statements after routeRequest to the workspace's database, the ones before to the directory", async () => {
		const directory = fakeBinding(() => false);
		const shard = fakeBinding(() => false);
		const asked: (string | null)[] = [];
		const sessions = openRequestSessions((workspaceId) => {
			asked.push(workspaceId);
			return workspaceId === 'ws_2' ? shard.binding : directory.binding;
		}, get(sent));
		await sessions.d1.prepare('select 1').all();
		sessions.route('ws_2');
		await sessions.d1.prepare('select 2').all();
		await sessions.d1.batch([sessions.d1.prepare('select 3')]);
		expect(asked).toEqual([null, 'ws_2', 'ws_2']);
		// One session on each database, each from the client's bookmark (the shard's kept for the rest).
		expect(directory.opened).toEqual([sent]);
		expect(shard.opened).toEqual([sent]);
	});

	it('does not retry an error that is not about the bookmark', async () => {
		const { binding, opened } = fakeBinding(() => true, 'D1_ERROR: no such table: tagz');
		const sessions = openRequestSessions(() => binding, get(sent));
		await expect(sessions.d1.prepare('select 1').all()).rejects.toThrow('no such table');
		expect(opened).toEqual([sent]);
	});
});
