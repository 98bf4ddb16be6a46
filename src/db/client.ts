import { type DrizzleD1Database, drizzle } from 'drizzle-orm/d1';
import * as schema from './schema';

export type Database = DrizzleD1Database<typeof schema>;

/** Counts the SQL statements a request sends to D1, so a list page's cost can be shown and tested. */
export class QueryCounter {
	count = 0;
	logQuery(): void {
		this.count++;
	}
}

/** A drizzle handle over D1 for one request; `counter` sees every statement drizzle sends. */
export function openDatabase(d1: D1Database, counter = new QueryCounter()): Database {
	return drizzle(d1, { schema, logger: counter });
}
