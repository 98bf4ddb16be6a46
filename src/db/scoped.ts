import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { type FieldProblem, Invalid } from '../lib/errors';
import { batchGuard, type Database, sameIds } from './client';

/** A table whose rows belong to a workspace and are named by an id. */
type WorkspaceTable = SQLiteTable & { id: AnySQLiteColumn; workspaceId: AnySQLiteColumn };

/**
 * Whether row `id` of `table` exists in the workspace: the one check every route makes before touching a
 * row named in a request, so an id of another workspace is indistinguishable from an unknown one.
 */
export async function existsInWorkspace(
	db: Database,
	table: WorkspaceTable,
	workspaceId: string,
	id: string,
): Promise<boolean> {
	const found = await db
		.select({ id: table.id })
		.from(table)
		.where(and(eq(table.workspaceId, workspaceId), eq(table.id, id)))
		.get();
	return found !== undefined;
}

/** Which of `ids` name a row of `table` in the workspace. One statement per 90 ids (D1's bind limit). */
export async function foundInWorkspace(
	db: Database,
	table: WorkspaceTable,
	workspaceId: string,
	ids: readonly string[],
): Promise<Set<string>> {
	const found = new Set<string>();
	for (let i = 0; i < ids.length; i += 90) {
		const rows = await db
			.select({ id: table.id })
			.from(table)
			.where(and(eq(table.workspaceId, workspaceId), inArray(table.id, ids.slice(i, i + 90))));
		for (const row of rows) found.add(row.id as string);
	}
	return found;
}

/** An id a request names, to check: the table it must name a row of, what it is, where a problem goes. */
export interface Reference {
	path: (string | number)[];
	table: WorkspaceTable;
	id: string;
	what: string;
}

/**
 * A problem for each reference that names no row of its table in the workspace (`actions.2.operatorIds.0: no
 * operator op_x in this workspace`), in the references' order: one statement per table (per 90 ids), however
 * many references there are.
 */
export async function unknownReferences(
	db: Database,
	workspaceId: string,
	references: readonly Reference[],
): Promise<FieldProblem[]> {
	const idsByTable = new Map<WorkspaceTable, Set<string>>();
	for (const { table, id } of references) idsByTable.set(table, (idsByTable.get(table) ?? new Set()).add(id));
	const found = new Map(
		await Promise.all(
			[...idsByTable].map(
				async ([table, ids]) => [table, await foundInWorkspace(db, table, workspaceId, [...ids])] as const,
			),
		),
	);
	return references.flatMap((r) =>
		found.get(r.table)?.has(r.id) ? [] : [{ path: r.path, message: `no ${r.what} ${r.id} in this workspace` }],
	);
}

/**
 * Checks that every id names a row of `table` in the workspace: one Invalid naming each unknown id under
 * `field` (`groups.1: no group grp_x in this workspace`). One statement per 90 ids (D1's bind limit).
 */
export async function assertAllInWorkspace(
	db: Database,
	table: WorkspaceTable,
	workspaceId: string,
	ids: readonly string[],
	field: string,
	what: string,
): Promise<void> {
	const references = ids.map((id, index) => ({ path: [field, index], table, id, what }));
	const problems = await unknownReferences(db, workspaceId, references);
	if (problems.length > 0) throw Invalid.fromProblems(problems);
}

/**
 * The rows of `table` in the workspace whose `column` holds `value` (a member's conversations, a deal's
 * tasks), with `where` to change them all and `unchanged`, the condition for a `batchGuard` that they are
 * still exactly these rows: a change that announces each row it moves cannot move one it did not read.
 */
export async function rowsLinkedTo<T extends WorkspaceTable>(
	db: Database,
	table: T,
	column: AnySQLiteColumn,
	workspaceId: string,
	value: string,
) {
	const where = and(eq(table.workspaceId, workspaceId), eq(column, value)) as SQL;
	const rows = (await db
		.select()
		.from(table as SQLiteTable)
		.where(where)) as T['$inferSelect'][];
	const ids = rows.map((row) => (row as { id: string }).id);
	return { rows, where, unchanged: sameIds(sql`SELECT id FROM ${table} WHERE ${where}`, ids) };
}

/** The tables a row may link to by id. */
export type LinkedTable = 'operators' | 'contacts' | 'conversations' | 'deals' | 'groups';

/**
 * A `batchGuard` that every linked row (table, id) still exists in the workspace when the batch runs (an
 * operator also still enabled): a write checked before its batch cannot link to a row deleted in between.
 * Null when nothing is linked.
 */
export function linksGuard(
	workspaceId: string,
	links: ReadonlyArray<readonly [LinkedTable, string | null | undefined]>,
) {
	const checks = links.flatMap(([table, id]) =>
		id
			? [
					sql`EXISTS (SELECT 1 FROM ${sql.identifier(table)} WHERE id = ${id} AND workspace_id = ${workspaceId}${
						table === 'operators' ? sql` AND disabled_at IS NULL` : sql``
					})`,
				]
			: [],
	);
	return checks.length === 0 ? null : batchGuard(sql.join(checks, sql` AND `));
}
