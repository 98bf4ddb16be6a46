import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../src/auth/token';
import { api, awayFromMinuteBoundary, expectError, seedOperator, seedWorkspace } from './factories';

const LIMIT = 40;

/** A token's gate, and its hash (the gate's name and what `authorize` is asked about). */
async function gateOf(token: string) {
	const hash = await hashToken(token);
	return { hash, gate: env.TOKEN_GATE.getByName(hash) };
}

/** Revokes a token in D1 only, as a change that never told the gate would. */
async function revokeBehindTheGate(hash: string) {
	await env.DB.prepare('UPDATE api_tokens SET revoked_at = ? WHERE token_hash = ?').bind(Date.now(), hash).run();
}

describe('TokenGate', () => {
	it('reads a token from D1 once, then answers from memory while it counts each request', async () => {
		const { token, operatorId, workspaceId } = await seedWorkspace();
		const { hash, gate } = await gateOf(token);
		await awayFromMinuteBoundary();
		const first = await gate.authorize(hash, LIMIT);
		expect(first).toMatchObject({
			caller: { operatorId, workspaceId, credential: { kind: 'token', hash } },
			d1Statements: 1,
		});
		expect(first.rate?.remaining).toBe(LIMIT - 1);
		const second = await gate.authorize(hash, LIMIT);
		expect(second).toMatchObject({ caller: { operatorId }, d1Statements: 0 });
		expect(second.rate?.remaining).toBe(LIMIT - 2);
	});

	it('reads D1 for every request once suspended: a revocation committed after the suspension is seen at once', async () => {
		const { token } = await seedWorkspace();
		const { hash, gate } = await gateOf(token);
		await gate.authorize(hash, LIMIT);
		await revokeBehindTheGate(hash);
		// Nothing told the gate: it still answers from memory (why every token change suspends it first).
		expect((await gate.authorize(hash, LIMIT)).caller).not.toBeNull();
		await gate.suspend();
		expect(await gate.authorize(hash, LIMIT)).toEqual({ caller: null, rate: null, d1Statements: 1 });
	});

	it('reads D1 again once what it read is 30 s old, so a change that never reached it is seen then', async () => {
		const { token } = await seedWorkspace();
		const { hash, gate } = await gateOf(token);
		await gate.authorize(hash, LIMIT);
		await revokeBehindTheGate(hash);
		await runInDurableObject(gate, (instance) => {
			const cache = (instance as unknown as { cached: { readAt: number } }).cached;
			cache.readAt -= 30_001;
		});
		expect((await gate.authorize(hash, LIMIT)).caller).toBeNull();
	});

	it('refuses a token D1 does not know without counting anything', async () => {
		const { gate, hash } = await gateOf(`unknown-${crypto.randomUUID()}`);
		expect(await gate.authorize(hash, LIMIT)).toEqual({ caller: null, rate: null, d1Statements: 1 });
		expect((await gate.spend(LIMIT, 1)).remaining).toBe(LIMIT - 1);
	});

	it('hands its count to a successor: the same window keeps the larger count', async () => {
		const { gate: old } = await gateOf(`old-${crypto.randomUUID()}`);
		const { gate: successor } = await gateOf(`new-${crypto.randomUUID()}`);
		await awayFromMinuteBoundary();
		await old.spend(LIMIT, 30);
		await successor.spend(LIMIT, 5);
		await successor.carry(await old.suspend());
		expect((await successor.spend(LIMIT, 1)).remaining).toBe(LIMIT - 31);
	});
});

describe('token changes through the API', () => {
	/** An admin issues the member a new token (which revokes the member's current one). */
	async function issueToken(adminToken: string, operatorId: string): Promise<string> {
		const res = await api(adminToken, 'POST', `/v3/team/members/${operatorId}/token`);
		expect(res.status).toBe(201);
		return ((await res.json()) as { token: string }).token;
	}

	it("revokes a member's token at once when an admin issues the member a new one, though its gate had it", async () => {
		const admin = await seedWorkspace();
		const member = await seedOperator(admin.workspaceId, ['conversations:read']);
		expect((await api(member.token, 'GET', '/v3/conversations')).status).toBe(200);
		const second = await issueToken(admin.token, member.operatorId);
		await expectError(await api(member.token, 'GET', '/v3/conversations'), 401);
		expect((await api(second, 'GET', '/v3/conversations')).status).toBe(200);
	});

	it("carries a member's spent budget over to the token an admin issues in its place", async () => {
		const admin = await seedWorkspace();
		const member = await seedOperator(admin.workspaceId, ['conversations:read']);
		await awayFromMinuteBoundary();
		const spent = await api(member.token, 'GET', '/v3/conversations');
		const remaining = Number(/r=(\d+)/.exec(spent.headers.get('RateLimit') ?? '')?.[1]);
		const second = await issueToken(admin.token, member.operatorId);
		const next = await api(second, 'GET', '/v3/conversations');
		expect(next.headers.get('RateLimit')).toMatch(new RegExp(`^"per-token";r=${remaining - 1};`));
	});
});
