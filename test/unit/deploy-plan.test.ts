import { describe, expect, it } from 'vitest';
import {
	type Account,
	type DeployConfig,
	EMPTY_ACCOUNT,
	parseQueueNames,
	planDeploy,
	provisioningGaps,
	replicationChanges,
} from '../../scripts/deploy-plan.mjs';

/** Parley's shape in small: what `unstable_readConfig` and wrangler's binding conversion give scripts/deploy.mjs. */
function parleyLike(): DeployConfig {
	return {
		name: 'parley',
		bindings: {
			RATE_LIMIT_PER_MINUTE: { type: 'plain_text', value: '120' },
			ASSETS: { type: 'assets' },
			DB: { type: 'd1', database_name: 'parley', migrations_dir: 'migrations' },
			WIDGET_CONFIG: { type: 'kv_namespace' },
			FILES: { type: 'r2_bucket', bucket_name: 'parley-files' },
			EVENTS: { type: 'queue', queue_name: 'parley-events' },
			API_LOGS: { type: 'queue', queue_name: 'parley-api-logs' },
			WIDGET_FLOOD: { type: 'ratelimit', namespace_id: '1001', simple: { limit: 300, period: 60 } },
			ROOM: { type: 'durable_object_namespace', class_name: 'ConversationRoom' },
			GATE: { type: 'durable_object_namespace', class_name: 'TokenGate' },
		},
		consumers: [
			{ queue: 'parley-events', dead_letter_queue: 'parley-events-dlq' },
			{ queue: 'parley-scenario-runs-dlq' },
			{ queue: 'parley-api-logs' },
		],
		migrations: [
			{ tag: 'v1', new_sqlite_classes: ['ConversationRoom'] },
			{ tag: 'v2', new_sqlite_classes: ['TokenGate'] },
		],
		requiredSecrets: ['PARLEY_SECRET'],
	};
}

const everythingExists: Account = {
	workerExists: true,
	queues: ['parley-events', 'parley-events-dlq', 'parley-scenario-runs-dlq', 'parley-api-logs', 'unrelated'],
	databases: ['parley'],
	kvNamespaces: ['parley-widget-config'],
	secrets: ['PARLEY_SECRET'],
};

const commands = (config: DeployConfig, account: Account) => {
	const { steps, problems } = planDeploy(config, account);
	expect(problems).toEqual([]);
	return steps.map((step) => [...step.command, ...(step.secrets.length ? [`secrets: ${step.secrets}`] : [])]);
};

describe('planDeploy (npm run deploy)', () => {
	it('on a fresh account: every queue the config names (producer, consumer, dead letter), the database, its migrations, then the deploy with a new secret', () => {
		expect(commands(parleyLike(), EMPTY_ACCOUNT)).toEqual([
			['queues', 'create', 'parley-events'],
			['queues', 'create', 'parley-api-logs'],
			['queues', 'create', 'parley-events-dlq'],
			['queues', 'create', 'parley-scenario-runs-dlq'],
			['d1', 'create', 'parley'],
			['d1', 'migrations', 'apply', 'DB', '--remote'],
			['deploy', 'secrets: PARLEY_SECRET'],
		]);
	});

	it('run again once everything exists, it creates nothing and keeps the secret (migrations apply only what is new)', () => {
		expect(commands(parleyLike(), everythingExists)).toEqual([
			['d1', 'migrations', 'apply', 'DB', '--remote'],
			['deploy'],
		]);
	});

	it('creates only what is missing: a dead-letter queue deleted by hand, a secret deleted from the Worker', () => {
		const account = {
			...everythingExists,
			queues: everythingExists.queues.filter((q) => q !== 'parley-events-dlq'),
			secrets: [],
		};
		expect(commands(parleyLike(), account)).toEqual([
			['queues', 'create', 'parley-events-dlq'],
			['d1', 'migrations', 'apply', 'DB', '--remote'],
			['deploy', 'secrets: PARLEY_SECRET'],
		]);
	});

	it('stops before a deploy that would make a second widget-config namespace: one is left from a first deploy that did not finish', () => {
		const account = { ...EMPTY_ACCOUNT, kvNamespaces: ['parley-widget-config'] };
		const { problems } = planDeploy(parleyLike(), account);
		expect(problems).toEqual([expect.stringContaining('parley-widget-config')]);
	});
});

describe('provisioningGaps (the CI check: every binding has a step on a fresh account)', () => {
	it('finds none in a config whose every binding has one', () => {
		expect(provisioningGaps(parleyLike())).toEqual([]);
	});

	const gapCases: [string, (config: DeployConfig) => void, string][] = [
		[
			'a KV namespace with a fixed id (a placeholder would be sent as is)',
			(c) => {
				c.bindings.WIDGET_CONFIG = { type: 'kv_namespace', id: '00000000000000000000000000000000' };
			},
			'WIDGET_CONFIG',
		],
		[
			'a D1 database with a fixed id',
			(c) => {
				c.bindings.DB = { type: 'd1', database_name: 'parley', database_id: '00000000-0000-0000-0000-000000000000' };
			},
			'DB',
		],
		[
			'a D1 database without a name (its migrations run before the deploy, on a database found by name)',
			(c) => {
				c.bindings.DB = { type: 'd1' };
			},
			'DB',
		],
		[
			'a Durable Object class that no migration creates',
			(c) => {
				c.bindings.HUB = { type: 'durable_object_namespace', class_name: 'WorkspaceHub' };
			},
			'HUB',
		],
		[
			'a Durable Object class a later migration deleted',
			(c) => {
				c.migrations.push({ tag: 'v3', deleted_classes: ['TokenGate'] });
			},
			'GATE',
		],
		[
			'a rate limit without its namespace id',
			(c) => {
				c.bindings.WIDGET_FLOOD = { type: 'ratelimit', simple: { limit: 300, period: 60 } };
			},
			'WIDGET_FLOOD',
		],
		[
			'a binding of a kind the deploy knows nothing of',
			(c) => {
				c.bindings.SEARCH = { type: 'vectorize', index_name: 'parley-search' };
			},
			'SEARCH',
		],
		[
			'a required secret the deploy cannot make up',
			(c) => {
				c.requiredSecrets.push('WHATSAPP_APP_SECRET');
			},
			'WHATSAPP_APP_SECRET',
		],
	];
	it.each(gapCases)('names %s', (_, change, name) => {
		const config = parleyLike();
		change(config);
		const gaps = provisioningGaps(config);
		expect(gaps).toHaveLength(1);
		expect(gaps[0]).toContain(name);
	});
});

describe('parseQueueNames (the table `wrangler queues list` prints)', () => {
	it('reads the name column, whatever the columns around it', () => {
		const table = [
			' ⛅️ wrangler 4.156.0',
			'┌──────────┬───────────────────┬────────────┬───────────┐',
			'│ id       │ name              │ jurisdiction │ producers │',
			'├──────────┼───────────────────┼────────────┼───────────┤',
			'│ 4f1e…    │ parley-events     │ eu         │ 1         │',
			'├──────────┼───────────────────┼────────────┼───────────┤',
			'│ 9a2b…    │ parley-events-dlq │            │ 0         │',
			'└──────────┴───────────────────┴────────────┴───────────┘',
		].join('\n');
		expect(parseQueueNames(table)).toEqual(['parley-events', 'parley-events-dlq']);
	});

	it('reads an empty page as no queues', () => {
		expect(parseQueueNames('┌┐\n└┘\n')).toEqual([]);
	});
});

describe('replicationChanges (read replicas switched on at deploy)', () => {
	it('switches on every bound database not already in "auto" mode, once per database', () => {
		const config = parleyLike();
		config.bindings.SHARD_1 = { type: 'd1', database_name: 'parley-shard-1' };
		config.bindings.SHARD_1_AGAIN = { type: 'd1', database_name: 'parley-shard-1' };
		config.bindings.ARCHIVE = { type: 'd1', database_name: 'parley-archive' };
		expect(replicationChanges(config, { parley: 'disabled', 'parley-archive': 'auto' })).toEqual([
			'parley',
			'parley-shard-1',
		]);
	});

	it('leaves a config whose databases replicate already alone', () => {
		expect(replicationChanges(parleyLike(), { parley: 'auto' })).toEqual([]);
	});
});
