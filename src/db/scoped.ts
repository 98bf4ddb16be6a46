import { and, eq } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Database } from './client';

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
