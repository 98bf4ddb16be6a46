import { applyD1Migrations, reset } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

// Runs before each test file. Files share one runtime (vitest.config.ts: `isolate: false`), so the file starts
// from empty storage: every Durable Object, D1 database, KV namespace, R2 bucket and Queue cleared. First a
// moment for the previous file's last Queue batches (a 0.1 s window in tests) to finish: a consumer still
// running after the reset would write its rows into this file's storage.
await new Promise((resolve) => setTimeout(resolve, 250));
await reset();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
