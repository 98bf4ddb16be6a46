import { describe, expect, it } from 'vitest';
import { api, expectError, seedConversation, seedWorkspace } from './factories';

interface Page {
	data: { id: string; tags: string[]; status: string; origin: Record<string, string | null> }[];
	nextCursor: string | null;
}

describe('GET /v3/conversations', () => {
	it('pages 250 conversations with limit 100 and returns each exactly once, newest activity first', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const base = Date.now() - 1_000_000;
		const ids: string[] = [];
		// Several share a timestamp so the id tie-break is exercised.
		for (let i = 0; i < 250; i++) ids.push(await seedConversation(workspaceId, {}, base + Math.floor(i / 3)));
		const seen: string[] = [];
		let cursor: string | null = null;
		let pages = 0;
		do {
			const query = `/v3/conversations?limit=100${cursor ? `&cursor=${cursor}` : ''}`;
			const res = await api(token, 'GET', query);
			expect(res.status).toBe(200);
			const page = (await res.json()) as Page;
			seen.push(...page.data.map((c) => c.id));
			cursor = page.nextCursor;
			pages++;
			// A conversation created mid-walk sorts before the cursor and must not appear or shift the pages.
			if (pages === 1) await seedConversation(workspaceId);
		} while (cursor);
		expect(pages).toBe(3);
		expect(seen).toHaveLength(250);
		expect(new Set(seen).size).toBe(250);
		expect(new Set(seen)).toEqual(new Set(ids));
	});

	it('costs at most 3 D1 statements per page, whatever the page size', async () => {
		const { workspaceId, token } = await seedWorkspace();
		for (let i = 0; i < 30; i++) await seedConversation(workspaceId);
		for (const limit of [1, 25, 100]) {
			const res = await api(token, 'GET', `/v3/conversations?limit=${limit}`);
			const timing = res.headers.get('Server-Timing') ?? '';
			const count = Number(/"(\d+) queries"/.exec(timing)?.[1]);
			expect(count).toBeGreaterThan(0);
			expect(count).toBeLessThanOrEqual(3);
		}
	});

	it('filters by status, channel, origin and updatedSince', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const old = Date.now() - 86_400_000;
		const closed = await seedConversation(workspaceId, { status: 'closed' });
		const fromAds = await seedConversation(workspaceId, { gclid: 'abc', utmSource: 'google', channel: 'whatsapp' });
		const oldOne = await seedConversation(workspaceId, {}, old);
		const list = async (query: string) => {
			const res = await api(token, 'GET', `/v3/conversations?${query}`);
			expect(res.status).toBe(200);
			return ((await res.json()) as Page).data.map((c) => c.id);
		};
		expect(await list('status=closed')).toEqual([closed]);
		expect(await list('hasGclid=true')).toEqual([fromAds]);
		expect(await list('utmSource=google')).toEqual([fromAds]);
		expect(await list('channel=whatsapp')).toEqual([fromAds]);
		expect((await list('hasGclid=false')).sort()).toEqual([closed, oldOne].sort());
		expect((await list(`updatedSince=${new Date(old + 1000).toISOString()}`)).sort()).toEqual([closed, fromAds].sort());
	});

	it('rejects a bad limit, a bad filter, a misspelt filter and a forged cursor with 422 naming the field', async () => {
		const { token } = await seedWorkspace();
		expect((await expectError(await api(token, 'GET', '/v3/conversations?limit=500'), 422)).message).toContain(
			'query.limit',
		);
		expect((await expectError(await api(token, 'GET', '/v3/conversations?status=lost'), 422)).message).toContain(
			'query.status',
		);
		expect((await expectError(await api(token, 'GET', '/v3/conversations?stauts=open'), 422)).message).toContain(
			'stauts',
		);
		expect((await expectError(await api(token, 'GET', '/v3/conversations?cursor=bm9wZQ'), 422)).message).toContain(
			'query.cursor',
		);
	});
});

describe('POST /v3/conversations', () => {
	it('creates the contact by e-mail once and reuses it, with channel api by default', async () => {
		const { token } = await seedWorkspace();
		const first = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'Ana@Example.com', name: 'Ana' },
			tags: ['vip', 'billing'],
			message: { text: 'Hello Ana' },
		});
		expect(first.status).toBe(201);
		const a = (await first.json()) as {
			id: string;
			channel: string;
			contact: { id: string; email: string };
			tags: string[];
			lastMessageSeq: number;
		};
		expect(a.channel).toBe('api');
		expect(a.contact.email).toBe('ana@example.com');
		expect(a.tags).toEqual(['billing', 'vip']);
		expect(a.lastMessageSeq).toBe(1);
		const second = await api(token, 'POST', '/v3/conversations', { contact: { email: 'ana@example.com' } });
		const b = (await second.json()) as { id: string; contact: { id: string } };
		expect(b.contact.id).toBe(a.contact.id);
		expect(b.id).not.toBe(a.id);
		const messages = await api(token, 'GET', `/v3/conversations/${a.id}/messages`);
		const page = (await messages.json()) as { data: { text: string; seq: number; authorKind: string }[] };
		expect(page.data).toEqual([expect.objectContaining({ text: 'Hello Ana', seq: 1, authorKind: 'operator' })]);
	});

	it('rejects a contact with neither id, email nor phone, and an unknown assignee, writing nothing', async () => {
		const { token } = await seedWorkspace();
		await expectError(await api(token, 'POST', '/v3/conversations', { contact: {} }), 422);
		await expectError(
			await api(token, 'POST', '/v3/conversations', { contact: { email: 'x@example.com' }, assigneeId: 'op_nope' }),
			422,
		);
		const list = (await (await api(token, 'GET', '/v3/conversations')).json()) as Page;
		expect(list.data).toHaveLength(0);
	});

	it('answers 409 when the e-mail and the phone belong to two contacts', async () => {
		const { token } = await seedWorkspace();
		await api(token, 'POST', '/v3/conversations', { contact: { email: 'one@example.com' } });
		await api(token, 'POST', '/v3/conversations', { contact: { phone: '+5511999990000' } });
		const res = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'one@example.com', phone: '5511999990000' },
		});
		await expectError(res, 409);
	});
});

describe('PATCH /v3/conversations/{id}', () => {
	it('changes status, assignee and tags, and GET shows them with the contact embedded', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const id = await seedConversation(workspaceId, { utmCampaign: 'black-friday' });
		const res = await api(token, 'PATCH', `/v3/conversations/${id}`, {
			status: 'pending',
			assigneeId: operatorId,
			tags: ['lead'],
		});
		expect(res.status).toBe(200);
		const got = (await (await api(token, 'GET', `/v3/conversations/${id}`)).json()) as {
			status: string;
			assigneeId: string;
			tags: string[];
			contact: { id: string };
			origin: { utmCampaign: string };
		};
		expect(got).toMatchObject({ status: 'pending', assigneeId: operatorId, tags: ['lead'] });
		expect(got.contact.id).toMatch(/^ctc_/);
		expect(got.origin.utmCampaign).toBe('black-friday');
		const byTag = (await (await api(token, 'GET', '/v3/conversations?tag=lead')).json()) as Page;
		expect(byTag.data.map((c) => c.id)).toEqual([id]);
		const byAssignee = (await (await api(token, 'GET', `/v3/conversations?assigneeId=${operatorId}`)).json()) as Page;
		expect(byAssignee.data.map((c) => c.id)).toEqual([id]);
	});

	it('rejects an empty change and an unknown status', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const id = await seedConversation(workspaceId);
		await expectError(await api(token, 'PATCH', `/v3/conversations/${id}`, {}), 422);
		await expectError(await api(token, 'PATCH', `/v3/conversations/${id}`, { status: 'archived' }), 422);
	});
});
