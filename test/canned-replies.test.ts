import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MAX_CANNED_REPLIES } from '../src/domain/conversations/canned-replies';
import { api, documentedAnswer, expectError, seedOperator, seedWorkspace } from './factories';

interface CannedReply {
	id: string;
	shortcut: string;
	title: string | null;
	text: string;
	authorId: string;
	createdAt: string;
	updatedAt: string;
}

async function save(token: string, body: Record<string, unknown>): Promise<CannedReply> {
	const res = await api(token, 'POST', '/v3/canned-replies', body);
	expect(res.status, await res.clone().text()).toBe(201);
	return (await res.json()) as CannedReply;
}

async function shortcuts(token: string, query = ''): Promise<string[]> {
	const res = await api(token, 'GET', `/v3/canned-replies${query}`);
	expect(res.status).toBe(200);
	return ((await res.json()) as { data: CannedReply[] }).data.map((r) => r.shortcut);
}

async function eventTypes(workspaceId: string): Promise<string[]> {
	const rows = await env.DB.prepare(
		"SELECT type FROM events WHERE workspace_id = ? AND type LIKE 'canned_reply.%' ORDER BY occurred_at, id",
	)
		.bind(workspaceId)
		.all<{ type: string }>();
	return rows.results.map((r) => r.type);
}

describe('/v3/canned-replies', () => {
	it('saves, lists by shortcut (filtered, paged), reads, changes and deletes a reply, announcing each change', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const refund = await save(token, { shortcut: 'refund', title: 'Refund policy', text: 'Refunds take 5 days.' });
		expect(refund).toMatchObject({ shortcut: 'refund', title: 'Refund policy', authorId: operatorId });
		expect(refund.id).toMatch(/^cr_/);
		await save(token, { shortcut: 'hello', text: 'Hi {{ contact.name | default: "there" }}!' });
		await save(token, { shortcut: 'refund-late', text: 'Sorry for the delay.' });
		expect(await shortcuts(token)).toEqual(['hello', 'refund', 'refund-late']);
		// What the composer typed after `/`: a shortcut's start, or a word of the title or text, in any case.
		expect(await shortcuts(token, '?q=ref')).toEqual(['refund', 'refund-late']);
		expect(await shortcuts(token, '?q=DELAY')).toEqual(['refund-late']);
		expect(await shortcuts(token, '?q=policy')).toEqual(['refund']);
		expect(await shortcuts(token, '?q=50%25')).toEqual([]);
		const page = (await (await api(token, 'GET', '/v3/canned-replies?limit=2')).json()) as { nextCursor: string };
		expect(await shortcuts(token, `?limit=2&cursor=${page.nextCursor}`)).toEqual(['refund-late']);
		const got = (await (await api(token, 'GET', `/v3/canned-replies/${refund.id}`)).json()) as CannedReply;
		expect(got).toEqual(refund);
		const changed = await api(token, 'PATCH', `/v3/canned-replies/${refund.id}`, { shortcut: 'refunds', title: null });
		expect(changed.status).toBe(200);
		const after = (await changed.json()) as CannedReply;
		expect(after).toMatchObject({ shortcut: 'refunds', title: null, text: 'Refunds take 5 days.' });
		expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(refund.updatedAt));
		// A change to what it already is changes nothing and announces nothing.
		expect((await api(token, 'PATCH', `/v3/canned-replies/${refund.id}`, { shortcut: 'refunds' })).status).toBe(200);
		expect((await api(token, 'DELETE', `/v3/canned-replies/${refund.id}`)).status).toBe(204);
		await expectError(await api(token, 'GET', `/v3/canned-replies/${refund.id}`), 404);
		await expect
			.poll(() => eventTypes(workspaceId))
			.toEqual([
				'canned_reply.created',
				'canned_reply.created',
				'canned_reply.created',
				'canned_reply.updated',
				'canned_reply.deleted',
			]);
		const updated = await env.DB.prepare(
			"SELECT payload FROM events WHERE workspace_id = ? AND type = 'canned_reply.updated'",
		)
			.bind(workspaceId)
			.first<{ payload: string }>();
		expect(JSON.parse(updated?.payload ?? '{}')).toMatchObject({
			changed: ['shortcut', 'title'],
			changes: { shortcut: { from: 'refund', to: 'refunds' }, title: { from: 'Refund policy', to: null } },
		});
	});

	it('refuses a shortcut taken in the workspace (409), and allows it in another', async () => {
		const { token } = await seedWorkspace();
		const other = await seedWorkspace();
		await save(token, { shortcut: 'thanks', text: 'Thank you!' });
		const again = await api(token, 'POST', '/v3/canned-replies', { shortcut: 'thanks', text: 'Thanks again' });
		expect((await expectError(again, 409)).message).toContain('/thanks');
		const bye = await save(token, { shortcut: 'bye', text: 'Bye!' });
		await expectError(await api(token, 'PATCH', `/v3/canned-replies/${bye.id}`, { shortcut: 'thanks' }), 409);
		await save(other.token, { shortcut: 'thanks', text: 'Obrigado!' });
		expect(await shortcuts(token)).toEqual(['bye', 'thanks']);
	});

	it('refuses a broken template and a bad shortcut with a 422 naming the field, and keeps what was there', async () => {
		const { token } = await seedWorkspace();
		const broken = await api(token, 'POST', '/v3/canned-replies', { shortcut: 'hi', text: 'Hi {{ contact.name ' });
		expect((await expectError(broken, 422)).message).toMatch(/^json\.text: not a valid template: /);
		const unknownFilter = await api(token, 'POST', '/v3/canned-replies', {
			shortcut: 'hi',
			text: 'Hi {{ contact.name | shout }}',
		});
		expect((await expectError(unknownFilter, 422)).message).toContain('json.text');
		for (const bad of ['Hello', 'two words', '', 'x'.repeat(33), '/slash']) {
			const res = await api(token, 'POST', '/v3/canned-replies', { shortcut: bad, text: 'Hi' });
			expect((await expectError(res, 422)).message).toContain('json.shortcut');
		}
		await expectError(await api(token, 'POST', '/v3/canned-replies', { shortcut: 'hi', text: '   ' }), 422);
		await expectError(await api(token, 'POST', '/v3/canned-replies', { shortcut: 'hi', text: 'Hi', extra: 1 }), 422);
		expect(await shortcuts(token)).toEqual([]);
		const hi = await save(token, { shortcut: 'hi', text: 'Hi {{ contact.name }}' });
		const patch = await api(token, 'PATCH', `/v3/canned-replies/${hi.id}`, { text: '{% if %}' });
		expect((await expectError(patch, 422)).message).toContain('json.text');
		await expectError(await api(token, 'PATCH', `/v3/canned-replies/${hi.id}`, {}), 422);
		const kept = (await (await api(token, 'GET', `/v3/canned-replies/${hi.id}`)).json()) as CannedReply;
		expect(kept.text).toBe('Hi {{ contact.name }}');
	});

	it('lets readers read, senders save, and only the author or an admin change or delete (403)', async () => {
		const { workspaceId, token: admin } = await seedWorkspace();
		const author = await seedOperator(workspaceId, ['conversations:read', 'messages:send']);
		const colleague = await seedOperator(workspaceId, ['conversations:read', 'messages:send']);
		const reader = await seedOperator(workspaceId, ['conversations:read']);
		const sendOnly = await seedOperator(workspaceId, ['messages:send']);
		const mine = await save(author.token, { shortcut: 'mine', text: 'Mine' });
		expect(await shortcuts(reader.token)).toEqual(['mine']);
		await expectError(await api(reader.token, 'POST', '/v3/canned-replies', { shortcut: 'r', text: 'R' }), 403);
		await expectError(await api(sendOnly.token, 'GET', '/v3/canned-replies'), 403);
		await save(sendOnly.token, { shortcut: 'blind', text: 'Saved without reading' });
		const taken = await api(colleague.token, 'PATCH', `/v3/canned-replies/${mine.id}`, { text: 'Hijacked' });
		const refusal = await expectError(taken, 403);
		expect(refusal.message).toContain('author');
		// The document states this refusal besides the permission's, as the server words it.
		for (const method of ['PATCH', 'DELETE']) {
			const documented = await documentedAnswer(method, '/v3/canned-replies/{id}', 403);
			expect(documented.description).toContain('author nor an admin');
			expect(documented.description).toContain('lacks the permission');
			expect(documented.message).toBe(refusal.message);
		}
		await expectError(await api(colleague.token, 'DELETE', `/v3/canned-replies/${mine.id}`), 403);
		await expectError(await api(reader.token, 'DELETE', `/v3/canned-replies/${mine.id}`), 403);
		const own = await api(author.token, 'PATCH', `/v3/canned-replies/${mine.id}`, { text: 'Still mine' });
		expect(own.status).toBe(200);
		expect((await api(admin, 'PATCH', `/v3/canned-replies/${mine.id}`, { title: 'Checked' })).status).toBe(200);
		const kept = (await (await api(reader.token, 'GET', `/v3/canned-replies/${mine.id}`)).json()) as CannedReply;
		expect(kept).toMatchObject({ text: 'Still mine', title: 'Checked', authorId: author.operatorId });
		expect((await api(admin, 'DELETE', `/v3/canned-replies/${mine.id}`)).status).toBe(204);
	});

	it('answers 404 for a reply of another workspace, whatever the method', async () => {
		const { token } = await seedWorkspace();
		const stranger = await seedWorkspace();
		const theirs = await save(stranger.token, { shortcut: 'secret', text: 'Theirs' });
		const path = `/v3/canned-replies/${theirs.id}`;
		await expectError(await api(token, 'GET', path), 404);
		await expectError(await api(token, 'PATCH', path, { text: 'Mine now' }), 404);
		await expectError(await api(token, 'DELETE', path), 404);
		await expectError(await api(token, 'POST', `${path}/render`, { conversationId: 'conv_x' }), 404);
		expect(await shortcuts(token)).toEqual([]);
		const kept = (await (await api(stranger.token, 'GET', path)).json()) as CannedReply;
		expect(kept.text).toBe('Theirs');
	});

	it(`keeps at most ${MAX_CANNED_REPLIES} replies in a workspace (409 past it)`, async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const now = Date.now();
		// All but one written straight to D1: five hundred requests would spend the token's rate limit.
		await env.DB.prepare(
			`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
			INSERT INTO canned_replies (id, workspace_id, shortcut, title, text, author_id, created_at, updated_at)
			SELECT 'cr_seed_' || ? || '_' || i, ?, 'seed-' || i, NULL, 'Seeded', ?, ?, ? FROM n`,
		)
			.bind(MAX_CANNED_REPLIES - 1, workspaceId, workspaceId, operatorId, now, now)
			.run();
		await save(token, { shortcut: 'last', text: 'The last one' });
		const over = await api(token, 'POST', '/v3/canned-replies', { shortcut: 'one-more', text: 'Too many' });
		expect((await expectError(over, 409)).message).toContain(String(MAX_CANNED_REPLIES));
		const count = await env.DB.prepare('SELECT count(*) AS n FROM canned_replies WHERE workspace_id = ?')
			.bind(workspaceId)
			.first<{ n: number }>();
		expect(count?.n).toBe(MAX_CANNED_REPLIES);
	});
});

describe('POST /v3/canned-replies/{id}/render', () => {
	it('renders the reply for the conversation’s contact and the calling operator', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const started = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'ana@example.com', name: 'Ana' },
		});
		const { id: conversationId } = (await started.json()) as { id: string };
		await env.DB.prepare('UPDATE operators SET name = ? WHERE workspace_id = ?').bind('Bia', workspaceId).run();
		const reply = await save(token, {
			shortcut: 'greet',
			text: 'Hi {{ contact.name | default: "there" }} ({{ contact.email }}), {{ agent.name }} here. ',
		});
		const res = await api(token, 'POST', `/v3/canned-replies/${reply.id}/render`, { conversationId });
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ text: 'Hi Ana (ana@example.com), Bia here.' });
		const reader = await seedOperator(workspaceId, ['conversations:read']);
		const asReader = await api(reader.token, 'POST', `/v3/canned-replies/${reply.id}/render`, { conversationId });
		expect(((await asReader.json()) as { text: string }).text).toBe('Hi Ana (ana@example.com), Operator here.');
		const stranger = await seedWorkspace();
		const foreign = await api(stranger.token, 'POST', '/v3/conversations', { contact: { email: 'x@example.com' } });
		const { id: theirConversation } = (await foreign.json()) as { id: string };
		const refused = await api(token, 'POST', `/v3/canned-replies/${reply.id}/render`, {
			conversationId: theirConversation,
		});
		expect((await expectError(refused, 422)).message).toContain('json.conversationId');
		const noPermission = await seedOperator(workspaceId, ['messages:send']);
		await expectError(
			await api(noPermission.token, 'POST', `/v3/canned-replies/${reply.id}/render`, { conversationId }),
			403,
		);
	});

	it('refuses a reply whose text would pass a message’s length, at its text, while it renders', async () => {
		const { token } = await seedWorkspace();
		const started = await api(token, 'POST', '/v3/conversations', { contact: { email: 'ana@example.com' } });
		const { id: conversationId } = (await started.json()) as { id: string };
		// 5 KB of template, 100,000 characters of text: the message limit is 10,000.
		const reply = await save(token, {
			shortcut: 'flood',
			text: `{% for i in (1..1000) %}${'x'.repeat(100)}{% endfor %}${'y'.repeat(4_900)}`,
		});
		const res = await api(token, 'POST', `/v3/canned-replies/${reply.id}/render`, { conversationId });
		const body = await expectError(res, 422);
		expect(body.message).toBe('json.text: the reply does not render: the output is longer than 10000 characters');
	});
});
