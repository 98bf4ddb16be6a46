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
	// Every shard has the whole schema: the second one too where it is bound (the workers-shards project).
	const shards = env.DB_SHARD_2 ? [env.DB, env.DB_SHARD_2] : [env.DB];
	await Promise.all(shards.map((d1) => d1.batch(queries.map((query) => d1.prepare(query)))));
}
