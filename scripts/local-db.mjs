// Helpers for the scripts that work on the local D1 database that `wrangler dev` uses
// (.wrangler/state, or the folder given as persistTo). No Cloudflare account is involved.
import { spawnSync } from 'node:child_process';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getPlatformProxy, unstable_readConfig, unstable_splitSqlQuery } from 'wrangler';
import { generateToken, hashToken, tokenHint } from '../src/auth/token.ts';
import { newId } from '../src/lib/ids.ts';

const WRANGLER = new URL('../node_modules/.bin/wrangler', import.meta.url).pathname;

function wrangler(args, persistTo) {
	const all = persistTo ? [...args, '--persist-to', persistTo] : args;
	const run = spawnSync(WRANGLER, all, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
	if (run.status !== 0) {
		throw new Error(`wrangler ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
	}
	return run.stdout;
}

const ROOT = new URL('..', import.meta.url).pathname;

/**
 * Opens the local D1 database `wrangler dev` uses (under persistTo, else .wrangler/state) in this process and
 * hands it to `work`: one runtime start, about a second, where each `wrangler d1` command costs several (the
 * migrations alone took 40 s as a wrangler command). Only the D1 binding is started (a config of its own with
 * wrangler.toml's database), so nothing else of the app runs or warns; the file is the one wrangler dev opens.
 */
export async function withLocalDatabase(persistTo, work) {
	const config = unstable_readConfig({ config: join(ROOT, 'wrangler.toml') });
	const database = config.d1_databases.find((d) => d.binding === 'DB');
	if (!database) throw new Error('wrangler.toml has no D1 database bound as DB');
	const dir = mkdtempSync(join(tmpdir(), 'parley-local-db-'));
	const configPath = join(dir, 'wrangler.json');
	writeFileSync(
		configPath,
		JSON.stringify({
			name: config.name,
			compatibility_date: config.compatibility_date,
			d1_databases: [{ binding: 'DB', database_name: database.database_name, database_id: database.database_id }],
		}),
	);
	// wrangler dev's --persist-to adds a `v3` folder; the platform proxy's path is that folder itself.
	const proxy = await getPlatformProxy({
		configPath,
		persist: { path: join(persistTo ?? join(ROOT, '.wrangler/state'), 'v3') },
	});
	try {
		return await work(proxy.env.DB);
	} finally {
		await proxy.dispose();
		rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * Applies migrations/ to the local database (idempotent): each one not yet applied, with its record in
 * `d1_migrations` as `wrangler d1 migrations apply` keeps it, in one batch (all of it or none).
 */
export async function applyMigrations(persistTo) {
	const dir = join(ROOT, 'migrations');
	const files = readdirSync(dir)
		.filter((name) => name.endsWith('.sql'))
		.sort();
	await withLocalDatabase(persistTo, async (db) => {
		await db
			.prepare(
				`CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE,
				applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
			)
			.run();
		const applied = new Set((await db.prepare('SELECT name FROM d1_migrations').all()).results.map((r) => r.name));
		for (const name of files.filter((file) => !applied.has(file))) {
			const queries = unstable_splitSqlQuery(readFileSync(join(dir, name), 'utf8'));
			await db.batch([
				...queries.map((q) => db.prepare(q)),
				db.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(name),
			]);
		}
	});
}

/** Runs SQL on the local database and returns each statement's result rows. */
export function query(sql, persistTo) {
	const out = wrangler(['d1', 'execute', 'DB', '--local', '--json', '--command', sql], persistTo);
	return JSON.parse(out).map((result) => result.results);
}

/** Executes a file of SQL statements on the local database. */
export function executeFile(file, persistTo) {
	wrangler(['d1', 'execute', 'DB', '--local', '--file', file], persistTo);
}

/** A SQL string literal. */
export function literal(value) {
	return value === null ? 'NULL' : `'${String(value).replaceAll("'", "''")}'`;
}

/**
 * Finds or creates the workspace `slug` with an admin operator (`admin@<slug>.local`), then issues that admin a
 * fresh Token V3 (revoking the previous one: an operator holds one active token) and a fresh console password.
 * Returns ids, the admin's e-mail, and the plaintext token and password.
 */
export async function seedWorkspace({ slug = 'demo', persistTo } = {}) {
	const [seeded] = await seedWorkspaces([slug], persistTo);
	return seeded;
}

/**
 * A password's stored form, as src/auth/passwords.ts makes and checks it: `pbkdf2-sha256$<iterations>$<salt>$<key>`,
 * base64url without padding (Node's pbkdf2 here: the script cannot import that module, whose imports have no
 * extensions).
 */
function passwordHash(password) {
	const iterations = 600_000;
	const salt = randomBytes(16);
	const key = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
	return `pbkdf2-sha256$${iterations}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * seedWorkspace for many slugs in one batch on the local database: every statement finds its rows by slug, so
 * creating is idempotent, and the closing SELECT reads back the ids. Returns
 * `{ slug, workspaceId, operatorId, email, token, password }` in the order of `slugs`.
 */
export async function seedWorkspaces(slugs, persistTo) {
	for (const slug of slugs) {
		if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)) {
			throw new Error(`workspace slug "${slug}" must be lower-case letters, digits and dashes`);
		}
	}
	const now = Date.now();
	const perWorkspace = [];
	const tokens = new Map();
	// One password for the admins seeded together (hashing is deliberately slow: 60 test workspaces would take
	// 20 s one by one); each seed makes a new one.
	const password = randomBytes(12).toString('base64url');
	const hash = passwordHash(password);
	for (const slug of slugs) {
		const email = literal(`admin@${slug}.local`);
		const admin = `SELECT o.id FROM operators o JOIN workspaces w ON o.workspace_id = w.id WHERE w.slug = ${literal(slug)} AND o.email = ${email}`;
		const name = slug === 'demo' ? 'Demo workspace' : slug;
		const token = generateToken();
		const tokenId = newId('tok', now);
		tokens.set(slug, token);
		perWorkspace.push([
			`INSERT OR IGNORE INTO workspaces (id, slug, name, created_at) VALUES (${literal(newId('ws', now))}, ${literal(slug)}, ${literal(name)}, ${now})`,
			`INSERT OR IGNORE INTO operators (id, workspace_id, email, name, permissions, created_at) SELECT ${literal(newId('op', now))}, id, ${email}, 'Admin', '["admin"]', ${now} FROM workspaces WHERE slug = ${literal(slug)}`,
			`UPDATE api_tokens SET revoked_at = ${now}, replaced_by = ${literal(tokenId)} WHERE operator_id = (${admin}) AND revoked_at IS NULL`,
			`INSERT INTO api_tokens (id, workspace_id, operator_id, token_hash, hint, created_at) SELECT ${literal(tokenId)}, o.workspace_id, o.id, ${literal(await hashToken(token))}, ${literal(tokenHint(token))}, ${now} FROM operators o WHERE o.id = (${admin})`,
			`INSERT INTO operator_passwords (operator_id, workspace_id, hash, updated_at) SELECT o.id, o.workspace_id, ${literal(hash)}, ${now} FROM operators o WHERE o.id = (${admin}) ON CONFLICT (operator_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`,
		]);
	}
	const select = `SELECT w.slug, w.id AS workspaceId, o.id AS operatorId FROM workspaces w JOIN operators o ON o.workspace_id = w.id
		 WHERE w.slug IN (${slugs.map(literal).join(', ')}) AND o.email = 'admin@' || w.slug || '.local'`;
	const rows = await withLocalDatabase(persistTo, async (db) => {
		const results = await db.batch([...perWorkspace.flat(), select].map((statement) => db.prepare(statement)));
		return results.at(-1).results;
	});
	return slugs.map((slug) => {
		const row = rows.find((found) => found.slug === slug);
		if (!row) throw new Error(`workspace "${slug}" was not seeded`);
		return {
			slug,
			workspaceId: row.workspaceId,
			operatorId: row.operatorId,
			email: `admin@${slug}.local`,
			token: tokens.get(slug),
			password,
		};
	});
}

/** The demo workspace's inbound address under `npm run dev`: mail to it starts a conversation. */
export const DEMO_INBOX = 'support@parley-demo.example';

/**
 * Lets the demo workspace receive and send mail locally: its inbound address (DEMO_INBOX) and a sender on
 * the same domain, with links in mail pointing at `baseUrl`. Only what is missing is written, so an address
 * or a sender changed in the console stays as it was. Nothing leaves the machine: wrangler's local `send_email`
 * writes each mail under .wrangler/tmp/ instead of sending it.
 */
export async function seedDemoMail(workspaceId, baseUrl, persistTo) {
	const now = Date.now();
	await withLocalDatabase(persistTo, (db) =>
		db.batch(
			[
				`INSERT OR IGNORE INTO email_addresses (id, workspace_id, address, origin, created_at) VALUES (${literal(newId('mad', now))}, ${literal(workspaceId)}, ${literal(DEMO_INBOX)}, ${literal(baseUrl)}, ${now})`,
				`INSERT OR IGNORE INTO email_settings (workspace_id, sender_name, sender_address, link_origin, updated_at) VALUES (${literal(workspaceId)}, 'Demo workspace', ${literal(DEMO_INBOX)}, ${literal(baseUrl)}, ${now})`,
			].map((statement) => db.prepare(statement)),
		),
	);
}

/**
 * Makes sure .dev.vars holds a PARLEY_SECRET (it signs visitor sessions locally), appending a random one when
 * missing. .dev.vars is git-ignored; production sets the secret with `wrangler secret put PARLEY_SECRET`.
 */
export function ensureDevSecret() {
	const file = new URL('../.dev.vars', import.meta.url);
	const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
	if (/^PARLEY_SECRET=/m.test(current)) return;
	const line = `PARLEY_SECRET=${randomBytes(32).toString('base64url')}\n`;
	writeFileSync(file, current && !current.endsWith('\n') ? `${current}\n${line}` : current + line);
}
