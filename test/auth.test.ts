import { describe, expect, it } from 'vitest';
import { PERMISSIONS, type Permission } from '../src/auth/permissions';
import { generateToken } from '../src/auth/token';
import {
	api,
	d1Timing,
	expectError,
	publishedScenario,
	seedConversation,
	seedOperator,
	seedWorkspace,
} from './factories';

describe('Token V3 authentication', () => {
	const cases: [string, (token: string) => Record<string, string>][] = [
		['no Authorization header', () => ({})],
		['"Bearer" without a token', () => ({ Authorization: 'Bearer' })],
		['"Bearer " and nothing after the space', () => ({ Authorization: 'Bearer ' })],
		['a quoted token', (t) => ({ Authorization: `Bearer "${t}"` })],
		['two spaces', (t) => ({ Authorization: `Bearer  ${t}` })],
		['another scheme', (t) => ({ Authorization: `Basic ${t}` })],
		['trailing characters', (t) => ({ Authorization: `Bearer ${t} x` })],
		['one character too many', (t) => ({ Authorization: `Bearer ${t}a` })],
		// Right prefix and checksum, but never issued.
		['an unknown well-formed token', () => ({ Authorization: `Bearer ${generateToken()}` })],
		[
			'a token with a bad checksum',
			(t) => ({ Authorization: `Bearer ${t.slice(0, -1)}${t.endsWith('A') ? 'B' : 'A'}` }),
		],
	];

	for (const [name, headers] of cases) {
		it(`answers 401 for ${name}`, async () => {
			const { token } = await seedWorkspace();
			const res = await api(null, 'GET', '/v3/conversations', undefined, headers(token));
			const body = await expectError(res, 401);
			expect(body.error).toBe('Unauthorized');
			// Only a well-formed token costs a database read; everything else is refused before.
			const reads = name === 'an unknown well-formed token' ? '1 queries' : '0 queries';
			expect(d1Timing(res)).toBe(`d1;desc="${reads}"`);
		});
	}

	it('accepts the scheme name in any case (RFC 7235)', async () => {
		const { token } = await seedWorkspace();
		const res = await api(null, 'GET', '/v3/conversations', undefined, { Authorization: `bearer ${token}` });
		expect(res.status).toBe(200);
	});

	it('revokes the old token at once on POST /v3/tokens/regenerate', async () => {
		const { token } = await seedWorkspace();
		const res = await api(token, 'POST', '/v3/tokens/regenerate');
		expect(res.status).toBe(201);
		const issued = (await res.json()) as { token: string };
		expect(issued.token).toMatch(/^prly_/);
		expect(issued.token).not.toBe(token);
		await expectError(await api(token, 'GET', '/v3/conversations'), 401);
		expect((await api(issued.token, 'GET', '/v3/conversations')).status).toBe(200);
		// The revoked token cannot regenerate again.
		await expectError(await api(token, 'POST', '/v3/tokens/regenerate'), 401);
	});

	it('lets only one of two racing regenerations win', async () => {
		const { token } = await seedWorkspace();
		const [a, b] = await Promise.all([
			api(token, 'POST', '/v3/tokens/regenerate'),
			api(token, 'POST', '/v3/tokens/regenerate'),
		]);
		expect([a.status, b.status].sort()).toEqual([201, 401]);
		const winner = (await (a.status === 201 ? a : b).json()) as { token: string };
		expect((await api(winner.token, 'GET', '/v3/conversations')).status).toBe(200);
	});
});

describe('POST /v3/team/members', () => {
	it('lets an admin add an operator and issue its first token, which carries its permissions', async () => {
		const { token } = await seedWorkspace();
		const sales = (await (await api(token, 'POST', '/v3/team/groups', { name: 'Sales' })).json()) as { id: string };
		const created = await api(token, 'POST', '/v3/team/members', {
			email: 'Rita@Acme.test',
			name: 'Rita',
			permissions: ['conversations:read'],
			groups: [sales.id],
		});
		expect(created.status).toBe(201);
		const rita = (await created.json()) as { id: string; email: string };
		expect(rita).toMatchObject({ email: 'rita@acme.test', groups: [{ id: sales.id, name: 'Sales' }] });
		const issued = await api(token, 'POST', `/v3/team/members/${rita.id}/token`);
		expect(issued.status).toBe(201);
		const { token: ritaToken } = (await issued.json()) as { token: string };
		expect((await api(ritaToken, 'GET', '/v3/conversations')).status).toBe(200);
		await expectError(await api(ritaToken, 'POST', '/v3/messages', { conversationId: 'conv_x', text: 'hi' }), 403);
	});

	it('answers 409 for an e-mail already in the team and 422 for an unknown permission', async () => {
		const { token } = await seedWorkspace();
		const body = { email: 'sam@acme.test', name: 'Sam', permissions: [] };
		expect((await api(token, 'POST', '/v3/team/members', body)).status).toBe(201);
		await expectError(await api(token, 'POST', '/v3/team/members', body), 409);
		const bad = await api(token, 'POST', '/v3/team/members', { ...body, email: 'x@acme.test', permissions: ['root'] });
		expect((await expectError(bad, 422)).message).toContain('json.permissions.0');
	});
});

describe('permissions', () => {
	it('lets an operator with no permission at all use the routes that need only a valid token', async () => {
		const { workspaceId, token: adminToken } = await seedWorkspace();
		const { webhook: hook } = await publishedScenario(adminToken, {
			start: 'keep',
			steps: [{ id: 'keep', type: 'set_variables', values: { a: '{{ a }}' } }],
		});
		const nobody = await seedOperator(workspaceId, []);
		expect((await api(nobody.token, 'GET', '/v3/widget/settings')).status).toBe(200);
		expect((await api(nobody.token, 'GET', '/v3/widget/info')).status).toBe(200);
		expect((await api(nobody.token, 'POST', `/v3/workflows/webhook/${hook.id}`, { a: 1 })).status).toBe(202);
		expect((await api(nobody.token, 'POST', '/v3/tokens/regenerate')).status).toBe(201);
	});

	// Every route that needs a permission, with a request that would otherwise succeed or fail later.
	const routes: { permission: Permission; method: string; path: string; body?: unknown }[] = [
		{ permission: 'conversations:read', method: 'GET', path: '/v3/conversations' },
		{ permission: 'conversations:read', method: 'GET', path: '/v3/conversations/{conv}' },
		{ permission: 'conversations:read', method: 'GET', path: '/v3/conversations/{conv}/messages' },
		{ permission: 'messages:send', method: 'POST', path: '/v3/conversations', body: { contact: { email: 'a@b.co' } } },
		{ permission: 'messages:send', method: 'PATCH', path: '/v3/conversations/{conv}', body: { status: 'closed' } },
		{
			permission: 'messages:send',
			method: 'POST',
			path: '/v3/messages',
			body: { conversationId: '{conv}', text: 'hi' },
		},
		{ permission: 'admin', method: 'PUT', path: '/v3/widget/settings', body: { ctaText: 'Hi' } },
		{
			permission: 'admin',
			method: 'POST',
			path: '/v3/team/members',
			body: { email: 'n@b.co', name: 'N', permissions: [] },
		},
		{ permission: 'admin', method: 'POST', path: '/v3/team/members/{op}/token' },
		{
			permission: 'admin',
			method: 'POST',
			path: '/v3/scenarios',
			body: { name: 'Leads', definition: { start: 'a', steps: [{ id: 'a', type: 'end' }] } },
		},
		{ permission: 'admin', method: 'GET', path: '/v3/scenarios' },
	];

	for (const route of routes) {
		it(`answers 403 on ${route.method} ${route.path} for a member lacking ${route.permission}`, async () => {
			const { workspaceId, operatorId } = await seedWorkspace();
			const conv = await seedConversation(workspaceId);
			const others = PERMISSIONS.filter((p) => p !== route.permission && p !== 'admin');
			const member = await seedOperator(workspaceId, others);
			const fill = (s: string) => s.replaceAll('{conv}', conv).replaceAll('{op}', operatorId);
			const body = route.body === undefined ? undefined : JSON.parse(fill(JSON.stringify(route.body)));
			const res = await api(member.token, route.method, fill(route.path), body);
			const error = await expectError(res, 403);
			expect(error.message).toContain(route.permission);
			// And the same request passes the permission check with it.
			const allowed = await seedOperator(workspaceId, [route.permission]);
			const ok = await api(allowed.token, route.method, fill(route.path), body);
			expect(ok.status).toBeLessThan(300);
		});
	}
});
