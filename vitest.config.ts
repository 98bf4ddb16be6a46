import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

export default defineConfig(async () => {
	const migrations = await readD1Migrations('./migrations');
	return {
		plugins: [
			cloudflareTest({
				wrangler: { configPath: './wrangler.toml' },
				miniflare: {
					// A low limit so the rate-limit test reaches it quickly; each test uses its own token.
					bindings: {
						TEST_MIGRATIONS: migrations,
						RATE_LIMIT_PER_MINUTE: '40',
						// .dev.vars is not read in tests (and absent in CI): the secret the widget tests sign with.
						PARLEY_SECRET: 'test-secret-not-for-production',
					},
				},
			}),
		],
		test: {
			setupFiles: ['./test/apply-migrations.ts'],
			include: ['test/**/*.test.ts'],
			// Two cores shared by workerd and vitest: generous per-test time, none of it spent sleeping.
			testTimeout: 30_000,
		},
	};
});
