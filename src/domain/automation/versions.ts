/**
 * Versioning shared by every automation document (bots, scenarios): the owner row keeps a draft that builders
 * edit, the version new runs start with (`publishedVersion`) and the latest number given (`lastVersion`).
 * Publishing freezes the draft, checked again, as the next version in `automation_versions`; publishing an
 * older version rolls back to it. A run copies its version's definition, so a publish, a rollback or a
 * deletion never changes a run under way.
 *
 * The life of every automation owner (bots, scenarios, automation and assignment rules) is here too: created,
 * changed only while still as read (a 409 otherwise), deleted with what hangs on it, published; each change
 * committed once with its event (`bot.updated` naming each field from and to). The owners' modules build the
 * rows and say what their change sets.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import {
	batchGuard,
	brokeGuard,
	brokeVersionGuard,
	type Database,
	type Statement,
	versionGuard,
} from '../../db/client';
import {
	type assignmentRules,
	type automationRules,
	automationVersions,
	type bots,
	type scenarios,
} from '../../db/schema';
import { under } from '../../engines/step-graph';
import { commit, release } from '../../events/commit';
import { afterByName, type ByNameCursor, pageOf } from '../../lib/cursor';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { assertVersion, changedSince, type ExpectedVersion, expectsVersion } from '../../lib/expected-version';
import { iso } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { changesOf, type EventPayload, newEvent } from '../../model/events';

/**
 * The tables of automation documents: each has the same id, workspace, name and `updated_at` columns (the
 * versioned ones, bots and scenarios, their version columns too; rules use the row and update helpers only).
 */
type OwnerTable = typeof bots | typeof scenarios | typeof automationRules | typeof assignmentRules;

/** An owner as its events name it: `{ id, name }`. */
function ownerSummary(row: { id: string; name: string }) {
	return { id: row.id, name: row.name };
}

/**
 * One kind of owner: its table, its name in errors (`Bot bot_… not found.`), and its events: `bot.created`,
 * `.updated`, `.deleted` (and `.published` when versioned), each naming it under `key` (`{ bot: { id, name } }`).
 */
export interface OwnerKind<T extends OwnerTable> {
	table: T;
	label: string;
	events: 'bot' | 'scenario' | 'rule' | 'assignment_rule';
	key: 'bot' | 'scenario' | 'rule';
}

type OwnerEvent = 'created' | 'updated' | 'deleted' | 'published';

/** Commits an owner's change with its one event, then releases the event. */
async function commitOwnerChange<T extends OwnerTable>(
	env: Env,
	db: Database,
	kind: OwnerKind<T>,
	owner: T['$inferSelect'],
	what: OwnerEvent,
	details: Record<string, unknown>,
	statements: Statement[],
	actor: Actor,
	now: number,
	race?: Race,
) {
	// The payload's shape follows the kind: `{ [key]: summary, ...details }` is each of these events' schema.
	const payload = { [kind.key]: ownerSummary(owner), ...details } as EventPayload<'bot.created'>;
	const event = newEvent(`${kind.events}.${what}` as 'bot.created', owner.workspaceId, actor, payload, now);
	const committed = await commit(db, { statements, events: [event] }, race ? raced(race) : undefined);
	await release(env, committed.events);
}

/** Inserts a new owner, with its `….created`. */
export async function createOwner<T extends OwnerTable>(
	env: Env,
	db: Database,
	kind: OwnerKind<T>,
	row: T['$inferSelect'],
	actor: Actor,
	now: number,
) {
	const insert = db.insert(kind.table as typeof bots).values(row as typeof bots.$inferInsert);
	await commitOwnerChange(env, db, kind, row, 'created', {}, [insert], actor, now);
}

/**
 * Applies `set` to the owner read as `current` (only while it still is: a 409 otherwise), with a `….updated`
 * naming each field that moved, from and to, except `unannounced` ones (derived from others). Nothing is
 * written when nothing moves. With `expected` (the version the caller computed its change from), a `current`
 * at another version, or one that changes before the write, is a 412. Returns the owner as it now is.
 */
export async function updateOwner<T extends OwnerTable>(
	env: Env,
	db: Database,
	kind: OwnerKind<T>,
	current: T['$inferSelect'],
	set: Partial<T['$inferSelect']>,
	actor: Actor,
	now: number,
	unannounced: readonly string[] = [],
	expected?: ExpectedVersion,
): Promise<T['$inferSelect']> {
	assertVersion(expected, current.updatedAt, `${kind.label} ${current.id}`);
	const moved = movedFields(current, set);
	for (const key of unannounced) delete moved[key];
	if (Object.keys(moved).length === 0) return current;
	const after = { ...current, ...set, updatedAt: Math.max(now, current.updatedAt + 1) };
	const statements = guardedOwnerUpdate(db, kind.table, current, { ...set, updatedAt: after.updatedAt });
	const race = { label: kind.label, id: current.id, expected };
	await commitOwnerChange(env, db, kind, after, 'updated', changesOf(moved), statements, actor, now, race);
	return after;
}

/**
 * Deletes the owner after `dependants` (the statements removing what hangs on it), with its `….deleted`;
 * with `expected`, only while the owner is still at that version (a 412 otherwise, nothing deleted).
 */
export async function deleteOwner<T extends OwnerTable>(
	env: Env,
	db: Database,
	kind: OwnerKind<T>,
	current: T['$inferSelect'],
	dependants: Statement[],
	actor: Actor,
	now: number,
	expected?: ExpectedVersion,
) {
	assertVersion(expected, current.updatedAt, `${kind.label} ${current.id}`);
	const t = kind.table as typeof bots;
	const mine = and(eq(t.workspaceId, current.workspaceId), eq(t.id, current.id));
	const guard = expectsVersion(expected)
		? [versionGuard(sql`EXISTS (SELECT 1 FROM ${t} WHERE ${and(mine, eq(t.updatedAt, current.updatedAt))})`)]
		: [];
	const remove = db.delete(t).where(mine);
	const race = { label: kind.label, id: current.id, expected };
	await commitOwnerChange(env, db, kind, current, 'deleted', {}, [...guard, ...dependants, remove], actor, now, race);
}

/** An owner's row in its workspace; NotFound (`Bot bot_… not found.`) otherwise. */
export async function ownerRow<T extends OwnerTable>(
	db: Database,
	table: T,
	label: string,
	workspaceId: string,
	id: string,
): Promise<T['$inferSelect']> {
	// One table's columns stand for both: drizzle builds the SQL from the table object passed.
	const t = table as typeof bots;
	const row = await db
		.select()
		.from(t)
		.where(and(eq(t.workspaceId, workspaceId), eq(t.id, id)))
		.get();
	if (!row) throw new NotFound(`${label} ${id} not found.`);
	return row as T['$inferSelect'];
}

/** One page of a workspace's owners by name, each shown through `view`. */
export async function ownerPage<T extends OwnerTable, V>(
	db: Database,
	table: T,
	workspaceId: string,
	after: ByNameCursor | null,
	limit: number,
	view: (row: T['$inferSelect']) => V,
) {
	const t = table as typeof bots;
	const rows = await db
		.select()
		.from(t)
		.where(and(eq(t.workspaceId, workspaceId), afterByName(t.name, t.id, after)))
		.orderBy(asc(t.name), asc(t.id))
		.limit(limit + 1);
	return pageOf(rows as T['$inferSelect'][], limit, view, (row) => ({ name: row.name, id: row.id }));
}

/**
 * The update of an owner read at `current`, as batch statements: it writes only while the row still holds
 * what was read (its `updatedAt`), and the batch fails otherwise (`raced` turns that into a 409).
 */
function guardedOwnerUpdate<T extends OwnerTable>(
	db: Database,
	table: T,
	current: T['$inferSelect'],
	set: Partial<T['$inferSelect']>,
): Statement[] {
	const t = table as typeof bots;
	return [
		db
			.update(t)
			.set(set as Partial<typeof bots.$inferSelect>)
			.where(and(eq(t.workspaceId, current.workspaceId), eq(t.id, current.id), eq(t.updatedAt, current.updatedAt))),
		batchGuard(sql`changes() = 1`),
	];
}

/** What versioning reads of an owner (a bot's or a scenario's row). */
interface VersionedRow {
	id: string;
	workspaceId: string;
	publishedVersion: number | null;
	lastVersion: number;
}

/** The API view of a version; `definition` only in one version's read. */
export function versionSchema(name: string, definition: z.ZodType) {
	return z
		.object({
			version: z.number().int().openapi({ description: 'The version number, from 1.' }),
			published: z.boolean().openapi({ description: 'Whether new runs start with it now.' }),
			publishedBy: z.string().nullable().openapi({ description: 'The operator who published it.' }),
			createdAt: z.string().openapi({ description: 'When it was frozen (ISO 8601).' }),
			definition: definition.optional().openapi({ description: 'Its definition (one version’s read only).' }),
		})
		.openapi(name);
}

/**
 * A definition checked by its owner's `problems`: every problem (`definition.steps.3.url: …`) in one 422, or
 * the parsed definition.
 */
export function checkedAgainst<T>(
	definition: unknown,
	problems: (definition: unknown) => Array<{ path: (string | number)[]; message: string }>,
	schema: z.ZodType<T>,
): T {
	const found = problems(definition);
	if (found.length > 0) {
		const named = under(['definition'], found);
		throw Invalid.fromProblems(named);
	}
	return schema.parse(definition);
}

/** Which owner a change was computed from, and the version its caller expected (If-Match), if any. */
interface Race {
	label: string;
	id: string;
	expected?: ExpectedVersion;
}

/**
 * Turns a broken guard of a change to an owner read earlier into a 409 to retry, or a 412 when the caller
 * named the version it expected: that version is no longer current, and a retry would not restore it.
 */
function raced({ label, id, expected }: Race) {
	return (error: unknown): never => {
		if (brokeVersionGuard(error) || (brokeGuard(error) && expectsVersion(expected))) {
			throw changedSince(`${label} ${id}`);
		}
		if (brokeGuard(error)) throw new Conflict(`${label} ${id} changed while this change was applied; retry.`);
		throw error;
	};
}

/**
 * The fields of `set` whose value differs from `current`'s, as an event's changes (`{from, to}`); the draft
 * is named as changed without being repeated, since it may be large.
 */
function movedFields<Row extends object>(current: Row, set: Partial<Row>) {
	const moved: Record<string, { from: unknown; to: unknown }> = {};
	for (const [key, to] of Object.entries(set)) {
		const from = current[key as keyof Row];
		if (JSON.stringify(from) === JSON.stringify(to)) continue;
		moved[key === 'draft' ? 'definition' : key] = key === 'draft' ? { from: null, to: null } : { from, to };
	}
	return moved;
}

/** One version's row; NotFound when the owner has no such version. */
export async function versionRow(
	db: Database,
	owner: Pick<VersionedRow, 'id' | 'workspaceId'>,
	label: string,
	version: number,
) {
	const row = await db
		.select()
		.from(automationVersions)
		.where(
			and(
				eq(automationVersions.workspaceId, owner.workspaceId),
				eq(automationVersions.ownerId, owner.id),
				eq(automationVersions.version, version),
			),
		)
		.get();
	if (!row) throw new NotFound(`${label} ${owner.id} has no version ${version}.`);
	return row;
}

/**
 * What publishing adds to the owner's change: without `version`, the draft frozen as the next version (its
 * insert statement); with one, that existing version made current again (a rollback). `ownerSet` is what the
 * owner's guarded update must set.
 */
async function publishing(
	db: Database,
	owner: VersionedRow & { draft: unknown },
	label: string,
	version: number | undefined,
	check: (definition: unknown) => unknown,
	operatorId: string | null,
	now: number,
): Promise<{ ownerSet: { publishedVersion: number; lastVersion: number }; inserts: Statement[] }> {
	if (version !== undefined) {
		await versionRow(db, owner, label, version);
		return { ownerSet: { publishedVersion: version, lastVersion: owner.lastVersion }, inserts: [] };
	}
	const published = owner.lastVersion + 1;
	const insert = db.insert(automationVersions).values({
		workspaceId: owner.workspaceId,
		ownerId: owner.id,
		version: published,
		definition: check(owner.draft),
		publishedBy: operatorId,
		createdAt: now,
	});
	return { ownerSet: { publishedVersion: published, lastVersion: published }, inserts: [insert] };
}

/**
 * Publishes a versioned owner (`publishing`), with `set` for what its own columns need besides, and its
 * `….published` naming the version and whether it was a rollback. Returns the owner as it now is.
 */
export async function publishOwner<T extends typeof bots | typeof scenarios>(
	env: Env,
	db: Database,
	kind: OwnerKind<T>,
	current: T['$inferSelect'],
	version: number | undefined,
	check: (definition: unknown) => unknown,
	operatorId: string | null,
	actor: Actor,
	now: number,
	set: Partial<T['$inferSelect']> = {},
): Promise<T['$inferSelect']> {
	const { ownerSet, inserts } = await publishing(db, current, kind.label, version, check, operatorId, now);
	const changes = { ...ownerSet, ...set, updatedAt: Math.max(now, current.updatedAt + 1) };
	const statements = [...guardedOwnerUpdate(db, kind.table, current, changes), ...inserts];
	const details = { version: ownerSet.publishedVersion, rollback: version !== undefined };
	const race = { label: kind.label, id: current.id };
	await commitOwnerChange(env, db, kind, current, 'published', details, statements, actor, now, race);
	return { ...current, ...changes };
}

/** The owner's versions, newest first (without their definitions). */
export async function listVersions(db: Database, owner: VersionedRow) {
	const rows = await db
		.select({
			version: automationVersions.version,
			publishedBy: automationVersions.publishedBy,
			createdAt: automationVersions.createdAt,
		})
		.from(automationVersions)
		.where(and(eq(automationVersions.workspaceId, owner.workspaceId), eq(automationVersions.ownerId, owner.id)))
		.orderBy(desc(automationVersions.version));
	return {
		data: rows.map((row) => ({
			version: row.version,
			published: row.version === owner.publishedVersion,
			publishedBy: row.publishedBy,
			createdAt: iso(row.createdAt),
		})),
	};
}

/** One version with its definition. */
export async function getVersion(db: Database, owner: VersionedRow, label: string, version: number) {
	const row = await versionRow(db, owner, label, version);
	return {
		version: row.version,
		published: row.version === owner.publishedVersion,
		publishedBy: row.publishedBy,
		createdAt: iso(row.createdAt),
		definition: row.definition,
	};
}

/** The statement deleting every version of an owner (with the owner, in its change). */
export function deleteVersions(db: Database, owner: VersionedRow) {
	return db
		.delete(automationVersions)
		.where(and(eq(automationVersions.workspaceId, owner.workspaceId), eq(automationVersions.ownerId, owner.id)));
}
