import type { D1Migration } from '@cloudflare/vitest-plugin';

// Test-only bindings, added by vitest.config.ts on top of the generated Env.
declare global {
	namespace Cloudflare {
		interface Env {
			TEST_MIGRATIONS: D1Migration[];
		}
	}
}
