import { exports } from 'cloudflare:workers';
import { expect, it } from 'vitest';

it('GET /health answers 200', async () => {
	const res = await exports.default.fetch('https://parley.test/health');
	expect(res.status).toBe(200);
});
