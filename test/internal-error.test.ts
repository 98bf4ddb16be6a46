import { env } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import { api, expectError, seedWorkspace } from './factories';

// In a file of its own: it breaks this file's (isolated) database on purpose.
it('answers an error thrown deep inside with a generic 500 body that leaks no stack or SQL', async () => {
	const { token } = await seedWorkspace();
	await env.DB.exec('DROP TABLE widget_settings');
	const res = await api(token, 'GET', '/v3/widget/settings');
	const body = await expectError(res, 500);
	expect(body.error).toBe('Internal Server Error');
	const text = JSON.stringify(body);
	expect(text).not.toMatch(/widget_settings|SQLITE|at \w+ \(|\.ts:/);
});
