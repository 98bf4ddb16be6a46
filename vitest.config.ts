import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { configDefaults, defineConfig } from 'vitest/config';

// Two projects: `workers` runs inside the Workers runtime (routes, Durable Objects, queues); `browser` drives
// Chromium in Node against one real `wrangler dev` (test/browser/global-setup.ts). `--project <name>` picks one.
// .dev.vars is absent in CI: the secret the widget tests sign with (32 bytes or more, or it is refused).
const TEST_SECRET = 'test-secret-not-for-production-32-bytes-or-more';

export default defineConfig(async () => {
	const migrations = await readD1Migrations('./migrations');
	// wrangler.toml lists PARLEY_SECRET under `[secrets] required`: reading the config, wrangler looks for it in
	// the environment (and warns once per test file without it), before the binding below is applied.
	process.env.PARLEY_SECRET ??= TEST_SECRET;
	return {
		test: {
			projects: [
				{
					plugins: [
						cloudflareTest({
							wrangler: { configPath: './wrangler.toml' },
							miniflare: {
								// A low limit so the rate-limit test reaches it quickly; each test uses its own token.
								bindings: {
									TEST_MIGRATIONS: migrations,
									RATE_LIMIT_PER_MINUTE: '40',
									// A short grace so the presence test sees a dropped feed go offline quickly.
									PRESENCE_GRACE_SECONDS: '1',
									// The 2,000-contact campaign goes out within one minute's budget.
									CAMPAIGN_MESSAGES_PER_MINUTE: '5000',
									// The tests' stand-in networks (a `transport`) have no DNS resolver; the guard's own tests give one.
									OUTBOUND_RESOLVER: '',
									PARLEY_SECRET: TEST_SECRET,
								},
							},
						}),
					],
					test: {
						name: 'workers',
						setupFiles: ['./test/apply-migrations.ts'],
						include: ['test/**/*.test.ts'],
						exclude: [...configDefaults.exclude, 'test/browser/**'],
						// Two cores shared by workerd and vitest: generous per-test time, none of it spent sleeping.
						testTimeout: 30_000,
						// Events reach their consumer through a Queue batch (max_batch_timeout 1 s): a 1 s poll races it.
						expect: { poll: { timeout: 10_000 } },
					},
				},
				{
					test: {
						name: 'browser',
						environment: 'node',
						include: ['test/browser/**/*.test.ts'],
						globalSetup: ['./test/browser/global-setup.ts'],
						// One wrangler dev and one Chromium at a time: files run one after another.
						fileParallelism: false,
						testTimeout: 60_000,
						// The page, the Worker and the test share two cores: waits are for outcomes, not for speed.
						expect: { poll: { timeout: 10_000 } },
						hookTimeout: 120_000,
					},
				},
			],
		},
	};
});
