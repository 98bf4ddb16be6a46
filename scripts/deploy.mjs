// `npm run deploy`: everything a Cloudflare account needs for Parley, then the deploy, in one idempotent
// command (the order and its reasons: scripts/deploy-plan.mjs). It reads wrangler.toml with wrangler's own
// config reading (the `unstable_readConfig` export: the exact parse and normalisation `wrangler deploy` uses),
// asks the account what exists, and runs only the wrangler commands that are missing; run twice, the second
// run creates nothing, applies no migration and keeps the secret, and uploads the same Worker again.
//
//   node scripts/deploy.mjs           plan against the account, build, then run the plan
//   node scripts/deploy.mjs --plan    print that plan and change nothing
//   node scripts/deploy.mjs --check   no account: fail when a binding has no provisioning step (CI)
//
// Last, D1 read replication is switched on for every bound database that does not have it (the Cloudflare API's
// `read_replication.mode = "auto"`; wrangler has no command for it): the API's reads then go to a nearby replica
// (docs/EDGE.md). PARLEY_READ_REPLICATION=off leaves every database's mode as it is.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unstable_convertConfigBindingsToStartWorkerBindings, unstable_readConfig } from 'wrangler';
import { EMPTY_ACCOUNT, parseQueueNames, planDeploy, provisioningGaps, replicationChanges } from './deploy-plan.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const WRANGLER = join(ROOT, 'node_modules/.bin/wrangler');
/** Bytes of randomness in a generated secret (src/auth/secrets.ts refuses fewer than 32). */
const SECRET_BYTES = 32;

const mode = process.argv[2] ?? 'deploy';
if (!['deploy', '--plan', '--check'].includes(mode)) {
	console.error('usage: node scripts/deploy.mjs [--plan | --check]');
	process.exit(2);
}

const config = readDeployConfig();
if (mode === '--check') {
	const gaps = provisioningGaps(config);
	describe(planDeploy(config, EMPTY_ACCOUNT).steps, 'On a fresh account, npm run deploy runs');
	if (gaps.length > 0) fail(`wrangler.toml binds what npm run deploy cannot provision:\n- ${gaps.join('\n- ')}`);
	console.log('Every binding in wrangler.toml has a provisioning step.');
	process.exit(0);
}

const account = readAccount(config);
const { steps, problems } = planDeploy(config, account);
const replicate = process.env.PARLEY_READ_REPLICATION === 'off' ? [] : replicationChanges(config, readModes(account));
describe(steps, mode === '--plan' ? 'npm run deploy would run' : 'Running');
if (replicate.length > 0)
	console.log(`  then switch D1 read replication on for ${replicate.join(', ')} (Cloudflare API)`);
if (problems.length > 0) fail(`Fix these first:\n- ${problems.join('\n- ')}`);
if (mode === '--plan') process.exit(0);
// The static assets the deploy uploads (dist/public): a fresh clone has none.
if (spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' }).status !== 0)
	fail('the build failed.');
for (const step of steps) run(step);
if (replicate.length > 0) await switchReplicationOn(replicate);

/** wrangler.toml as wrangler reads it, in the shape the plan takes. */
function readDeployConfig() {
	const wranglerConfig = unstable_readConfig({ config: join(ROOT, 'wrangler.toml') });
	return {
		name: wranglerConfig.name,
		bindings: unstable_convertConfigBindingsToStartWorkerBindings(wranglerConfig) ?? {},
		consumers: wranglerConfig.queues?.consumers ?? [],
		migrations: wranglerConfig.migrations ?? [],
		requiredSecrets: wranglerConfig.secrets?.required ?? [],
	};
}

/** What the account holds, by wrangler's listing commands (any failure, e.g. not logged in, stops here). */
function readAccount(deployConfig) {
	const queues = [];
	// Pages until an empty one: the list has no JSON form and no "all" option.
	for (let page = 1; page <= 100; page++) {
		const names = parseQueueNames(query(['queues', 'list', '--page', String(page)]));
		if (names.length === 0) break;
		queues.push(...names);
	}
	const databases = JSON.parse(query(['d1', 'list', '--json'])).map((db) => db.name);
	const kvNamespaces = JSON.parse(query(['kv', 'namespace', 'list'])).map((ns) => ns.title);
	const secretList = wrangler(['secret', 'list', '--format', 'json']);
	const workerMissing =
		secretList.status !== 0 && /Worker "[^"]+".*not found/.test(`${secretList.stdout}${secretList.stderr}`);
	if (secretList.status !== 0 && !workerMissing) fail(`wrangler secret list failed:\n${secretList.stderr}`);
	const secrets = workerMissing ? [] : JSON.parse(secretList.stdout).map((secret) => secret.name);
	if (workerMissing) console.log(`The Worker "${deployConfig.name}" does not exist yet: this is its first deploy.`);
	return { workerExists: !workerMissing, queues, databases, kvNamespaces, secrets };
}

/** Each existing database's read replication mode, by name (`d1 info` reports it). */
function readModes(account) {
	const modes = {};
	for (const name of account.databases) modes[name] = databaseInfo(name).read_replication?.mode;
	return modes;
}

function databaseInfo(name) {
	return JSON.parse(query(['d1', 'info', name, '--json']));
}

/**
 * `PUT /accounts/{account}/d1/database/{id}` with `read_replication.mode = "auto"` per database, with wrangler's
 * own credentials (`wrangler auth token`: the login's OAuth token or CLOUDFLARE_API_TOKEN).
 */
async function switchReplicationOn(names) {
	const credentials = JSON.parse(query(['auth', 'token', '--json']));
	const headers =
		credentials.type === 'api_key'
			? { 'X-Auth-Key': credentials.key, 'X-Auth-Email': credentials.email }
			: { Authorization: `Bearer ${credentials.token}` };
	const accountId = process.env.CLOUDFLARE_ACCOUNT_ID ?? onlyAccount();
	for (const name of names) {
		const { uuid } = databaseInfo(name);
		const response = await fetch(`https://api.cloudflare.com/client/v4/accounts/${accountId}/d1/database/${uuid}`, {
			method: 'PUT',
			headers: { ...headers, 'Content-Type': 'application/json' },
			body: JSON.stringify({ read_replication: { mode: 'auto' } }),
		});
		if (!response.ok) {
			fail(
				`switching read replication on for ${name} answered ${response.status}: ${await response.text()}\n` +
					'The deploy itself is done; switch it on in the dashboard (D1, the database, Settings) or run npm run deploy again.',
			);
		}
		console.log(`D1 read replication is on for ${name}.`);
	}
}

/** The account wrangler is logged in to, when it is one (else CLOUDFLARE_ACCOUNT_ID must say which). */
function onlyAccount() {
	const accounts = JSON.parse(query(['whoami', '--json'])).accounts ?? [];
	if (accounts.length !== 1) fail('several Cloudflare accounts: set CLOUDFLARE_ACCOUNT_ID to the one to deploy to.');
	return accounts[0].id;
}

/** Runs one step with its output on the terminal (wrangler may ask to confirm a migration there). */
function run(step) {
	const args = [...step.command];
	let folder;
	if (step.secrets.length > 0) {
		// A file only this user can read, deleted right after: the value appears in no argument, log or output.
		folder = mkdtempSync(join(tmpdir(), 'parley-deploy-'));
		const file = join(folder, 'secrets.json');
		const values = Object.fromEntries(
			step.secrets.map((name) => [name, randomBytes(SECRET_BYTES).toString('base64url')]),
		);
		writeFileSync(file, JSON.stringify(values), { mode: 0o600 });
		args.push('--secrets-file', file);
	}
	try {
		const result = spawnSync(WRANGLER, args, { cwd: ROOT, stdio: 'inherit' });
		if (result.status !== 0) fail(`wrangler ${step.command.join(' ')} failed; run npm run deploy again once fixed.`);
	} finally {
		if (folder) rmSync(folder, { recursive: true, force: true });
	}
}

function wrangler(args) {
	return spawnSync(WRANGLER, args, {
		cwd: ROOT,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, FORCE_COLOR: '0', WRANGLER_HIDE_BANNER: 'true' },
	});
}

function query(args) {
	const result = wrangler(args);
	if (result.status !== 0) fail(`wrangler ${args.join(' ')} failed (logged in? npx wrangler login):\n${result.stderr}`);
	return result.stdout;
}

function describe(planned, heading) {
	console.log(`${heading}:`);
	for (const { command, secrets } of planned) {
		const generated = secrets.length > 0 ? `   (with ${secrets.join(', ')}: generated, not shown)` : '';
		console.log(`  wrangler ${command.join(' ')}${generated}`);
	}
}

function fail(message) {
	console.error(`npm run deploy: ${message}`);
	process.exit(1);
}
