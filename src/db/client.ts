import { is, SQL, sql } from 'drizzle-orm';
import { type DrizzleD1Database, drizzle } from 'drizzle-orm/d1';
import { SQLiteAsyncDialect, type SQLiteColumn } from 'drizzle-orm/sqlite-core';

/**
 * No relational schema is given to drizzle: the code builds its queries with the query builder, and the
 * relational config drizzle would extract from the schema on every `openDatabase` was a measurable share of
 * a request's CPU (see bench/results).
 */
export type Database = DrizzleD1Database & { $client: D1Database };

/** Counts the SQL statements a request sends to D1, so a list page's cost can be shown and tested. */
export class QueryCounter {
	count = 0;
	logQuery(): void {
		this.count++;
	}
}

const counters = new WeakMap<Database, QueryCounter>();
const dialect = new SQLiteAsyncDialect();

/** A drizzle handle over D1 for one request; `counter` sees every statement sent through it. */
export function openDatabase(d1: D1Database, counter = new QueryCounter()): Database {
	const db = drizzle(d1, { logger: counter });
	counters.set(db, counter);
	return db;
}

/**
 * Adds statements sent elsewhere on this request's behalf (by a Durable Object) to its count, so that
 * `Server-Timing` shows the whole D1 cost of the request.
 */
export function countStatements(db: Database, statements: number): void {
	const counter = counters.get(db);
	if (counter) counter.count += statements;
}

/** The statements sent to D1 so far through `db` (the request log reports it). */
export function statementCount(db: Database | undefined): number {
	return db ? (counters.get(db)?.count ?? 0) : 0;
}

/** A statement for `runBatch`: a drizzle query builder or a raw `sql` template. */
export type Statement = SQL | { toSQL(): { sql: string; params: unknown[] } };

/**
 * Runs statements in one D1 batch: one round trip, one transaction (all or nothing). Used instead of
 * drizzle's `db.batch`, which cannot batch raw `sql` statements with parameters, and so that batched
 * statements are counted too. Returns D1's raw results, in order.
 */
export async function runBatch(db: Database, statements: Statement[]): Promise<D1Result[]> {
	const d1 = db.$client;
	const prepared = statements.map((statement) => {
		const query = is(statement, SQL) ? dialect.sqlToQuery(statement) : (statement as Exclude<Statement, SQL>).toSQL();
		return d1.prepare(query.sql).bind(...query.params);
	});
	const counter = counters.get(db);
	if (counter) counter.count += prepared.length;
	return d1.batch(prepared);
}

/**
 * Whether a failed D1 write broke a UNIQUE constraint that names `column` (as SQLite names it:
 * `tags.name`; a table with a dot, `contacts.`, for any of its unique columns).
 */
export function violatesUnique(error: unknown, column: string): boolean {
	const text = String(error);
	const at = text.indexOf('UNIQUE constraint failed: ');
	return at >= 0 && text.slice(at).split('\n')[0]?.includes(column) === true;
}

/** Whether a failed D1 write broke a FOREIGN KEY constraint: a row it links was deleted meanwhile. */
export function violatesForeignKey(error: unknown): boolean {
	return String(error).includes('FOREIGN KEY constraint failed');
}

/**
 * A batch statement that fails its batch (so nothing in it applies) unless `condition` holds when it runs:
 * a change computed from rows it read guards on them being as read. SQLite has no RAISE outside triggers, so
 * the failure is `json()` of text that is not JSON; `brokeGuard` recognises it.
 */
export function batchGuard(condition: SQL): SQL {
	return sql`SELECT CASE WHEN ${condition} THEN 1 ELSE json('parley: guard failed') END`;
}

/** Whether a failed batch failed on a `batchGuard`. */
export function brokeGuard(error: unknown): boolean {
	return String(error).includes('malformed JSON');
}

/**
 * A condition (for a `batchGuard`) that `select`, a query of one `id` column, finds exactly `ids`: the rows a
 * change read are still the ones it applies to, none gone and none added.
 */
export function sameIds(select: SQL, ids: readonly string[]): SQL {
	return sql`(SELECT coalesce(json_group_array(id), '[]') FROM (${select} ORDER BY id)) = ${JSON.stringify([...ids].sort())}`;
}

/**
 * A batch statement that fails its batch unless `condition` holds, like `batchGuard`, but with an error of its
 * own (SQLite's integer overflow, which nothing else here can raise): it guards the version a caller named
 * (`If-Match`), so that failure is told apart from the other guards of the same batch (`brokeVersionGuard`).
 */
export function versionGuard(condition: SQL): SQL {
	return sql`SELECT CASE WHEN ${condition} THEN 1 ELSE abs(-9223372036854775807 - 1) END`;
}

/** Whether a failed batch failed on a `versionGuard`. */
export function brokeVersionGuard(error: unknown): boolean {
	return String(error).includes('integer overflow');
}

/**
 * The next version of a row whose `updated_at` is its version: `now`, or one past the last when that is not
 * later, so two writes in one millisecond still give two versions (an `ETag` must change with every write).
 */
export function nextVersion(updatedAt: SQLiteColumn, now: number): SQL {
	return sql`max(${updatedAt} + 1, ${now})`;
}
