import { reset } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

/**
 * Empty storage with the schema in place: every Durable Object, D1 database, KV namespace, R2 bucket and Queue
 * cleared, then the migrations applied. Test files share one runtime (vitest.config.ts: `isolate: false`), so
 * test/apply-migrations.ts runs this before each file. The migrations go in one batch, about a third of the
 * time of a batch per migration (`applyD1Migrations`), which 150 files pay; nothing here reads `d1_migrations`.
 */
export async function freshStorage(): Promise<void> {
	await reset();
	const queries = env.TEST_MIGRATIONS.flatMap((migration) => migration.queries);
	await env.DB.batch(queries.map((query) => env.DB.prepare(query)));
}
