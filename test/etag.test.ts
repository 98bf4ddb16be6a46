/**
 * Optimistic concurrency on every document people edit: an `ETag` on the single read and on each write
 * answer, and `If-Match` honoured on PATCH, PUT and DELETE (a stale one is a 412 in the error body and changes
 * nothing). One table over the eight resources, each test black-box through the API.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { brokeGuard, brokeVersionGuard, runBatch, versionGuard } from '../src/db/client';
import { api, db, expectError, seedWorkspace } from './factories';

interface Resource {
	/** What it is, in the test names. */
	name: string;
	/** Creates one in the workspace and returns its path (`/v3/bots/bot_…`). */
	create(token: string): Promise<string>;
	/** The method that changes it. */
	method: 'PATCH' | 'PUT';
	/** A change whose `label` is visible in `labelOf` of its read. */
	change(label: string): Record<string, unknown>;
	labelOf(body: Record<string, unknown>): unknown;
	/** Whether it can be deleted through its path. */
	deletable: boolean;
}

async function created(res: Response): Promise<string> {
	expect(res.status, await res.clone().text()).toBe(201);
	return ((await res.json()) as { id: string }).id;
}

const RESOURCES: Resource[] = [
	{
		name: 'bot',
		async create(token) {
			const definition = { start: 'hi', steps: [{ id: 'hi', type: 'transfer', message: 'Hello' }] };
			const body = { name: 'Start', trigger: { kind: 'new_conversation' }, definition };
			return `/v3/bots/${await created(await api(token, 'POST', '/v3/bots', body))}`;
		},
		method: 'PATCH',
		change: (name) => ({ name }),
		labelOf: (body) => body.name,
		deletable: true,
	},
	{
		name: 'scenario',
		async create(token) {
			const definition = { start: 'stop', steps: [{ id: 'stop', type: 'end' }] };
			return `/v3/scenarios/${await created(await api(token, 'POST', '/v3/scenarios', { name: 'Start', definition }))}`;
		},
		method: 'PATCH',
		change: (name) => ({ name }),
		labelOf: (body) => body.name,
		deletable: true,
	},
	{
		name: 'automation rule',
		async create(token) {
			const body = {
				name: 'Start',
				trigger: { kind: 'conversation_closed' },
				actions: [{ type: 'apply_tag', tag: 'closed' }],
			};
			return `/v3/automation-rules/${await created(await api(token, 'POST', '/v3/automation-rules', body))}`;
		},
		method: 'PATCH',
		change: (name) => ({ name }),
		labelOf: (body) => body.name,
		deletable: true,
	},
	{
		name: 'assignment rule',
		async create(token) {
			const body = { name: 'Start', policy: { strategy: 'round_robin' } };
			return `/v3/assignment/rules/${await created(await api(token, 'POST', '/v3/assignment/rules', body))}`;
		},
		method: 'PATCH',
		change: (name) => ({ name }),
		labelOf: (body) => body.name,
		deletable: true,
	},
	{
		name: 'deal',
		async create(token) {
			await created(await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Won'] }));
			return `/v3/deals/${await created(await api(token, 'POST', '/v3/deals', { funnel: 'Sales', name: 'Start' }))}`;
		},
		method: 'PATCH',
		change: (name) => ({ name }),
		labelOf: (body) => body.name,
		deletable: true,
	},
	{
		name: 'contact',
		async create(token) {
			return `/v3/contacts/${await created(await api(token, 'POST', '/v3/contacts', { name: 'Start' }))}`;
		},
		method: 'PATCH',
		change: (name) => ({ name }),
		labelOf: (body) => body.name,
		deletable: true,
	},
	{
		name: 'custom field',
		async create(token) {
			const body = { entity: 'contact', key: 'plan', label: 'Start', type: 'text' };
			return `/v3/custom-fields/${await created(await api(token, 'POST', '/v3/custom-fields', body))}`;
		},
		method: 'PATCH',
		change: (label) => ({ label }),
		labelOf: (body) => body.label,
		deletable: true,
	},
	{
		name: 'widget settings',
		create: async () => '/v3/widget/settings',
		method: 'PUT',
		change: (ctaText) => ({ ctaText }),
		labelOf: (body) => body.ctaText,
		deletable: false,
	},
];

/** Its read: the body and the ETag. */
async function read(token: string, path: string) {
	const res = await api(token, 'GET', path);
	expect(res.status).toBe(200);
	return { body: (await res.json()) as Record<string, unknown>, etag: res.headers.get('ETag') };
}

describe.each(RESOURCES)('ETag and If-Match on a $name', (resource) => {
	const write = (token: string, path: string, label: string, ifMatch?: string) =>
		api(token, resource.method, path, resource.change(label), ifMatch === undefined ? {} : { 'If-Match': ifMatch });

	it('is read with a strong, quoted ETag that each write answer renews', async () => {
		const { token } = await seedWorkspace();
		const path = await resource.create(token);
		const first = await read(token, path);
		expect(first.etag).toMatch(/^"[^"]+"$/);
		const res = await write(token, path, 'Second', first.etag ?? '');
		expect(res.status, await res.clone().text()).toBe(200);
		const answered = res.headers.get('ETag');
		expect(answered).toMatch(/^"[^"]+"$/);
		expect(answered).not.toBe(first.etag);
		const now = await read(token, path);
		expect(now.etag).toBe(answered);
		expect(resource.labelOf(now.body)).toBe('Second');
	});

	it('refuses a write whose If-Match is stale with a 412 and changes nothing', async () => {
		const { token } = await seedWorkspace();
		const path = await resource.create(token);
		const opened = await read(token, path);
		expect((await write(token, path, 'First editor', opened.etag ?? '')).status).toBe(200);
		const stale = await write(token, path, 'Second editor', opened.etag ?? '');
		const error = await expectError(stale, 412);
		expect(error.error).toBe('Precondition Failed');
		expect(error.message).toContain('has changed since');
		expect(resource.labelOf((await read(token, path)).body)).toBe('First editor');
	});

	it('lets exactly one of two concurrent writes with the same If-Match win', async () => {
		const { token } = await seedWorkspace();
		const path = await resource.create(token);
		const { etag } = await read(token, path);
		const answers = await Promise.all(['One', 'Two'].map((label) => write(token, path, label, etag ?? '')));
		const statuses = answers.map((res) => res.status);
		expect([...statuses].sort()).toEqual([200, 412]);
		const winner = statuses[0] === 200 ? 'One' : 'Two';
		expect(resource.labelOf((await read(token, path)).body)).toBe(winner);
	});

	it('takes * as any version, and a write without If-Match as before', async () => {
		const { token } = await seedWorkspace();
		const path = await resource.create(token);
		expect((await write(token, path, 'Any', '*')).status).toBe(200);
		expect((await write(token, path, 'Unconditional')).status).toBe(200);
		expect(resource.labelOf((await read(token, path)).body)).toBe('Unconditional');
		await expectError(await write(token, path, 'Weak', `W/${(await read(token, path)).etag}`), 412);
		await expectError(await write(token, path, 'Unquoted', '12345'), 422);
	});

	it.runIf(resource.deletable)('deletes only while the If-Match is current', async () => {
		const { token } = await seedWorkspace();
		const path = await resource.create(token);
		const opened = await read(token, path);
		expect((await write(token, path, 'Changed', opened.etag ?? '')).status).toBe(200);
		await expectError(await api(token, 'DELETE', path, undefined, { 'If-Match': opened.etag ?? '' }), 412);
		const current = await read(token, path);
		expect(resource.labelOf(current.body)).toBe('Changed');
		const removed = await api(token, 'DELETE', path, undefined, { 'If-Match': current.etag ?? '' });
		expect(removed.status).toBe(204);
		expect((await api(token, 'GET', path)).status).toBe(404);
	});
});

describe('versionGuard', () => {
	it('fails its batch, told apart from the other guards, only when its condition does not hold', async () => {
		await expect(runBatch(db, [versionGuard(sql`1 = 1`)])).resolves.toHaveLength(1);
		const failure = await runBatch(db, [versionGuard(sql`1 = 0`)]).catch((error: unknown) => error);
		expect(brokeVersionGuard(failure)).toBe(true);
		expect(brokeGuard(failure)).toBe(false);
	});
});
