import type { D1Migration } from '@cloudflare/vitest-plugin';

// Test-only bindings, added by vitest.config.ts on top of the generated Env.
declare global {
	namespace Cloudflare {
		interface Env {
			TEST_MIGRATIONS: D1Migration[];
			/** A `send_email` binding that refuses every sender the tests use (vitest.config.ts). */
			REFUSING_EMAIL: SendEmail;
			/** The fake Graph API's address (test/fake-graph/server.mjs), started by vitest.config.ts. */
			WHATSAPP_GRAPH_URL: string;
			/** The fake push service's address (test/fake-push/server.mjs), started by vitest.config.ts. */
			PUSH_RELAY_URL: string;
			/** The second shard, bound in the workers-shards project only (vitest.config.ts, test/shards.test.ts). */
			DB_SHARD_2?: D1Database;
		}
	}
}
