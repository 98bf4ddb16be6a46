/**
 * Where a workspace's data lives (docs/SCALING.md, "Past one database"). A deployment has one directory
 * database, the `DB` binding, which is always a shard too, and the other D1 bindings `D1_SHARDS` names (none by
 * default: one database, as every deployment was before shards). The directory places each workspace on a shard
 * (`workspace_shards`) and routes what arrives naming no workspace (a token, a console session, a WhatsApp
 * number, a scenario's webhook) to its workspace (`directory_routes`); everything a workspace owns is in its
 * shard, every shard has the whole schema (the same migrations), so a workspace's queries and joins are unchanged.
 *
 * This file is the one place that reads those bindings: a workspace's handle (`workspaceDb`), the directory's
 * (`directoryDb`), and every shard's for the work that crosses workspaces (`everyShard`: the minute's sweeps).
 * A workspace the directory does not place is in the `DB` database: where every workspace was before shards.
 */
import { sql } from 'drizzle-orm';
import { type Database, openDatabase } from './client';
import type { ROUTE_KINDS } from './schema/directory';

/** The binding of the directory, which is also the shard of every workspace it does not place. */
export const DIRECTORY = 'DB';

/** How long an isolate trusts what it read of a workspace's shard (a move waits this out: docs/SCALING.md). */
export const PLACEMENT_CACHE_MS = 60_000;

/** Placements an isolate keeps at most: a widget path names any id it likes, so the cache must not grow without end. */
const MAX_CACHED = 10_000;

const placements = new Map<string, { shard: string; until: number }>();

function remember(workspaceId: string, shard: string, until: number): void {
	if (placements.size >= MAX_CACHED) placements.clear();
	placements.set(workspaceId, { shard, until });
}

/**
 * The shard bindings: `DB` first, whatever `D1_SHARDS` says (it holds every workspace the directory does not
 * place, so the sweeps must reach it), then the others `D1_SHARDS` names (binding names separated by commas).
 */
export function shardNames(env: Env): string[] {
	const listed = (env.D1_SHARDS ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter((name) => name !== '');
	return [...new Set([DIRECTORY, ...listed])];
}

/** Whether `DB` is the deployment's only database (the default): nothing to look up. */
function directoryOnly(env: Env): boolean {
	const names = shardNames(env);
	return names.length === 1 && names[0] === DIRECTORY;
}

/** A shard's D1 binding, by name; an error names a shard the deployment does not bind. */
export function shardBinding(env: Env, name: string): D1Database {
	const binding = (env as unknown as Record<string, unknown>)[name];
	if (typeof binding !== 'object' || binding === null || !('prepare' in binding)) {
		throw new Error(`The D1 shard "${name}" is not bound: add it to wrangler.toml's d1_databases.`);
	}
	return binding as D1Database;
}

/** The directory's D1 binding. */
export function directoryBinding(env: Env): D1Database {
	return env.DB;
}

/** A handle on the directory: the workspaces' placements and the credentials' routes. */
export function directoryDb(env: Env): Database {
	return openDatabase(env.DB);
}

/**
 * The name of the shard holding `workspaceId`: `DB` when the deployment has no other, else the directory's
 * placement (cached per isolate for PLACEMENT_CACHE_MS), `DB` for a workspace it does not place.
 */
export async function shardOf(env: Env, workspaceId: string, now = Date.now()): Promise<string> {
	if (directoryOnly(env)) return DIRECTORY;
	const cached = placements.get(workspaceId);
	if (cached && cached.until > now) return cached.shard;
	const row = await env.DB.prepare('SELECT shard FROM workspace_shards WHERE workspace_id = ?')
		.bind(workspaceId)
		.first<{ shard: string }>();
	const shard = row?.shard ?? DIRECTORY;
	remember(workspaceId, shard, now + PLACEMENT_CACHE_MS);
	return shard;
}

/** The D1 binding holding `workspaceId`'s data. */
export async function workspaceBinding(env: Env, workspaceId: string): Promise<D1Database> {
	return shardBinding(env, await shardOf(env, workspaceId));
}

/** A handle on the database holding `workspaceId`'s data: every query scoped to the workspace goes through it. */
export async function workspaceDb(env: Env, workspaceId: string): Promise<Database> {
	return openDatabase(await workspaceBinding(env, workspaceId));
}

/**
 * The handle for work a Queue message names a workspace for: its shard's, or `DB` for a message sent before
 * messages named one (a workspace the directory does not place is there too).
 */
export async function messageDb(env: Env, workspaceId: string | undefined): Promise<Database> {
	return workspaceId ? workspaceDb(env, workspaceId) : openDatabase(env.DB);
}

/** `items` grouped by the shard holding each one's workspace (`DB` for none), with that shard's handle. */
export async function groupByShard<T>(
	env: Env,
	items: readonly T[],
	workspaceOf: (item: T) => string | undefined,
): Promise<Array<{ db: Database; items: T[] }>> {
	const groups = new Map<string, T[]>();
	for (const item of items) {
		const workspaceId = workspaceOf(item);
		const shard = workspaceId ? await shardOf(env, workspaceId) : DIRECTORY;
		const group = groups.get(shard);
		if (group) group.push(item);
		else groups.set(shard, [item]);
	}
	return [...groups].map(([shard, grouped]) => ({ db: openDatabase(shardBinding(env, shard)), items: grouped }));
}

/** One handle per shard, for work that crosses workspaces (each shard's rows carry their workspace). */
export function everyShard(env: Env): { name: string; db: Database }[] {
	return shardNames(env).map((name) => ({ name, db: openDatabase(shardBinding(env, name)) }));
}

/**
 * Runs `work` on every shard side by side and returns what each gave, in shard order. A failing shard does not
 * keep the others from their turn: every shard is worked on, then the first error is thrown.
 */
export async function forEachShard<T>(env: Env, work: (db: Database, shard: string) => Promise<T>): Promise<T[]> {
	const settled = await Promise.allSettled(everyShard(env).map(({ name, db }) => work(db, name)));
	const failed = settled.find((outcome) => outcome.status === 'rejected');
	if (failed) throw failed.reason;
	return settled.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}

/**
 * The shard a new workspace goes to: the one with the fewest bytes (D1 reports a database's size with every
 * answer, `meta.size_after`), then the fewest workspaces placed, then the configured order.
 */
export async function emptiestShard(env: Env): Promise<string> {
	const names = shardNames(env);
	if (names.length === 1) return names[0] as string;
	const counts = await env.DB.prepare('SELECT shard, COUNT(*) AS n FROM workspace_shards GROUP BY shard').all<{
		shard: string;
		n: number;
	}>();
	const placed = new Map(counts.results.map((row) => [row.shard, row.n]));
	const sizes = await Promise.all(
		names.map(async (name) => {
			const answer = await shardBinding(env, name).prepare('SELECT 1').run();
			return answer.meta.size_after ?? 0;
		}),
	);
	const ranked = names
		.map((name, order) => ({ name, order, bytes: sizes[order] ?? 0, workspaces: placed.get(name) ?? 0 }))
		.sort((a, b) => a.bytes - b.bytes || a.workspaces - b.workspaces || a.order - b.order);
	return (ranked[0] as (typeof ranked)[number]).name;
}

/** Places `workspaceId` on `shard` in the directory (before any of its rows is written there). */
export async function placeWorkspace(env: Env, workspaceId: string, shard: string, now = Date.now()): Promise<void> {
	await directoryDb(env).run(
		sql`INSERT INTO workspace_shards (workspace_id, shard, placed_at) VALUES (${workspaceId}, ${shard}, ${now})`,
	);
	remember(workspaceId, shard, now + PLACEMENT_CACHE_MS);
}

/** What a key that arrives without its workspace is routed by (src/db/schema/directory.ts). */
export type RouteKind = (typeof ROUTE_KINDS)[number];

/**
 * Routes a new credential (or a connected number) of `workspaceId` to it, before its own row is written in the
 * workspace's shard. Only a workspace placed outside `DB` needs it (an unrouted key is looked for in `DB`). A
 * route whose row was never written, or is gone, routes to a shard that refuses it: it admits nothing.
 */
export async function addRoute(
	env: Env,
	kind: RouteKind,
	key: string,
	workspaceId: string,
	now = Date.now(),
): Promise<void> {
	if ((await shardOf(env, workspaceId)) === DIRECTORY) return;
	await directoryDb(env).run(
		sql`INSERT OR REPLACE INTO directory_routes (kind, key, workspace_id, created_at) VALUES (${kind}, ${key}, ${workspaceId}, ${now})`,
	);
}

/** The workspace `key` is routed to, or null when it has none (then it is looked for in `DB`). */
export async function routedWorkspace(env: Env, kind: RouteKind, key: string): Promise<string | null> {
	if (directoryOnly(env)) return null;
	const route = await env.DB.prepare('SELECT workspace_id FROM directory_routes WHERE kind = ? AND key = ?')
		.bind(kind, key)
		.first<{ workspace_id: string }>();
	return route?.workspace_id ?? null;
}

/** The database a credential's row is in: its route's workspace's shard, or `DB` when it has no route. */
export async function credentialBinding(env: Env, kind: RouteKind, key: string): Promise<D1Database> {
	const workspaceId = await routedWorkspace(env, kind, key);
	return workspaceId ? workspaceBinding(env, workspaceId) : env.DB;
}

/**
 * For what names no workspace and is not routed (signing in by e-mail, a password link, a received mail's
 * recipient): `here`, the request's own handle, when `DB` is the only database; otherwise a handle on every
 * shard, to ask each.
 */
export function shardsToAsk(env: Env, here: Database): Database[] {
	return directoryOnly(env) ? [here] : everyShard(env).map(({ db }) => db);
}

/** What `read` finds in the first of `shards` (in their order) that has it, with that shard; asked side by side. */
export async function firstFound<T>(
	shards: Database[],
	read: (shard: Database) => Promise<T | null | undefined>,
): Promise<{ row: T; shard: Database } | null> {
	const rows = await Promise.all(shards.map(read));
	const at = rows.findIndex((row) => row !== null && row !== undefined);
	return at < 0 ? null : { row: rows[at] as T, shard: shards[at] as Database };
}

/** Forgets what this isolate read of the placements (tests; a move's last step on the isolate that made it). */
export function forgetPlacements(): void {
	placements.clear();
}
