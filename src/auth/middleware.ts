import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env';
import { countStatements } from '../db/client';
import type { RateLimitDecision } from '../domain/rate-limits';
import { Forbidden, TooManyRequests, Unauthorized } from '../lib/errors';
import { timed } from '../lib/server-timing';
import { credentialFromSubprotocols } from '../protocol/live';
import { hasPermission, type Permission } from './permissions';
import { hashToken, isWellFormedToken } from './token';
import { rotationWarning } from './token-age';

// RFC 7235: the scheme name is case-insensitive; after it exactly one space and the token, nothing else.
const AUTHORIZATION = /^([A-Za-z]+) (.*)$/s;

/**
 * Resolves `Authorization: Bearer <token>` to the calling operator and answers with its rate limit, through
 * the token's `TokenGate` (one call that checks the token and counts the request; see durable-objects/token-gate.ts for why a regenerated token
 * stops working on the very next call). A browser's WebSocket, which cannot send headers, may offer the token
 * as the `bearer.<token>` subprotocol.
 */
export const bearerAuth = createMiddleware<AppEnv>(async function bearerAuth(c, next) {
	const fromSocket = credentialFromSubprotocols(c.req.raw.headers, 'bearer.');
	const header = c.req.header('Authorization') ?? (fromSocket === undefined ? undefined : `Bearer ${fromSocket}`);
	if (header === undefined)
		throw new Unauthorized('Missing Authorization header: send "Authorization: Bearer <token>".', false);
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
	const gate = c.env.TOKEN_GATE.getByName(tokenHash);
	const answer = await timed(c.var.db, 'token-gate', gate.authorize(tokenHash, operatorLimit(c.env)));
	countStatements(c.var.db, answer.d1Statements);
	if (!answer.caller || !answer.rate) throw new Unauthorized('Invalid API token: unknown or revoked.');
	c.set('caller', answer.caller);
	// Set before the route runs, so that every answer to an old token carries it, errors included.
	const warning = rotationWarning(answer.caller.tokenCreatedAt, Date.now());
	if (warning) for (const [name, value] of Object.entries(warning)) c.header(name, value);
	// The IETF rate-limit headers (draft-ietf-httpapi-ratelimit-headers) of the request the gate counted, on
	// every answer, 429 included. The budget is the operator's: an operator holds one active token at a time,
	// and a regenerated token takes over the count of the one it replaces, so regenerating gives no fresh one.
	const { rate } = answer;
	c.header('RateLimit-Policy', `"per-token";q=${rate.limit};w=${rate.windowSeconds}`);
	c.header('RateLimit', `"per-token";r=${rate.remaining};t=${rate.resetSeconds}`);
	if (!rate.allowed) throw overBudget(rate);
	await next();
});

/**
 * Counts `units` against the operator's per-minute budget at once, through the gate of the token the operator
 * acts with: sends on a conversation socket spend the budget its HTTP requests spend.
 */
export async function spendOperatorBudget(env: Env, tokenHash: string, units: number): Promise<RateLimitDecision> {
	return env.TOKEN_GATE.getByName(tokenHash).spend(operatorLimit(env), units);
}

/** An operator's requests a minute, HTTP and socket sends together. */
export function operatorLimit(env: Env): number {
	return Number.parseInt(env.RATE_LIMIT_PER_MINUTE, 10) || 120;
}

export function overBudget(decision: RateLimitDecision): TooManyRequests {
	return new TooManyRequests(
		`Rate limit of ${decision.limit} requests per ${decision.windowSeconds} s exceeded for this token; retry in ${decision.resetSeconds} s.`,
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
