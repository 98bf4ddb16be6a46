import { applyD1Migrations, reset } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

// Runs before each test file. Files share one runtime (vitest.config.ts: `isolate: false`), so the file
// starts from empty storage: every Durable Object, D1 database, KV namespace, R2 bucket and Queue cleared.
await reset();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
