import { readFileSync, statSync } from 'node:fs';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { unstable_readConfig } from 'wrangler';
import { startFakeGraph } from './test/fake-graph/server.mjs';
import { startFakePush } from './test/fake-push/server.mjs';

// Two projects: `workers` runs inside the Workers runtime (routes, Durable Objects, queues); `browser` drives
// Chromium (and, for the widget's journeys, WebKit and Firefox) in Node against one real `wrangler dev`
// (test/browser/global-setup.ts). `--project <name>` picks one.
// .dev.vars is absent in CI: the secret the widget tests sign with (32 bytes or more, or it is refused).
const TEST_SECRET = 'test-secret-not-for-production-32-bytes-or-more';
/** The widget's journeys, which each engine's test file runs (see SizeShardSequencer). */
const JOURNEYS = new URL('./test/browser/journeys.ts', import.meta.url);
/** The file that runs with two shards, in a project of its own. */
const SHARDS_TEST = 'test/shards.test.ts';

/** A `[[queues.consumers]]` entry of wrangler.toml, as wrangler reads it (its own type does not resolve here). */
interface WranglerQueueConsumer {
	queue: string;
	max_batch_size?: number;
	max_batch_timeout?: number;
	max_retries?: number;
	dead_letter_queue?: string;
	retry_delay?: number;
}

/**
 * Shards (`npm test` splits the browser files in two, scripts/test.mjs) by the files' sizes rather than by
 * count: largest first, each to the shard with the fewest bytes so far. A browser file's time follows the
 * journeys it holds, so the shards end close together instead of one waiting on the other's three longest.
 * The engine files (widget-engines-*.test.ts) are three lines that run test/browser/journeys.ts: they weigh
 * what it weighs, so the engines spread over the shards instead of landing together as the smallest files.
 */
class SizeShardSequencer extends BaseSequencer {
	override async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
		const { index, count } = this.ctx.config.shard ?? { index: 1, count: 1 };
		const weight = (file: string) =>
			statSync(file).size + (readFileSync(file, 'utf8').includes("from './journeys'") ? statSync(JOURNEYS).size : 0);
		const sized = files
			.map((spec) => ({ spec, size: weight(spec.moduleId) }))
			.sort((a, b) => b.size - a.size || a.spec.moduleId.localeCompare(b.spec.moduleId));
		const loads = Array.from({ length: count }, () => 0);
		const mine: TestSpecification[] = [];
		for (const { spec, size } of sized) {
			const lightest = loads.indexOf(Math.min(...loads));
			loads[lightest] = (loads[lightest] ?? 0) + size;
			if (lightest === index - 1) mine.push(spec);
		}
		return mine;
	}
}

export default defineConfig(async () => {
	const migrations = await readD1Migrations('./migrations');
	// The fake Graph API (WhatsApp's Cloud API) for the whole run: the Worker under test reaches it on 127.0.0.1
	// through the deployment's trusted Graph URL, and the tests drive it through its `/__fake/` endpoints.
	const fakeGraph = await startFakeGraph();
	// The fake push service (Web Push) for the whole run: every push the Worker sends goes there through the
	// deployment's relay setting, and the alert tests read what it received, decrypted.
	const fakePush = await startFakePush();
	// wrangler.toml lists PARLEY_SECRET under `[secrets] required`: reading the config, wrangler looks for it in
	// the environment (and warns once per test file without it), before the binding below is applied.
	process.env.PARLEY_SECRET ??= TEST_SECRET;
	// The Queues as wrangler.toml declares them (size, retries, dead-letter queue), with a batch window of 0.1 s
	// instead of 1 s (5 s for the API log): a test waits for the consumer's work, not for the window, and the
	// messages still travel through the real Queue to the real consumer. Not 0: a burst (500 messages posted in
	// a row) still goes in batches, as it would deployed, rather than one consumer call per message.
	// The webhook deliveries keep theirs (1 s, as deployed): their tests make their own tries through a recording
	// Queue, and read the real consumer's tries of what the API re-sent (outbound-webhooks.test.ts).
	const consumers: WranglerQueueConsumer[] = unstable_readConfig({ config: './wrangler.toml' }).queues.consumers ?? [];
	const queueConsumers = Object.fromEntries(
		consumers.map((consumer) => [
			consumer.queue,
			{
				maxBatchSize: consumer.max_batch_size,
				maxBatchTimeout: consumer.queue === 'parley-webhook-deliveries' ? consumer.max_batch_timeout : 0.1,
				maxRetries: consumer.max_retries,
				deadLetterQueue: consumer.dead_letter_queue,
				retryDelay: consumer.retry_delay,
			},
		]),
	);
	/** The Workers runtime project: `vars` on top of the tests' bindings; with D1_SHARDS, the second shard too. */
	const workersProject = (name: string, vars: Record<string, string>) => {
		const sharded = vars.D1_SHARDS !== undefined;
		return {
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
							WHATSAPP_GRAPH_URL: fakeGraph.url,
							PUSH_RELAY_URL: fakePush.url,
							...vars,
						},
						...(sharded ? { d1Databases: { DB: 'parley', DB_SHARD_2: 'parley-shard-2' } } : {}),
						queueConsumers,
						// A second `send_email` binding beside wrangler.toml's EMAIL, restricted to one sender the
						// tests never use: the local simulation refuses every mail handed to it, as the provider
						// refuses an unverified sender, so the mail tests see a real refusal recorded.
						email: {
							send_email: [
								{ name: 'EMAIL' },
								{ name: 'REFUSING_EMAIL', allowed_sender_addresses: ['nobody@refusing.test'] },
							],
						},
					},
				}),
			],
			test: {
				name,
				setupFiles: ['./test/apply-migrations.ts'],
				// One runtime serves file after file instead of a new one starting (and loading the whole app) for
				// each: that start cost more than most files' tests. Storage stays per file: the setup file above
				// empties it first. Two runtimes side by side, so one file's waits overlap another's work.
				isolate: false,
				maxWorkers: 2,
				include: sharded ? [SHARDS_TEST] : ['test/**/*.test.ts'],
				exclude: [...configDefaults.exclude, 'test/browser/**', ...(sharded ? [] : [SHARDS_TEST])],
				// Two cores shared by workerd and vitest: generous per-test time, none of it spent sleeping.
				testTimeout: 30_000,
				// Events reach their consumer through a Queue batch (max_batch_timeout 1 s): a 1 s poll races it.
				expect: { poll: { timeout: 10_000 } },
			},
		};
	};
	return {
		test: {
			sequence: { sequencer: SizeShardSequencer },
			projects: [
				workersProject('workers', {}),
				// The same runtime with two shards (src/db/shards.ts): DB, the directory, and DB_SHARD_2. A project
				// of its own, so the other files never see a second database: storage is reset per file, and the
				// second database's reset raced the two runtimes of the project above.
				workersProject('workers-shards', { D1_SHARDS: 'DB,DB_SHARD_2' }),
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
