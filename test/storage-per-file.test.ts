import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

// Test files share one runtime (vitest.config.ts: `isolate: false`); test/apply-migrations.ts empties its
// storage before each file. Whatever files ran before this one in the same runtime, it starts from nothing.
// (Durable Objects are emptied by the same reset, but the runtime still lists the ids of deleted ones, so
// `listDurableObjectIds` cannot show it; every test addresses its own objects by ids of its own anyway.)
describe('the storage a test file starts from', () => {
	it('holds no row, key or object a file before it wrote, and the schema is in place', async () => {
		// Rows only a test or a request writes. (A consumer's rows, such as events or API log entries, could in
		// principle still come late from work an earlier file left running; they carry that file's workspace.)
		const tables = ['workspaces', 'operators', 'api_tokens', 'custom_fields'];
		for (const table of tables) {
			const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>();
			expect(row?.n, table).toBe(0);
		}
		expect((await env.WIDGET_CONFIG.list()).keys).toEqual([]);
		expect((await env.FILES.list()).objects).toEqual([]);
	});
});
