/**
 * The API log (Settings > Integrations > API): every /v3 request whose caller is known, by a token or a console
 * session: when, who, which credential (a token's hint, never the token), method, path (never its query string
 * or a body), status, duration and the rate-limit count. Workspace admins read it, filtered, newest first.
 *
 * Writing it never slows a request: the entry goes on the `parley-api-logs` Queue after the answer (waitUntil),
 * and its consumer inserts a whole batch in one statement. Rows older than 30 days are deleted by the minute's
 * sweep, a bounded chunk at a time.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq, gte, lt, lte, sql } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../../app-env';
import type { Database } from '../../db/client';
import { apiLogs, CREDENTIAL_KINDS } from '../../db/schema';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../lib/cursor';
import { iso, newId } from '../../lib/ids';

export const API_LOG_DAYS = 30;
const DAY_MS = 24 * 3600_000;
/** Rows the sweep deletes per statement: a backlog drains over a few minutes without a long write. */
const PURGE_CHUNK = 5_000;

/** One entry as it travels on the Queue. */
export const apiLogEntrySchema = z.object({
	id: z.string(),
	workspaceId: z.string(),
	at: z.number().int(),
	operatorId: z.string(),
	credential: z.enum(CREDENTIAL_KINDS),
	hint: z.string(),
	method: z.string(),
	path: z.string(),
	status: z.number().int(),
	durationMs: z.number().int(),
	rateRemaining: z.number().int().nullable(),
	rateLimited: z.boolean(),
});
export type ApiLogEntry = z.infer<typeof apiLogEntrySchema>;

/**
 * Records the request once it is answered, if its caller was resolved (an unknown token is no workspace's).
 * Put before `operatorAuth`, so that its refusals (a 429 over the budget) are recorded too.
 */
export const apiLog = createMiddleware<AppEnv>(async function apiLog(c, next) {
	const started = Date.now();
	await next();
	const caller = c.get('caller') as AppEnv['Variables']['caller'] | undefined;
	if (!caller) return;
	const rate = c.get('rate') as AppEnv['Variables']['rate'] | undefined;
	const now = Date.now();
	const entry: ApiLogEntry = {
		id: newId('log', started),
		workspaceId: caller.workspaceId,
		at: started,
		operatorId: caller.operatorId,
		credential: caller.credential.kind,
		hint: caller.credential.hint,
		method: c.req.method,
		path: c.req.path.slice(0, 500),
		status: c.res.status,
		durationMs: Math.max(0, now - started),
		rateRemaining: rate ? rate.remaining : null,
		rateLimited: rate ? !rate.allowed : false,
	};
	c.executionCtx.waitUntil(
		c.env.API_LOGS.send(entry).catch((error: unknown) => console.error('could not queue an API log entry', error)),
	);
});

/** Inserts a Queue batch of entries in one statement (their JSON as one parameter); a redelivery changes nothing. */
export async function writeApiLogs(db: Database, entries: ApiLogEntry[]): Promise<void> {
	if (entries.length === 0) return;
	await db.run(sql`
		INSERT OR IGNORE INTO api_logs (id, workspace_id, at, operator_id, credential, hint, method, path, status,
			duration_ms, rate_remaining, rate_limited)
		SELECT value ->> 'id', value ->> 'workspaceId', value ->> 'at', value ->> 'operatorId', value ->> 'credential',
			value ->> 'hint', value ->> 'method', value ->> 'path', value ->> 'status', value ->> 'durationMs',
			value ->> 'rateRemaining', CASE WHEN value ->> 'rateLimited' THEN 1 ELSE 0 END
		FROM json_each(${JSON.stringify(entries)})`);
}

/** Deletes entries older than 30 days, one chunk per sweep; returns how many went. */
export async function purgeApiLogs(db: Database, now = Date.now()): Promise<number> {
	const result = await db.run(sql`
		DELETE FROM api_logs WHERE id IN (
			SELECT id FROM api_logs WHERE at < ${now - API_LOG_DAYS * DAY_MS} LIMIT ${PURGE_CHUNK})`);
	return result.meta.changes;
}

export const apiLogSchema = z
	.object({
		id: z.string().openapi({ description: 'The entry id.', example: 'log_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		at: z.string().openapi({ description: 'When the request arrived (ISO 8601).' }),
		operatorId: z.string().openapi({ description: 'The operator it acted as.' }),
		credential: z.enum(CREDENTIAL_KINDS).openapi({ description: 'A Token V3, or a console session.' }),
		hint: z.string().openapi({ description: 'The token’s hint (`prly_…abcd`), or `console`.', example: 'prly_…x9Qe' }),
		method: z.string().openapi({ description: 'The HTTP method.', example: 'POST' }),
		path: z.string().openapi({ description: 'The path, without its query string.', example: '/v3/messages' }),
		status: z.number().int().openapi({ description: 'The answer’s HTTP status.', example: 201 }),
		durationMs: z.number().int().openapi({ description: 'How long the answer took, in ms.', example: 42 }),
		rateRemaining: z.number().int().nullable().openapi({
			description: 'Requests left in the caller’s rate-limit window after this one; null when not counted.',
		}),
		rateLimited: z.boolean().openapi({ description: 'Refused for the rate limit (429).' }),
	})
	.openapi('ApiLogEntry');

const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

export const apiLogFiltersSchema = z.object({
	operatorId: z.string().min(1).max(64).optional().openapi({ description: 'Only requests of this operator.' }),
	credential: z.enum(CREDENTIAL_KINDS).optional().openapi({ description: 'Only token, or only console, requests.' }),
	method: z
		.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
		.optional()
		.openapi({ description: 'Only requests with this method.' }),
	status: z.enum(STATUS_CLASSES).optional().openapi({ description: 'Only answers of this status class.' }),
	rateLimited: z
		.enum(['true', 'false'])
		.optional()
		.openapi({ description: '`true`: only requests refused for the rate limit.' }),
	path: z
		.string()
		.min(1)
		.max(200)
		.startsWith('/v3/')
		.optional()
		// The generator writes no `pattern` for zod's startsWith: it is said here, as the check says it.
		.openapi({ description: 'Only paths that start with this (e.g. `/v3/messages`).', pattern: '^/v3/' }),
	from: z.iso.datetime({ offset: true }).optional().openapi({ description: 'From this instant (ISO 8601).' }),
	to: z.iso.datetime({ offset: true }).optional().openapi({ description: 'Before this instant (ISO 8601).' }),
});
export type ApiLogFilters = z.infer<typeof apiLogFiltersSchema>;

/** Paths that start with `prefix`, exactly (no LIKE wildcards, no case folding). */
function startsWith(prefix: string) {
	return sql`substr(${apiLogs.path}, 1, CAST(${prefix.length} AS INTEGER)) = ${prefix}`;
}

/** A page of the workspace's API log, newest first. */
export async function listApiLogs(
	db: Database,
	workspaceId: string,
	filters: ApiLogFilters,
	after: NewestFirstCursor | null,
	limit: number,
) {
	const statusFloor = filters.status ? Number(filters.status[0]) * 100 : undefined;
	const rows = await db
		.select()
		.from(apiLogs)
		.where(
			and(
				eq(apiLogs.workspaceId, workspaceId),
				filters.operatorId ? eq(apiLogs.operatorId, filters.operatorId) : undefined,
				filters.credential ? eq(apiLogs.credential, filters.credential) : undefined,
				filters.method ? eq(apiLogs.method, filters.method) : undefined,
				statusFloor === undefined
					? undefined
					: and(gte(apiLogs.status, statusFloor), lt(apiLogs.status, statusFloor + 100)),
				filters.rateLimited ? eq(apiLogs.rateLimited, filters.rateLimited === 'true') : undefined,
				filters.path ? startsWith(filters.path) : undefined,
				filters.from ? gte(apiLogs.at, Date.parse(filters.from)) : undefined,
				filters.to ? lte(apiLogs.at, Date.parse(filters.to) - 1) : undefined,
				afterNewestFirst(apiLogs.at, apiLogs.id, after),
			),
		)
		.orderBy(desc(apiLogs.at), desc(apiLogs.id))
		.limit(limit + 1);
	return pageOf(
		rows,
		limit,
		(row) => ({
			id: row.id,
			at: iso(row.at),
			operatorId: row.operatorId,
			credential: row.credential,
			hint: row.hint,
			method: row.method,
			path: row.path,
			status: row.status,
			durationMs: row.durationMs,
			rateRemaining: row.rateRemaining,
			rateLimited: row.rateLimited,
		}),
		(row) => ({ at: row.at, id: row.id }),
	);
}
