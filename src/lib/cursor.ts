/**
 * Cursor pagination, the one way every /v3 list pages: a `limit` and an opaque `cursor` in the query, a page
 * of `data` and a `nextCursor` in the answer. Lists page by keyset (the last row's sort key and id), so a
 * page costs the same however deep it is, and rows inserted while a client pages neither shift nor repeat
 * what it sees.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, gt, lt, or, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { Invalid } from './errors';

/** Opaque cursors: the API promises nothing about their content, so clients cannot depend on it. */
export function encodeCursor(value: unknown): string {
	return btoa(JSON.stringify(value)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

export function decodeCursor<T>(cursor: string, schema: z.ZodType<T>): T | null {
	try {
		const json = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'));
		const parsed = schema.safeParse(JSON.parse(json));
		return parsed.success ? parsed.data : null;
	} catch {
		return null;
	}
}

/** The query fields of a paged list, to spread into its query schema. */
export function pageQuery(defaultLimit: number) {
	return {
		limit: z.coerce.number().int().min(1).max(100).default(defaultLimit).openapi({ description: 'Page size.' }),
		cursor: z
			.string()
			.max(512)
			.optional()
			.openapi({ description: 'The `nextCursor` of the previous page; leave it out for the first page.' }),
	};
}

/** The answer of a paged list: `{ data, nextCursor }`, named `name` in the OpenAPI document. */
export function pageSchema<T extends z.ZodType>(name: string, item: T, description = 'This page.') {
	return z
		.object({
			data: z.array(item).openapi({ description }),
			nextCursor: z
				.string()
				.nullable()
				.openapi({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
		})
		.openapi(name);
}

/** The position a `cursor` query value names, or null for the first page; a 422 for a cursor not ours. */
export function readCursor<T>(cursor: string | undefined, schema: z.ZodType<T>): T | null {
	if (cursor === undefined) return null;
	const position = decodeCursor(cursor, schema);
	if (position === null) {
		throw new Invalid('not a cursor this API issued; start again without it.', { field: ['cursor'], source: 'query' });
	}
	return position;
}

/**
 * The page of a keyset query that fetched `limit + 1` rows: the first `limit`, shown through `view`, and
 * the cursor of the last one (`positionOf`) when the extra row says there is more.
 */
export function pageOf<R, V>(rows: R[], limit: number, view: (row: R) => V, positionOf: (row: R) => unknown) {
	const page = rows.slice(0, limit);
	const last = page.at(-1);
	return {
		data: page.map(view),
		nextCursor: rows.length > limit && last !== undefined ? encodeCursor(positionOf(last)) : null,
	};
}

/** A position in a list ordered by a number (a time) then id, both descending. */
export const newestFirstCursor = z.object({ at: z.number().int(), id: z.string() });
export type NewestFirstCursor = z.infer<typeof newestFirstCursor>;

/** The rows after `cursor` in `ORDER BY at DESC, id DESC`: undefined (no condition) for the first page. */
export function afterNewestFirst(
	at: AnySQLiteColumn,
	id: AnySQLiteColumn,
	cursor: NewestFirstCursor | null,
): SQL | undefined {
	if (cursor === null) return undefined;
	return or(lt(at, cursor.at), and(eq(at, cursor.at), lt(id, cursor.id)));
}

/** A position in a list ordered by name then id, both ascending. */
export const byNameCursor = z.object({ name: z.string(), id: z.string() });
export type ByNameCursor = z.infer<typeof byNameCursor>;

/** The rows after `cursor` in `ORDER BY name, id`: undefined (no condition) for the first page. */
export function afterByName(name: AnySQLiteColumn, id: AnySQLiteColumn, cursor: ByNameCursor | null): SQL | undefined {
	if (cursor === null) return undefined;
	return or(gt(name, cursor.name), and(eq(name, cursor.name), gt(id, cursor.id)));
}
