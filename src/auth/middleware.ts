import type { Context, Next } from 'hono';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import type { AppEnv, Credential } from '../app-env';
import { countStatements } from '../db/client';
import { timed } from '../db/server-timing';
import { routeRequest } from '../db/sessions';
import { Forbidden, TooManyRequests, Unauthorized } from '../lib/errors';
import type { RateLimitDecision } from '../model/rate-limits';
import { credentialFromSubprotocols } from '../protocol/live';
import {
	CSRF_HEADER,
	changesState,
	csrfMatches,
	fromOwnOrigin,
	hashSession,
	isWellFormedSession,
	sessionCookieName,
} from './console-session';
import { hasPermission, type Permission } from './permissions';
import { hashToken, isWellFormedToken } from './token';
import { rotationWarning } from './token-age';

// RFC 7235: the scheme name is case-insensitive; after it exactly one space and the token, nothing else.
const AUTHORIZATION = /^([A-Za-z]+) (.*)$/s;

/**
 * Resolves the caller of a /v3 request: `Authorization: Bearer <token>` for integrations (a browser's WebSocket,
 * which cannot send headers, may offer the token as the `bearer.<token>` subprotocol), or, with no token, the
 * console's session cookie (see `sessionAuth`). Either goes through its `TokenGate`, one call that checks it and
 * counts the request (see durable-objects/token-gate.ts for why a regenerated token stops working on the very
 * next call), and answers with the rate-limit headers.
 */
export const operatorAuth = createMiddleware<AppEnv>(async function operatorAuth(c, next) {
	const fromSocket = credentialFromSubprotocols(c.req.raw.headers, 'bearer.');
	const header = c.req.header('Authorization') ?? (fromSocket === undefined ? undefined : `Bearer ${fromSocket}`);
	if (header === undefined) {
		const session = sessionCookieValue(c);
		if (session !== undefined) return sessionAuth(c, session, next);
		throw new Unauthorized('Missing Authorization header: send "Authorization: Bearer <token>".', false);
	}
	const match = AUTHORIZATION.exec(header);
	if (match?.[1]?.toLowerCase() !== 'bearer') {
		// No Bearer token was offered at all (another scheme, or no scheme): RFC 6750 gives such a 401 no error code.
		throw new Unauthorized('Malformed Authorization header: expected "Bearer", one space, then the token.', false);
	}
	const token = match[2] ?? '';
	if (!isWellFormedToken(token)) {
		throw new Unauthorized('Invalid API token: not a well-formed Token V3 (check for quotes, spaces or a typo).');
	}
	const tokenHash = await hashToken(token);
	const caller = await admit(c, tokenHash, 'token', operatorLimit(c.env));
	if (!caller) throw new Unauthorized('Invalid API token: unknown or revoked.');
	// Set before the route runs, so that every answer to an old token carries it, errors included.
	const warning = rotationWarning(caller.credential.createdAt, Date.now());
	if (warning) for (const [name, value] of Object.entries(warning)) c.header(name, value);
	throwIfOverBudget(c);
	await next();
});

/** The session cookie's value, if the request has one (under the name this URL uses, see `sessionCookieName`). */
function sessionCookieValue(c: Context<AppEnv>): string | undefined {
	return getCookie(c, sessionCookieName(new URL(c.req.url), c.env));
}

/**
 * A console request: accepted only from the console's own origin, with the CSRF token on every state-changing
 * request (src/auth/console-session.ts), and counted against the session's own budget.
 */
async function sessionAuth(c: Context<AppEnv>, session: string, next: Next) {
	if (!fromOwnOrigin(c.req.raw)) {
		throw new Forbidden(
			'The console session is only accepted from the console itself; integrations send a Bearer token.',
		);
	}
	if (!isWellFormedSession(session)) throw new Unauthorized('The console session has ended: sign in again.', false);
	const sessionHash = await hashSession(session);
	if (changesState(c.req.method) && !(await csrfMatches(c.env, sessionHash, c.req.header(CSRF_HEADER) ?? ''))) {
		throw new Forbidden(`Missing or wrong ${CSRF_HEADER} header: reload the console.`);
	}
	const caller = await admit(c, sessionHash, 'session', consoleLimit(c.env));
	if (!caller) throw new Unauthorized('The console session has ended: sign in again.', false);
	throwIfOverBudget(c);
	await next();
}

/**
 * Asks the credential's gate whom it acts for and counts the request; sets the caller and the rate-limit headers
 * (the IETF draft-ietf-httpapi-ratelimit-headers, on every answer, 429 included). A token's budget is its
 * operator's: an operator holds one active token at a time, and a regenerated token takes over the count of the
 * one it replaces, so regenerating gives no fresh one.
 */
async function admit(c: Context<AppEnv>, hash: string, kind: Credential['kind'], limit: number) {
	const gate = c.env.TOKEN_GATE.getByName(hash);
	const answer = await timed(c.var.db, 'token-gate', gate.authorize(hash, limit, kind));
	countStatements(c.var.db, answer.d1Statements);
	if (!answer.caller || !answer.rate) return null;
	const { rate } = answer;
	c.set('caller', answer.caller);
	// Everything the request reads or writes from here is its workspace's: its shard's (src/db/shards.ts).
	routeRequest(c.var.db, answer.caller.workspaceId);
	c.set('rate', rate);
	const policy = kind === 'token' ? 'per-token' : 'per-session';
	c.header('RateLimit-Policy', `"${policy}";q=${rate.limit};w=${rate.windowSeconds}`);
	c.header('RateLimit', `"${policy}";r=${rate.remaining};t=${rate.resetSeconds}`);
	return answer.caller;
}

function throwIfOverBudget(c: Context<AppEnv>): void {
	const { caller, rate } = c.var;
	if (!rate.allowed) throw overBudget(rate, caller.credential.kind === 'token' ? 'this token' : 'this console session');
}

/**
 * Counts `units` against the operator's per-minute budget at once, through the gate of the token the operator
 * acts with: sends on a conversation socket spend the budget its HTTP requests spend.
 */
export async function spendOperatorBudget(
	env: Env,
	gate: { tokenId: string | null; tokenHash: string },
	units: number,
): Promise<RateLimitDecision> {
	return env.TOKEN_GATE.getByName(gate.tokenHash).spend(credentialLimit(env, gate.tokenId), units);
}

/** The budget a minute of the credential with this id: a console session's (`ses_…`), else a token's. */
export function credentialLimit(env: Env, credentialId: string | null): number {
	return credentialId?.startsWith('ses_') ? consoleLimit(env) : operatorLimit(env);
}

/** A console session's requests a minute: a person clicking through the console, its live sockets apart. */
export function consoleLimit(env: Env): number {
	return Number.parseInt(env.CONSOLE_RATE_LIMIT_PER_MINUTE, 10) || 600;
}

/** An operator's requests a minute, HTTP and socket sends together. */
export function operatorLimit(env: Env): number {
	return Number.parseInt(env.RATE_LIMIT_PER_MINUTE, 10) || 120;
}

export function overBudget(decision: RateLimitDecision, spender = 'this token'): TooManyRequests {
	return new TooManyRequests(
		`Rate limit of ${decision.limit} requests per ${decision.windowSeconds} s exceeded for ${spender}; retry in ${decision.resetSeconds} s.`,
		decision.resetSeconds,
	);
}

/** Route guard: the calling operator must hold `permission` (or `admin`). */
export function requirePermission(permission: Permission) {
	return createMiddleware<AppEnv>(async function permissionGuard(c, next) {
		if (!hasPermission(c.var.caller.permissions, permission)) {
			throw new Forbidden(`This token's operator lacks the "${permission}" permission.`);
		}
		await next();
	});
}
