import { applyD1Migrations, reset } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

/**
 * Empty storage with the schema in place: every Durable Object, D1 database, KV namespace, R2 bucket and Queue
 * cleared, then the migrations applied. Test files share one runtime (vitest.config.ts: `isolate: false`), so
 * test/apply-migrations.ts runs this before each file.
 */
export async function freshStorage(): Promise<void> {
	await reset();
	await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
}
