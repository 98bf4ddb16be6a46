import { and, eq, sql } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { batchGuard, type Database } from './client';

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
