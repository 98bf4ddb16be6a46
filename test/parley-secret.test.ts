import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deploymentSecret } from '../src/auth/secrets';
import { workspaces } from '../src/db/schema';
import type { RequestLogLine } from '../src/http/request-log';
import worker from '../src/index';
import { db, expectError, randomIp, seedWorkspace } from './factories';

/** Calls the Worker with its real bindings but another PARLEY_SECRET, as a misconfigured deployment would run. */
async function callWithSecret(secret: string, path: string, init: RequestInit = {}): Promise<Response> {
	const ctx = createExecutionContext();
	const headers = { 'CF-Connecting-IP': randomIp(), 'Content-Type': 'application/json', ...init.headers };
	const res = await worker.fetch(
		new Request(`https://parley.test${path}`, { ...init, headers }),
		{ ...env, PARLEY_SECRET: secret },
		ctx,
	);
	await waitOnExecutionContext(ctx);
	return res;
}

afterEach(() => {
	vi.restoreAllMocks();
});

const SHORT = 'a'.repeat(31);

describe('a short PARLEY_SECRET', () => {
	it('answers a route that needs it with a generic 500 and logs one line naming the variable and the fix', async () => {
		const { workspaceId } = await seedWorkspace();
		const error = vi.spyOn(console, 'error').mockImplementation(() => {});
		const res = await callWithSecret(SHORT, `/widget/${workspaceId}/sessions`, { method: 'POST', body: '{}' });
		const body = await expectError(res, 500);
		expect(JSON.stringify(body)).not.toMatch(/PARLEY_SECRET|openssl/);
		expect(error).toHaveBeenCalledTimes(1);
		const line = error.mock.calls[0]?.[0] as RequestLogLine;
		expect(line.error?.name).toBe('ConfigurationError');
		expect(line.error?.message).toMatch(/PARLEY_SECRET is too short/);
		expect(line.error?.message).toContain('wrangler secret put PARLEY_SECRET');
		expect(line.error?.message).toContain('openssl rand -base64 32');
		expect(JSON.stringify(line)).not.toContain(SHORT);
	});

	it('is answered the same way when it is not set at all: one 500 for every reader, never a 503', async () => {
		const { workspaceId } = await seedWorkspace();
		const error = vi.spyOn(console, 'error').mockImplementation(() => {});
		const res = await callWithSecret('', `/widget/${workspaceId}/sessions`, { method: 'POST', body: '{}' });
		await expectError(res, 500);
		const line = error.mock.calls[0]?.[0] as RequestLogLine;
		expect(line.error?.message).toMatch(/PARLEY_SECRET is not set/);
	});

	it('changes nothing: rotating the identity secret is refused before the version moves', async () => {
		const { workspaceId, token } = await seedWorkspace();
		vi.spyOn(console, 'error').mockImplementation(() => {});
		const res = await callWithSecret(SHORT, '/v3/widget/identity-secret', {
			method: 'POST',
			headers: { Authorization: `Bearer ${token}` },
		});
		await expectError(res, 500);
		const [row] = await db
			.select({ version: workspaces.identitySecretVersion })
			.from(workspaces)
			.where(eq(workspaces.id, workspaceId));
		expect(row?.version).toBeNull();
	});

	it('leaves the routes that do not need it working', async () => {
		const { workspaceId, token } = await seedWorkspace();
		expect((await callWithSecret(SHORT, `/widget/${workspaceId}/config`)).status).toBe(200);
		const list = await callWithSecret(SHORT, '/v3/conversations', { headers: { Authorization: `Bearer ${token}` } });
		expect(list.status).toBe(200);
	});

	it.each([
		['31 ASCII characters', SHORT, false],
		['32 ASCII characters', 'a'.repeat(32), true],
		// Bytes, as HMAC sees them: 11 three-byte characters are 33 bytes.
		['11 three-byte characters', '€'.repeat(11), true],
		['empty', '', false],
		['what `openssl rand -base64 32` prints', 'q2Vx8m3bJ0yF5pQ7tLzN1wR4sK9dH6cA2eU8iO0vXgM=', true],
	])('%s: accepted %s', (_name, secret, accepted) => {
		if (accepted) expect(deploymentSecret({ PARLEY_SECRET: secret })).toBe(secret);
		else expect(() => deploymentSecret({ PARLEY_SECRET: secret })).toThrow(/PARLEY_SECRET/);
	});

	it("accepts the test configuration's secret (vitest.config.ts): it is long enough", () => {
		expect(deploymentSecret(env)).toBe(env.PARLEY_SECRET);
	});
});
