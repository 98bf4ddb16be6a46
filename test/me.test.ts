import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiTokens, groups, operatorGroups, operators } from '../src/db/schema';
import { newId } from '../src/lib/ids';
import { api, d1Timing, db, expectError, seedOperator, seedWorkspace } from './factories';

const DAY_MS = 24 * 60 * 60 * 1000;

interface Me {
	operator: { id: string; name: string; email: string };
	workspaceId: string;
	permissions: string[];
	groups: { id: string; name: string }[];
	capacity: number | null;
	status: string;
	token: { id: string; hint: string; createdAt: string; ageDays: number; rotateAfter: string; rotationDue: boolean };
	via: string;
}

/** Moves the operator's token's issue date `days` back, as if it had been issued then. */
async function ageToken(operatorId: string, days: number): Promise<number> {
	const createdAt = Date.now() - days * DAY_MS;
	await db.update(apiTokens).set({ createdAt }).where(eq(apiTokens.operatorId, operatorId));
	return createdAt;
}

describe('GET /v3/me', () => {
	it('shows the caller, its workspace, permissions, groups and token, for a token with no permission at all', async () => {
		const { workspaceId } = await seedWorkspace();
		const { operatorId, token } = await seedOperator(workspaceId, []);
		await db.update(operators).set({ name: 'Rita' }).where(eq(operators.id, operatorId));
		const groupId = newId('grp');
		await db.insert(groups).values({ id: groupId, workspaceId, name: 'support', createdAt: Date.now() });
		await db.insert(operatorGroups).values({ workspaceId, operatorId, groupId });
		const createdAt = await ageToken(operatorId, 12);
		const res = await api(token, 'GET', '/v3/me');
		expect(res.status).toBe(200);
		const me = (await res.json()) as Me;
		const [tokenRow] = await db.select().from(apiTokens).where(eq(apiTokens.operatorId, operatorId));
		expect(me).toStrictEqual({
			operator: { id: operatorId, name: 'Rita', email: `${operatorId.toLowerCase()}@acme.test` },
			workspaceId,
			permissions: [],
			groups: [{ id: groupId, name: 'support' }],
			capacity: null,
			status: 'offline',
			token: {
				id: tokenRow?.id,
				hint: tokenRow?.hint,
				createdAt: new Date(createdAt).toISOString(),
				ageDays: 12,
				rotateAfter: new Date(createdAt + 90 * DAY_MS).toISOString(),
				rotationDue: false,
			},
			via: 'token',
		});
		// One statement for the token (operatorAuth), one for the operator.
		expect(d1Timing(res)).toBe('d1;desc="2 queries"');
	});

	it('answers a fresh token without a rotation warning', async () => {
		const { token } = await seedWorkspace();
		const res = await api(token, 'GET', '/v3/me');
		expect(res.status).toBe(200);
		expect(res.headers.get('Deprecation')).toBeNull();
		expect(res.headers.get('Link')).toBeNull();
		expect(((await res.json()) as Me).token).toMatchObject({ ageDays: 0, rotationDue: false });
	});

	it('warns on every answer to a token older than 90 days, errors included, at no extra query', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const createdAt = await ageToken(operatorId, 91);
		const deprecation = `@${Math.floor((createdAt + 90 * DAY_MS) / 1000)}`;
		const me = await api(token, 'GET', '/v3/me');
		expect(me.headers.get('Deprecation')).toBe(deprecation);
		expect(me.headers.get('Link')).toBe('</v3/me>; rel="deprecation"; type="application/json"');
		expect(((await me.json()) as Me).token).toMatchObject({ ageDays: 91, rotationDue: true });

		const list = await api(token, 'GET', '/v3/conversations');
		expect(list.status).toBe(200);
		expect(list.headers.get('Deprecation')).toBe(deprecation);
		// The page is the only statement: the token's gate read its row (with its age) for /v3/me already.
		expect(d1Timing(list)).toBe('d1;desc="1 queries"');

		const missing = await api(token, 'GET', '/v3/conversations/conv_missing');
		await expectError(missing, 404);
		expect(missing.headers.get('Deprecation')).toBe(deprecation);

		// A young token of the same workspace is not warned.
		const other = await seedOperator(workspaceId, ['conversations:read']);
		expect((await api(other.token, 'GET', '/v3/conversations')).headers.get('Deprecation')).toBeNull();
	});

	it('stops warning once the token is regenerated', async () => {
		const { operatorId, token } = await seedWorkspace();
		await ageToken(operatorId, 120);
		const res = await api(token, 'POST', '/v3/tokens/regenerate');
		expect(res.status).toBe(201);
		const fresh = ((await res.json()) as { token: string }).token;
		expect((await api(fresh, 'GET', '/v3/me')).headers.get('Deprecation')).toBeNull();
	});

	it('is 401 without a valid token', async () => {
		await expectError(await api(null, 'GET', '/v3/me'), 401);
	});

	it('is listed in the API document as getMe', async () => {
		const doc = (await (await api(null, 'GET', '/v3/openapi.json')).json()) as {
			paths: Record<string, { get?: { operationId?: string; tags?: string[] } }>;
		};
		expect(doc.paths['/v3/me']?.get).toMatchObject({ operationId: 'getMe', tags: ['Tokens'] });
	});
});
