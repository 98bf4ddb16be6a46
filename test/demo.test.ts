import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { expectError } from './factories';

describe('GET /demo', () => {
	it('does not exist without DEMO_WORKSPACE_ID (only `npm run dev` sets it)', async () => {
		const res = await exports.default.fetch('https://parley.test/demo');
		const { message } = await expectError(res, 404);
		expect(message).toContain('npm run dev');
	});
});
