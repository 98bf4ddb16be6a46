import { env } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { batchGuard, brokeGuard, runBatch } from '../src/db/client';
import { contacts, contactTags, conversations, deals, funnels, stages, tags, visitorSessions } from '../src/db/schema';
import { newId } from '../src/lib/ids';
import {
	api,
	d1Timing,
	db,
	expectError,
	seedConversation,
	seedCustomFields,
	seedOperator,
	seedWorkspace,
} from './factories';

interface ContactRecord {
	id: string;
	name: string | null;
	email: string | null;
	phone: string | null;
	tags: string[];
	openDealCount: number;
	createdAt: string;
}

interface Page {
	data: ContactRecord[];
	nextCursor: string | null;
}

/** The events recorded about a contact (through the events Queue and its consumer), oldest first. */
async function contactEvents(workspaceId: string, contactId: string) {
	const { results } = await env.DB.prepare(
		"SELECT type, payload FROM events WHERE workspace_id = ? AND json_extract(payload, '$.contact.id') = ? ORDER BY occurred_at, id",
	)
		.bind(workspaceId, contactId)
		.all<{ type: string; payload: string }>();
	return results.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

async function contactCount(workspaceId: string): Promise<number> {
	const row = await env.DB.prepare('SELECT count(*) AS n FROM contacts WHERE workspace_id = ?')
		.bind(workspaceId)
		.first<{ n: number }>();
	return row?.n ?? 0;
}

/** A funnel with one stage and an open deal in it for the contact; returns the deal id. */
async function seedOpenDeal(workspaceId: string, contactId: string): Promise<string> {
	const now = Date.now();
	const funnelId = newId('fnl', now);
	const stageId = newId('stg', now);
	const dealId = newId('deal', now);
	await db.insert(funnels).values({ id: funnelId, workspaceId, name: 'Sales', createdAt: now });
	await db.insert(stages).values({ id: stageId, workspaceId, funnelId, name: 'New', position: 0 });
	await db.insert(deals).values({
		id: dealId,
		workspaceId,
		funnelId,
		stageId,
		contactId,
		name: 'Pro plan',
		status: 'open',
		customFields: {},
		createdAt: now,
		updatedAt: now,
	});
	return dealId;
}

async function create(token: string, body: unknown): Promise<ContactRecord> {
	const res = await api(token, 'POST', '/v3/contacts', body);
	expect(res.status).toBe(201);
	return (await res.json()) as ContactRecord;
}

/** A contact written straight to D1 at `at` (for bulk set-ups such as pagination). */
async function seedContact(workspaceId: string, at: number, fields: Partial<typeof contacts.$inferInsert> = {}) {
	const id = newId('ctc', at);
	await db.insert(contacts).values({ id, workspaceId, customFields: {}, createdAt: at, updatedAt: at, ...fields });
	return id;
}

describe('creating and reading contacts', () => {
	it('creates a contact with its e-mail lower-cased and its phone as + and digits, and announces it', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const created = await create(token, { name: ' Ada Lovelace ', email: 'Ada@Example.COM', phone: '5511999998888' });
		expect(created).toMatchObject({
			name: 'Ada Lovelace',
			email: 'ada@example.com',
			phone: '+5511999998888',
			tags: [],
			openDealCount: 0,
			verified: false,
		});
		const read = await api(token, 'GET', `/v3/contacts/${created.id}`);
		expect(read.status).toBe(200);
		expect(await read.json()).toEqual(created);
		await expect
			.poll(async () => (await contactEvents(workspaceId, created.id)).map((e) => e.type))
			.toEqual(['contact.created']);
	});

	it('refuses bad input with a 422 naming the field, and writes nothing', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const cases: Array<[unknown, string]> = [
			[{ email: 'not-an-address' }, 'json.email'],
			[{ phone: '12' }, 'json.phone'],
			[{ name: '' }, 'json.name'],
			[{ nickname: 'Ada' }, 'nickname'],
			[{}, 'at least one of name, email, phone'],
		];
		for (const [body, named] of cases) {
			const error = await expectError(await api(token, 'POST', '/v3/contacts', body), 422);
			expect(error.message).toContain(named);
		}
		expect(await contactCount(workspaceId)).toBe(0);
	});

	it('refuses a second contact with the same e-mail or phone with a 409', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await create(token, { email: 'ada@example.com', phone: '+5511999998888' });
		await expectError(await api(token, 'POST', '/v3/contacts', { email: 'ADA@example.com' }), 409);
		await expectError(await api(token, 'POST', '/v3/contacts', { phone: '5511999998888' }), 409);
		expect(await contactCount(workspaceId)).toBe(1);
	});
});

describe('changing contacts', () => {
	it("announces each moved field's value before and after, and nothing when no value moves", async () => {
		const { workspaceId, token } = await seedWorkspace();
		const { id } = await create(token, { name: 'Ada', email: 'ada@example.com' });
		const res = await api(token, 'PATCH', `/v3/contacts/${id}`, { name: 'Ada Lovelace', email: null });
		expect(res.status).toBe(200);
		expect(await res.json()).toMatchObject({ name: 'Ada Lovelace', email: null });
		// The same values again: no change, no event.
		expect((await api(token, 'PATCH', `/v3/contacts/${id}`, { name: 'Ada Lovelace' })).status).toBe(200);
		await expect
			.poll(async () => (await contactEvents(workspaceId, id)).map((e) => e.type))
			.toEqual(['contact.created', 'contact.updated']);
		const [, updated] = await contactEvents(workspaceId, id);
		expect(updated?.payload).toMatchObject({
			changed: ['name', 'email'],
			changes: { name: { from: 'Ada', to: 'Ada Lovelace' }, email: { from: 'ada@example.com', to: null } },
		});
	});

	it('refuses to give a contact the e-mail of another, changing nothing', async () => {
		const { token } = await seedWorkspace();
		await create(token, { email: 'ada@example.com' });
		const grace = await create(token, { name: 'Grace', email: 'grace@example.com' });
		await expectError(
			await api(token, 'PATCH', `/v3/contacts/${grace.id}`, { name: 'G', email: 'ada@example.com' }),
			409,
		);
		expect(await (await api(token, 'GET', `/v3/contacts/${grace.id}`)).json()).toMatchObject({
			name: 'Grace',
			email: 'grace@example.com',
		});
	});

	it('announces 10 concurrent renames as one chain of changes, each starting where the last ended', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const { id } = await create(token, { name: 'name 0' });
		const answers = await Promise.all(
			Array.from({ length: 10 }, (_, i) => api(token, 'PATCH', `/v3/contacts/${id}`, { name: `name ${i + 1}` })),
		);
		// A rename that kept losing the race is refused whole (409, retry): it changed nothing, said nothing.
		const statuses = answers.map((r) => r.status);
		expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
		const applied = statuses.filter((s) => s === 200).length;
		expect(applied).toBeGreaterThan(0);
		await expect.poll(async () => (await contactEvents(workspaceId, id)).length).toBe(1 + applied);
		const renames = (await contactEvents(workspaceId, id)).slice(1).map((e) => e.payload.changes.name);
		let name = 'name 0';
		const remaining = [...renames];
		while (remaining.length > 0) {
			const next = remaining.findIndex((r) => r.from === name);
			expect(next).toBeGreaterThanOrEqual(0);
			name = remaining.splice(next, 1)[0].to;
		}
		expect(await (await api(token, 'GET', `/v3/contacts/${id}`)).json()).toMatchObject({ name });
	});
});

describe('upserting contacts by e-mail or phone', () => {
	it('makes one contact of 20 concurrent identical calls: one 201, the rest 200, one contact.created', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const answers = await Promise.all(
			Array.from({ length: 20 }, () => api(token, 'PUT', '/v3/contacts/by-email/Ada@Example.com', { name: 'Ada' })),
		);
		const statuses = answers.map((r) => r.status).sort();
		expect(statuses).toEqual([...Array(19).fill(200), 201]);
		const ids = new Set(await Promise.all(answers.map(async (r) => ((await r.json()) as ContactRecord).id)));
		expect(ids.size).toBe(1);
		expect(await contactCount(workspaceId)).toBe(1);
		const [id] = [...ids] as [string];
		await expect
			.poll(async () => (await contactEvents(workspaceId, id)).map((e) => e.type))
			.toEqual(['contact.created']);
	});

	it('updates the contact it finds, by phone in any notation', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const first = await api(token, 'PUT', '/v3/contacts/by-phone/+5511999998888', { name: 'Ada' });
		expect(first.status).toBe(201);
		const second = await api(token, 'PUT', '/v3/contacts/by-phone/5511999998888', { email: 'ada@example.com' });
		expect(second.status).toBe(200);
		expect(await second.json()).toMatchObject({ name: 'Ada', phone: '+5511999998888', email: 'ada@example.com' });
		expect(await contactCount(workspaceId)).toBe(1);
	});

	it('refuses a body that contradicts the key (422) or a phone held by another contact (409)', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await create(token, { phone: '+5511999998888' });
		await expectError(
			await api(token, 'PUT', '/v3/contacts/by-email/ada@example.com', { email: 'grace@example.com' }),
			422,
		);
		await expectError(
			await api(token, 'PUT', '/v3/contacts/by-email/ada@example.com', { phone: '+5511999998888' }),
			409,
		);
		expect(await contactCount(workspaceId)).toBe(1);
	});
});

describe('deleting contacts', () => {
	it('deletes a contact without conversations, its tags with it, and announces it', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const { id } = await create(token, { email: 'ada@example.com' });
		const tagId = newId('tag');
		await db.insert(tags).values({ id: tagId, workspaceId, name: 'vip', createdAt: Date.now() });
		await db.insert(contactTags).values({ workspaceId, contactId: id, tagId });
		const dealId = await seedOpenDeal(workspaceId, id);
		const sessionId = newId('vs');
		await db.insert(visitorSessions).values({
			id: sessionId,
			workspaceId,
			contactId: id,
			createdAt: Date.now(),
			lastSeenAt: Date.now(),
		});
		expect(await (await api(token, 'GET', `/v3/contacts/${id}`)).json()).toMatchObject({
			tags: ['vip'],
			openDealCount: 1,
		});
		expect((await api(token, 'DELETE', `/v3/contacts/${id}`)).status).toBe(204);
		// The deal stays, without a contact; the browser that spoke as the contact is logged out.
		const deal = await env.DB.prepare('SELECT contact_id FROM deals WHERE id = ?').bind(dealId).first();
		expect(deal).toEqual({ contact_id: null });
		const session = await env.DB.prepare('SELECT contact_id, ended_at FROM visitor_sessions WHERE id = ?')
			.bind(sessionId)
			.first<{ contact_id: string | null; ended_at: number | null }>();
		expect(session?.contact_id).toBeNull();
		expect(session?.ended_at).toBeTypeOf('number');
		await expectError(await api(token, 'GET', `/v3/contacts/${id}`), 404);
		await expect
			.poll(async () => (await contactEvents(workspaceId, id)).map((e) => e.type))
			.toEqual(['contact.created', 'contact.deleted']);
		// The e-mail is free again.
		await create(token, { email: 'ada@example.com' });
	});

	it('refuses to delete a contact that has conversations (409), changing nothing', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const row = await env.DB.prepare('SELECT contact_id FROM conversations WHERE id = ?')
			.bind(conversationId)
			.first<{ contact_id: string }>();
		await expectError(await api(token, 'DELETE', `/v3/contacts/${row?.contact_id}`), 409);
		expect((await api(token, 'GET', `/v3/contacts/${row?.contact_id}`)).status).toBe(200);
	});
});

describe('GET /v3/contacts', () => {
	it('pages 60 contacts newest first, each exactly once, with a contact created mid-walk left out', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const base = Date.now() - 1_000_000;
		const seeded: Array<{ at: number; id: string }> = [];
		// Several share a timestamp so the id tie-break is exercised.
		for (let i = 0; i < 60; i++) {
			const at = base + Math.floor(i / 3);
			seeded.push({ at, id: await seedContact(workspaceId, at) });
		}
		const newestFirst = seeded.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1)).map((c) => c.id);
		const seen: string[] = [];
		let cursor: string | null = null;
		let pages = 0;
		do {
			const res = await api(token, 'GET', `/v3/contacts?limit=25${cursor ? `&cursor=${cursor}` : ''}`);
			expect(res.status).toBe(200);
			const page = (await res.json()) as Page;
			seen.push(...page.data.map((c) => c.id));
			cursor = page.nextCursor;
			if (++pages === 1) await create(token, { name: 'Created while paging' });
		} while (cursor);
		expect(pages).toBe(3);
		expect(seen).toEqual(newestFirst);
	});

	it('costs one D1 statement a page, whatever the page size', async () => {
		const { workspaceId, token } = await seedWorkspace();
		for (let i = 0; i < 30; i++) await seedContact(workspaceId, Date.now() - i);
		// The first request of a token reads it from D1 into its gate; the pages after it read D1 once each.
		expect((await api(token, 'GET', '/v3/me')).status).toBe(200);
		for (const limit of [1, 25, 100]) {
			const res = await api(token, 'GET', `/v3/contacts?limit=${limit}&q=a`);
			expect(res.status).toBe(200);
			expect(d1Timing(res)).toBe('d1;desc="1 queries"');
		}
	});

	it('searches name, e-mail and phone, and filters by tag, campaign origin and creation time', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const now = Date.now();
		const ada = await seedContact(workspaceId, now - 3000, {
			name: 'Ada Lovelace',
			email: 'ada@example.com',
			firstOrigin: { utmSource: 'newsletter', gclid: 'abc' },
		});
		const grace = await seedContact(workspaceId, now - 2000, {
			name: 'Grace Hopper',
			phone: '+5511999998888',
			lastOrigin: { utmSource: 'newsletter' },
		});
		const percent = await seedContact(workspaceId, now - 1000, { name: '100% Linus' });
		// Found by a wildcard `%` or `_` if the search did not take them literally.
		await seedContact(workspaceId, now - 1500, { name: '1000 Linus' });
		const tagId = newId('tag');
		await db.insert(tags).values({ id: tagId, workspaceId, name: 'vip', createdAt: now });
		await db.insert(contactTags).values({ workspaceId, contactId: grace, tagId });
		const ids = async (query: string) => {
			const res = await api(token, 'GET', `/v3/contacts?${query}`);
			expect(res.status).toBe(200);
			return ((await res.json()) as Page).data.map((c) => c.id);
		};
		expect(await ids('q=LOVELACE')).toEqual([ada]);
		expect(await ids('q=99999')).toEqual([grace]);
		expect(await ids('q=example.com')).toEqual([ada]);
		// `%` is a character to find, not a wildcard.
		expect(await ids('q=0%25')).toEqual([percent]);
		expect(await ids('q=0%25 L')).toEqual([percent]);
		expect(await ids('tag=vip')).toEqual([grace]);
		expect(await ids('utmSource=newsletter')).toEqual([grace, ada]);
		expect(await ids('utmSource=newsletter&touch=first')).toEqual([ada]);
		expect(await ids('utmSource=newsletter&touch=last')).toEqual([grace]);
		expect(await ids('hasGclid=true')).toEqual([ada]);
		expect(await ids('q=0_L')).toEqual([]);
		expect(await ids('hasGclid=true')).toHaveLength(1);
		expect((await ids('hasGclid=false')).slice(0, 1)).toEqual([percent]);
		expect(await ids(`createdSince=${new Date(now - 1000).toISOString()}`)).toEqual([percent]);
		const tagged = (await (await api(token, 'GET', `/v3/contacts/${grace}`)).json()) as ContactRecord;
		expect(tagged).toMatchObject({ tags: ['vip'], openDealCount: 0 });
	});

	it('refuses a cursor it did not issue and an unknown filter with a 422', async () => {
		const { token } = await seedWorkspace();
		await expectError(await api(token, 'GET', '/v3/contacts?cursor=bm90LWEtY3Vyc29y'), 422);
		await expectError(await api(token, 'GET', '/v3/contacts?colour=red'), 422);
	});
});

describe('contacts of another workspace, and permissions', () => {
	it('answers 404 for a contact of another workspace on every route, and never lists it', async () => {
		const mine = await seedWorkspace();
		const theirs = await seedWorkspace();
		const { id } = await create(theirs.token, { email: 'ada@example.com' });
		await expectError(await api(mine.token, 'GET', `/v3/contacts/${id}`), 404);
		await expectError(await api(mine.token, 'PATCH', `/v3/contacts/${id}`, { name: 'Mine now' }), 404);
		await expectError(await api(mine.token, 'DELETE', `/v3/contacts/${id}`), 404);
		const page = (await (await api(mine.token, 'GET', '/v3/contacts')).json()) as Page;
		expect(page.data).toEqual([]);
		// The same e-mail is another person in another workspace.
		expect((await api(mine.token, 'PUT', '/v3/contacts/by-email/ada@example.com', {})).status).toBe(201);
		expect(await (await api(theirs.token, 'GET', `/v3/contacts/${id}`)).json()).toMatchObject({ name: null });
	});

	it('needs contacts:write to write and conversations:read to read', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const { id } = await create(token, { name: 'Ada' });
		const reader = await seedOperator(workspaceId, ['conversations:read']);
		const writer = await seedOperator(workspaceId, ['contacts:write']);
		expect((await api(reader.token, 'GET', `/v3/contacts/${id}`)).status).toBe(200);
		await expectError(await api(reader.token, 'POST', '/v3/contacts', { name: 'Grace' }), 403);
		await expectError(await api(reader.token, 'PATCH', `/v3/contacts/${id}`, { name: 'Grace' }), 403);
		await expectError(await api(reader.token, 'DELETE', `/v3/contacts/${id}`), 403);
		await expectError(await api(reader.token, 'PUT', '/v3/contacts/by-email/g@example.com', {}), 403);
		await expectError(await api(writer.token, 'GET', '/v3/contacts'), 403);
		expect((await api(writer.token, 'PATCH', `/v3/contacts/${id}`, { name: 'Ada L.' })).status).toBe(200);
		expect(await contactCount(workspaceId)).toBe(1);
	});
});

describe('merging contacts', () => {
	/** A conversation of `contactId` written straight to D1. */
	async function conversationOf(workspaceId: string, contactId: string): Promise<string> {
		const at = Date.now();
		const id = newId('conv', at);
		await db.insert(conversations).values({
			id,
			workspaceId,
			contactId,
			channel: 'api',
			status: 'open',
			createdAt: at,
			updatedAt: at,
			statusChangedAt: at,
			lastActivityAt: at,
		});
		return id;
	}

	async function linked(table: string, contactId: string): Promise<number> {
		const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE contact_id = ?`)
			.bind(contactId)
			.first<{ n: number }>();
		return row?.n ?? 0;
	}

	it('moves conversations, tags, deals, sessions, values and origins to the survivor, leaving no orphan', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, { plan: ['free', 'pro'], seats: 'number' });
		const duplicateId = await seedContact(workspaceId, Date.now() - 60_000, {
			phone: '+5511999990000',
			email: 'ada.old@example.com',
			customFields: { plan: 'free', seats: 3 },
			firstOrigin: { utmSource: 'ads' },
			lastOrigin: { utmSource: 'ads' },
			optedOutAt: Date.now() - 30_000,
			optedOutSource: 'unsubscribe-link',
		});
		const survivor = await create(token, { name: 'Ada', email: 'ada@example.com', customFields: { plan: 'pro' } });
		const conversationIds = [
			await conversationOf(workspaceId, duplicateId),
			await conversationOf(workspaceId, duplicateId),
		];
		await api(token, 'PUT', `/v3/contacts/${duplicateId}/tags/lead`);
		await api(token, 'PUT', `/v3/contacts/${duplicateId}/tags/vip`);
		await api(token, 'PUT', `/v3/contacts/${survivor.id}/tags/vip`);
		await seedOpenDeal(workspaceId, duplicateId);
		await db.insert(visitorSessions).values({
			id: newId('vis'),
			workspaceId,
			contactId: duplicateId,
			createdAt: Date.now(),
			lastSeenAt: Date.now(),
		});

		const res = await api(token, 'POST', `/v3/contacts/${survivor.id}/merge`, { duplicateId });
		expect(res.status).toBe(200);
		const merged = (await res.json()) as ContactRecord & Record<string, unknown>;
		expect(merged).toMatchObject({
			id: survivor.id,
			name: 'Ada',
			email: 'ada@example.com',
			phone: '+5511999990000',
			customFields: { plan: 'pro', seats: 3 },
			firstOrigin: { utmSource: 'ads' },
			tags: ['lead', 'vip'],
			openDealCount: 1,
			optedOut: true,
			optedOutSource: 'unsubscribe-link',
		});
		expect(Date.parse(merged.createdAt)).toBeLessThan(Date.parse(survivor.createdAt));
		await expectError(await api(token, 'GET', `/v3/contacts/${duplicateId}`), 404);
		for (const table of ['conversations', 'contact_tags', 'deals', 'visitor_sessions']) {
			expect(await linked(table, duplicateId)).toBe(0);
		}
		expect(await linked('conversations', survivor.id)).toBe(2);
		for (const id of conversationIds) {
			const seen = (await (await api(token, 'GET', `/v3/conversations/${id}`)).json()) as { contactId: string };
			expect(seen.contactId).toBe(survivor.id);
		}
		// The duplicate's e-mail was not the survivor's to take: the survivor keeps its own.
		expect(await contactCount(workspaceId)).toBe(1);
		await expect
			.poll(async () => (await contactEvents(workspaceId, survivor.id)).map((e) => e.type))
			.toEqual(['contact.created', 'contact.merged']);
		const event = (await contactEvents(workspaceId, survivor.id))[1]?.payload;
		expect(event.duplicate).toMatchObject({ id: duplicateId, email: 'ada.old@example.com' });
		expect(event.changes).toEqual({
			phone: { from: null, to: '+5511999990000' },
			optedOut: { from: false, to: true },
			'customFields.seats': { from: null, to: 3 },
		});
		// Each move is announced to what follows conversations and deals (rules, webhooks, the inbox).
		await expect
			.poll(async () => {
				const { results } = await env.DB.prepare(
					"SELECT type, json_extract(payload, '$.changes.contactId.to') AS target FROM events WHERE workspace_id = ? AND type IN ('conversation.updated', 'deal.updated')",
				)
					.bind(workspaceId)
					.all<{ type: string; target: string }>();
				return results.map((r) => `${r.type} ${r.target}`).sort();
			})
			.toEqual([
				`conversation.updated ${survivor.id}`,
				`conversation.updated ${survivor.id}`,
				`deal.updated ${survivor.id}`,
			]);
	});

	it('refuses a merge into itself (422), a duplicate of another workspace (404) and two verified users (409)', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const ada = await create(token, { name: 'Ada' });
		const { message } = await expectError(
			await api(token, 'POST', `/v3/contacts/${ada.id}/merge`, { duplicateId: ada.id }),
			422,
		);
		expect(message).toContain('json.duplicateId');
		const other = await seedWorkspace();
		const foreign = await create(other.token, { name: 'Foreign' });
		await expectError(await api(token, 'POST', `/v3/contacts/${ada.id}/merge`, { duplicateId: foreign.id }), 404);
		await expectError(await api(other.token, 'POST', `/v3/contacts/${ada.id}/merge`, { duplicateId: foreign.id }), 404);
		const one = await seedContact(workspaceId, Date.now(), { externalId: 'user-1', verifiedAt: Date.now() });
		const two = await seedContact(workspaceId, Date.now(), { externalId: 'user-2', verifiedAt: Date.now() });
		await expectError(await api(token, 'POST', `/v3/contacts/${one}/merge`, { duplicateId: two }), 409);
		expect(await contactCount(workspaceId)).toBe(3);
		expect(await contactCount(other.workspaceId)).toBe(1);
		const reader = await seedOperator(workspaceId, ['conversations:read']);
		await expectError(await api(reader.token, 'POST', `/v3/contacts/${one}/merge`, { duplicateId: ada.id }), 403);
	});

	it('lets a batch guard that fails undo every statement of its batch', async () => {
		const { workspaceId } = await seedWorkspace();
		const id = await seedContact(workspaceId, Date.now(), { name: 'Before' });
		const rename = db.update(contacts).set({ name: 'After' }).where(eq(contacts.id, id));
		await expect(runBatch(db, [rename, batchGuard(sql`1 = 0`)])).rejects.toSatisfy(brokeGuard);
		expect((await db.select().from(contacts).where(eq(contacts.id, id)).get())?.name).toBe('Before');
		await runBatch(db, [rename, batchGuard(sql`1 = 1`)]);
		expect((await db.select().from(contacts).where(eq(contacts.id, id)).get())?.name).toBe('After');
	});
});

describe('marketing consent', () => {
	it('opts a contact out with its time and source, and back in, announcing each', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const ada = await create(token, { name: 'Ada' });
		const out = await api(token, 'PATCH', `/v3/contacts/${ada.id}`, {
			optedOut: true,
			optedOutSource: 'unsubscribe-link',
		});
		const record = (await out.json()) as Record<string, unknown>;
		expect(record).toMatchObject({ optedOut: true, optedOutSource: 'unsubscribe-link' });
		expect(Date.parse(record.optedOutAt as string)).toBeGreaterThan(Date.now() - 60_000);
		// Again: nothing moves, nothing is announced.
		await api(token, 'PATCH', `/v3/contacts/${ada.id}`, { optedOut: true });
		const back = await api(token, 'PATCH', `/v3/contacts/${ada.id}`, { optedOut: false });
		expect(await back.json()).toMatchObject({ optedOut: false, optedOutAt: null, optedOutSource: null });
		const { message } = await expectError(
			await api(token, 'PATCH', `/v3/contacts/${ada.id}`, { optedOutSource: 'form' }),
			422,
		);
		expect(message).toContain('json.optedOutSource');
		const created = await create(token, { name: 'Bo', optedOut: true });
		expect(created).toMatchObject({ optedOut: true, optedOutSource: 'api' });
		await expect
			.poll(async () =>
				(await contactEvents(workspaceId, ada.id))
					.filter((e) => e.type === 'contact.updated')
					.map((e) => e.payload.changes),
			)
			.toEqual([{ optedOut: { from: false, to: true } }, { optedOut: { from: true, to: false } }]);
	});
});
