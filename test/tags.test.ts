import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { tags } from '../src/db/schema';
import { newId } from '../src/lib/ids';
import { api, db, expectError, seedConversation, seedOperator, seedWorkspace } from './factories';

interface Tag {
	id: string;
	name: string;
}

/** The tag events recorded in the workspace (through the events Queue and its consumer), oldest first. */
async function tagEvents(workspaceId: string) {
	const { results } = await env.DB.prepare(
		"SELECT type, payload FROM events WHERE workspace_id = ? AND type LIKE 'tag.%' ORDER BY occurred_at, id",
	)
		.bind(workspaceId)
		.all<{ type: string; payload: string }>();
	return results.map((r) => {
		const payload = JSON.parse(r.payload) as { tag: Tag; target?: { kind: string; id: string } };
		return `${r.type} ${payload.tag.name}${payload.target ? ` ${payload.target.kind}:${payload.target.id}` : ''}`;
	});
}

async function newContact(token: string, name = 'Ada'): Promise<string> {
	const res = await api(token, 'POST', '/v3/contacts', { name });
	expect(res.status).toBe(201);
	return ((await res.json()) as { id: string }).id;
}

async function contactTags(token: string, id: string): Promise<string[]> {
	return ((await (await api(token, 'GET', `/v3/contacts/${id}`)).json()) as { tags: string[] }).tags;
}

async function conversationTags(token: string, id: string): Promise<string[]> {
	return ((await (await api(token, 'GET', `/v3/conversations/${id}`)).json()) as { tags: string[] }).tags;
}

describe('/v3/tags', () => {
	it('creates, renames and deletes a tag, refusing a taken name, with an event each', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const created = await api(token, 'POST', '/v3/tags', { name: ' vip ' });
		expect(created.status).toBe(201);
		const tag = (await created.json()) as Tag;
		expect(tag.name).toBe('vip');
		await expectError(await api(token, 'POST', '/v3/tags', { name: 'vip' }), 409);
		await api(token, 'POST', '/v3/tags', { name: 'billing' });
		await expectError(await api(token, 'PATCH', `/v3/tags/${tag.id}`, { name: 'billing' }), 409);
		const renamed = await api(token, 'PATCH', `/v3/tags/${tag.id}`, { name: 'priority' });
		expect(await renamed.json()).toMatchObject({ id: tag.id, name: 'priority' });
		expect((await api(token, 'DELETE', `/v3/tags/${tag.id}`)).status).toBe(204);
		await expectError(await api(token, 'GET', `/v3/tags/${tag.id}`), 404);
		await expect
			.poll(() => tagEvents(workspaceId))
			.toEqual(['tag.created vip', 'tag.created billing', 'tag.updated priority', 'tag.deleted priority']);
	});

	it('pages 150 tags in name order, each once', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const names = Array.from({ length: 150 }, (_, i) => `tag-${String(i).padStart(3, '0')}`);
		// Straight to D1: 150 creations through the API would spend the token's rate limit.
		const now = Date.now();
		const rows = [...names].reverse().map((name) => ({ id: newId('tag'), workspaceId, name, createdAt: now }));
		for (let i = 0; i < rows.length; i += 20) await db.insert(tags).values(rows.slice(i, i + 20));
		const first = (await (await api(token, 'GET', '/v3/tags')).json()) as { data: Tag[]; nextCursor: string };
		expect(first.data).toHaveLength(100);
		const second = (await (await api(token, 'GET', `/v3/tags?cursor=${first.nextCursor}`)).json()) as {
			data: Tag[];
			nextCursor: string | null;
		};
		expect(second.nextCursor).toBeNull();
		expect([...first.data, ...second.data].map((t) => t.name)).toEqual(names);
	});

	it('takes a deleted tag off every contact and conversation', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const contactId = await newContact(token);
		const conversationId = await seedConversation(workspaceId);
		const tag = (await (await api(token, 'PUT', `/v3/contacts/${contactId}/tags/vip`)).json()) as Tag;
		expect((await api(token, 'PUT', `/v3/conversations/${conversationId}/tags/vip`)).status).toBe(200);
		expect((await api(token, 'DELETE', `/v3/tags/${tag.id}`)).status).toBe(204);
		expect(await contactTags(token, contactId)).toEqual([]);
		expect(await conversationTags(token, conversationId)).toEqual([]);
	});
});

describe('applying and removing tags', () => {
	it('applies a tag to a contact once, creating it, and announces only real changes', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const id = await newContact(token);
		for (let i = 0; i < 2; i++) {
			const res = await api(token, 'PUT', `/v3/contacts/${id}/tags/vip`);
			expect(res.status).toBe(200);
			expect(await res.json()).toMatchObject({ name: 'vip' });
		}
		expect(await contactTags(token, id)).toEqual(['vip']);
		for (let i = 0; i < 2; i++) expect((await api(token, 'DELETE', `/v3/contacts/${id}/tags/vip`)).status).toBe(204);
		expect(await contactTags(token, id)).toEqual([]);
		// A name no tag has: nothing to take off.
		expect((await api(token, 'DELETE', `/v3/contacts/${id}/tags/unknown`)).status).toBe(204);
		await expect
			.poll(() => tagEvents(workspaceId))
			.toEqual([`tag.applied vip contact:${id}`, `tag.removed vip contact:${id}`]);
	});

	it('applies 10 concurrent identical tags once: one tag, one tag.applied', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const id = await newContact(token);
		const answers = await Promise.all(
			Array.from({ length: 10 }, () => api(token, 'PUT', `/v3/contacts/${id}/tags/vip`)),
		);
		expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
		const list = (await (await api(token, 'GET', '/v3/tags')).json()) as { data: Tag[] };
		expect(list.data.map((t) => t.name)).toEqual(['vip']);
		await expect.poll(() => tagEvents(workspaceId)).toEqual([`tag.applied vip contact:${id}`]);
	});

	it("announces a conversation PATCH's added and removed tags as tag.applied and tag.removed", async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		await api(token, 'PUT', `/v3/conversations/${conversationId}/tags/billing`);
		const res = await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { tags: ['vip', 'shipping'] });
		expect(res.status).toBe(200);
		expect(await conversationTags(token, conversationId)).toEqual(['shipping', 'vip']);
		const target = `conversation:${conversationId}`;
		await expect
			.poll(async () => (await tagEvents(workspaceId)).sort())
			.toEqual(
				[
					`tag.applied billing ${target}`,
					`tag.applied shipping ${target}`,
					`tag.applied vip ${target}`,
					`tag.removed billing ${target}`,
				].sort(),
			);
	});

	it("moves a conversation's update time only when a tag change changed it, and announces a start's tags", async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId, {}, Date.now() - 60_000);
		const updatedAt = async () =>
			((await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json()) as { updatedAt: string })
				.updatedAt;
		const before = await updatedAt();
		await api(token, 'PUT', `/v3/conversations/${conversationId}/tags/vip`);
		const applied = await updatedAt();
		expect(applied > before).toBe(true);
		// Already carried: nothing moves.
		await api(token, 'PUT', `/v3/conversations/${conversationId}/tags/vip`);
		expect(await updatedAt()).toBe(applied);
		// The same set again through PATCH: no tag event either.
		await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { tags: ['vip', ' vip '] });
		const started = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'ada@example.com' },
			tags: ['billing'],
		});
		const startedId = ((await started.json()) as { id: string }).id;
		await expect
			.poll(() => tagEvents(workspaceId))
			.toEqual([`tag.applied vip conversation:${conversationId}`, `tag.applied billing conversation:${startedId}`]);
	});

	it('answers 404 for a contact, conversation or tag of another workspace, and changes nothing there', async () => {
		const mine = await seedWorkspace();
		const theirs = await seedWorkspace();
		const contactId = await newContact(theirs.token);
		const conversationId = await seedConversation(theirs.workspaceId);
		const tag = (await (await api(theirs.token, 'PUT', `/v3/contacts/${contactId}/tags/vip`)).json()) as Tag;
		await expectError(await api(mine.token, 'PUT', `/v3/contacts/${contactId}/tags/x`), 404);
		await expectError(await api(mine.token, 'DELETE', `/v3/contacts/${contactId}/tags/vip`), 404);
		await expectError(await api(mine.token, 'PUT', `/v3/conversations/${conversationId}/tags/x`), 404);
		await expectError(await api(mine.token, 'GET', `/v3/tags/${tag.id}`), 404);
		await expectError(await api(mine.token, 'PATCH', `/v3/tags/${tag.id}`, { name: 'mine' }), 404);
		await expectError(await api(mine.token, 'DELETE', `/v3/tags/${tag.id}`), 404);
		expect(await contactTags(theirs.token, contactId)).toEqual(['vip']);
		const theirList = (await (await api(theirs.token, 'GET', '/v3/tags')).json()) as { data: Tag[] };
		expect(theirList.data.map((t) => t.name)).toEqual(['vip']);
		const mineList = (await (await api(mine.token, 'GET', '/v3/tags')).json()) as { data: Tag[] };
		expect(mineList.data).toEqual([]);
	});

	it('needs contacts:write for tags and contact tags, messages:send for conversation tags', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const contactId = await newContact(token);
		const conversationId = await seedConversation(workspaceId);
		const sender = await seedOperator(workspaceId, ['conversations:read', 'messages:send']);
		await expectError(await api(sender.token, 'POST', '/v3/tags', { name: 'vip' }), 403);
		await expectError(await api(sender.token, 'PUT', `/v3/contacts/${contactId}/tags/vip`), 403);
		expect((await api(sender.token, 'PUT', `/v3/conversations/${conversationId}/tags/vip`)).status).toBe(200);
		expect((await api(sender.token, 'GET', '/v3/tags')).status).toBe(200);
		const writer = await seedOperator(workspaceId, ['contacts:write']);
		await expectError(await api(writer.token, 'PUT', `/v3/conversations/${conversationId}/tags/x`), 403);
		await expectError(await api(writer.token, 'GET', '/v3/tags'), 403);
	});
});
