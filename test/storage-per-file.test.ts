import { listDurableObjectIds } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

// Test files share one runtime (vitest.config.ts: `isolate: false`); test/apply-migrations.ts empties its
// storage before each file. Whatever files ran before this one in the same runtime, it starts from nothing.
describe('the storage a test file starts from', () => {
	it('holds no row, key, object or Durable Object a file before it wrote, and the schema is in place', async () => {
		const tables = ['workspaces', 'operators', 'contacts', 'conversations', 'messages', 'events', 'api_logs'];
		for (const table of tables) {
			const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>();
			expect(row?.n, table).toBe(0);
		}
		expect((await env.WIDGET_CONFIG.list()).keys).toEqual([]);
		expect((await env.FILES.list()).objects).toEqual([]);
		expect(await listDurableObjectIds(env.CONVERSATION_ROOM)).toEqual([]);
		expect(await listDurableObjectIds(env.WORKSPACE_HUB)).toEqual([]);
		expect(await listDurableObjectIds(env.RATE_LIMITER)).toEqual([]);
		expect(await listDurableObjectIds(env.TOKEN_GATE)).toEqual([]);
	});
});
