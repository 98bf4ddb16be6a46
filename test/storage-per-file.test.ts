import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { seedWorkspace } from './factories';
import { freshStorage } from './fresh-storage';

// Test files share one runtime (vitest.config.ts: `isolate: false`); before each file test/apply-migrations.ts
// calls `freshStorage`. Here it runs on storage a test wrote, so what it clears is seen, whichever files ran
// before this one. (Durable Objects are cleared by the same reset, but the runtime still lists the ids of
// deleted ones, so `listDurableObjectIds` cannot show it; every test addresses objects by ids of its own.)
describe('the storage a test file starts from', () => {
	it('holds no row, key or object written before it, and the schema is in place', async () => {
		await seedWorkspace();
		await env.WIDGET_CONFIG.put('left-behind', '1');
		await env.FILES.put('left-behind', 'x');
		const before = await env.DB.prepare('SELECT count(*) AS n FROM workspaces').first<{ n: number }>();
		expect(before?.n).toBeGreaterThan(0);

		await freshStorage();

		for (const table of ['workspaces', 'operators', 'api_tokens', 'custom_fields']) {
			const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>();
			expect(row?.n, table).toBe(0);
		}
		expect((await env.WIDGET_CONFIG.list()).keys).toEqual([]);
		expect((await env.FILES.list()).objects).toEqual([]);
	});
});
