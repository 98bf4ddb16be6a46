import { describe, expect, it } from 'vitest';
import { api, expectError, seedOperator, seedWorkspace } from './factories';

async function state(token: string) {
	const res = await api(token, 'GET', '/v3/widget/identity-secret');
	expect(res.status).toBe(200);
	return (await res.json()) as Record<string, unknown>;
}

describe('GET /v3/widget/identity-secret', () => {
	it('says whether verification is on and at which version, through generate, rotate and off, never the secret', async () => {
		const { token } = await seedWorkspace();
		expect(await state(token)).toEqual({ enabled: false, version: null });

		await api(token, 'POST', '/v3/widget/identity-secret');
		expect(await state(token)).toEqual({ enabled: true, version: 1 });
		await api(token, 'POST', '/v3/widget/identity-secret');
		expect(await state(token)).toEqual({ enabled: true, version: 2 });

		expect((await api(token, 'DELETE', '/v3/widget/identity-secret')).status).toBe(204);
		expect(await state(token)).toEqual({ enabled: false, version: null });
		// Turned on again, it is a secret never used before.
		await api(token, 'POST', '/v3/widget/identity-secret');
		expect(await state(token)).toEqual({ enabled: true, version: 3 });
	});

	it('is for admins only, and tells one workspace nothing of another', async () => {
		const { workspaceId } = await seedWorkspace();
		const agent = await seedOperator(workspaceId, ['conversations:read']);
		await expectError(await api(agent.token, 'GET', '/v3/widget/identity-secret'), 403);

		const other = await seedWorkspace();
		await api(other.token, 'POST', '/v3/widget/identity-secret');
		const mine = await seedOperator(workspaceId, ['admin']);
		expect(await state(mine.token)).toEqual({ enabled: false, version: null });
	});
});
