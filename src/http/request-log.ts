import { DrizzleQueryError } from 'drizzle-orm/errors';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { matchedRoutes } from 'hono/route';
import type { AppEnv, Caller } from '../app-env';
import { type Database, statementCount } from '../db/client';

/**
 * One JSON line per request worth an operator's attention (a 5xx, or slower than `SLOW_REQUEST_MS`), and none
 * for the rest: Workers Logs (`[observability]` in wrangler.toml) indexes the fields of a logged object, so
 * `status >= 500` or `route = "/v3/messages"` are queries in the dashboard and `wrangler tail` shows the same.
 *
 * What is logged is chosen, never copied from the request: no header (Authorization, Cookie, Parley-Session),
 * no query string, no body, no raw path. Error messages and stacks pass through `redactCredentials` too,
 * in case some message ever quotes a credential.
 */
export interface RequestLogLine {
	level: 'error' | 'warn';
	msg: 'request failed' | 'slow request';
	/** Cloudflare's `cf-ray` (what Cloudflare support and the dashboard know the request by), else a fresh id. */
	requestId: string;
	method: string;
	/** The matched route pattern (`/v3/conversations/:id`), or null when no route matched. */
	route: string | null;
	status: number;
	durationMs: number;
	workspaceId: string | null;
	d1Queries: number;
	error?: { name: string; message: string; stack?: string };
}

const DEFAULT_SLOW_MS = 1000;

/** The app's first middleware: times the request and writes its line once the answer is known. */
export const requestLog = createMiddleware<AppEnv>(async function requestLog(c, next) {
	const started = performance.now();
	await next();
	const durationMs = Math.round(performance.now() - started);
	const status = c.res.status;
	// A 4xx is the caller's mistake, answered in full: not the operator's business unless slow.
	const failed = status >= 500;
	if (!failed && durationMs < slowThreshold(c.env)) return;
	const line: RequestLogLine = {
		level: failed ? 'error' : 'warn',
		msg: failed ? 'request failed' : 'slow request',
		requestId: c.req.header('cf-ray')?.slice(0, 64) || crypto.randomUUID(),
		method: c.req.method,
		route: routePattern(c),
		status,
		durationMs,
		workspaceId: workspaceOf(c),
		d1Queries: statementCount(c.get('db') as Database | undefined),
	};
	if (failed && c.error) line.error = describeError(c.error);
	if (failed) console.error(line);
	else console.warn(line);
});

function slowThreshold(env: Env): number {
	const value = Number.parseInt(env.SLOW_REQUEST_MS ?? '', 10);
	return Number.isFinite(value) && value >= 0 ? value : DEFAULT_SLOW_MS;
}

/**
 * The pattern of the route that answered, not the path: patterns group every conversation's requests under
 * one value (a bounded set to filter and count by), and a path holds ids a log reader has no need for.
 * Middleware patterns (`*`, `/v3/*`) are skipped; the 405 fallbacks share their route's pattern.
 */
function routePattern(c: Context<AppEnv>): string | null {
	// The handler that ran last is the one that answered: a later route the path also matches (`/{id}` after
	// `/search`) never ran. Before any handler ran (a middleware answered), the last route matched stands in.
	const ran = c.req.routePath;
	if (ran && ran !== '*' && !ran.endsWith('/*')) return ran;
	const routes = matchedRoutes(c);
	for (let i = routes.length - 1; i >= 0; i--) {
		const path = routes[i]?.path;
		if (path !== undefined && path !== '*' && !path.endsWith('/*')) return path;
	}
	return null;
}

const WIDGET_WORKSPACE = /^\/widget\/([A-Za-z0-9_-]{1,64})(?:\/|$)/;

/** The authenticated caller's workspace, or the one a public widget path names. */
function workspaceOf(c: Context<AppEnv>): string | null {
	const caller = c.get('caller') as Caller | undefined;
	if (caller) return caller.workspaceId;
	return WIDGET_WORKSPACE.exec(c.req.path)?.[1] ?? null;
}

function describeError(error: Error): NonNullable<RequestLogLine['error']> {
	const message = withoutQueryParams(error);
	// A stack starts with "<name>: <message>": the message's safe form replaces it there too.
	const frames = error.stack?.split('\n').filter((line) => /^\s+at /.test(line)) ?? [];
	return {
		name: error.name,
		message: redactCredentials(message),
		...(error.stack ? { stack: redactCredentials([`${error.name}: ${message}`, ...frames].join('\n')) } : {}),
	};
}

/**
 * The message without the values of a failed query: drizzle's `DrizzleQueryError` writes its parameters
 * (e-mails, phones, names, message text) after "params:". The SQL and the driver's reason stay: they say
 * what failed without saying about whom.
 */
function withoutQueryParams(error: Error): string {
	if (!(error instanceof DrizzleQueryError)) return error.message;
	const reason = error.cause instanceof Error ? ` (${error.cause.message})` : '';
	return `Failed query: ${error.query}${reason}`;
}

// Token V3, visitor session tokens, identity secrets, JWTs and whatever follows "Bearer ".
const CREDENTIALS = /prly_[A-Za-z0-9]+|pvs1\.[\w.-]+|pis_[\w-]+|eyJ[\w-]*\.[\w-]*\.[\w-]*|(?<=Bearer )\S+/gi;

/** `text` with anything shaped like one of Parley's credentials replaced by `[redacted]`. */
export function redactCredentials(text: string): string {
	return text.replace(CREDENTIALS, '[redacted]');
}
