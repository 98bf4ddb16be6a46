import { and, eq, isNull } from 'drizzle-orm';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env';
import { apiTokens, operators } from '../db/schema';
import type { RateLimitDecision } from '../domain/rate-limits';
import { Forbidden, TooManyRequests, Unauthorized } from '../lib/errors';
import { timed } from '../lib/server-timing';
import { credentialFromSubprotocols } from '../protocol/live';
import { hasPermission, type Permission } from './permissions';
import { digestsEqual, hashToken, isWellFormedToken } from './token';
import { rotationWarning } from './token-age';

// RFC 7235: the scheme name is case-insensitive; after it exactly one space and the token, nothing else.
const AUTHORIZATION = /^([A-Za-z]+) (.*)$/s;

/**
 * Resolves `Authorization: Bearer <token>` to the calling operator. Token validity is read from D1 on
 * every request (never from a cache), so a regenerated token stops working on the very next call. A
 * browser's WebSocket, which cannot send headers, may offer the token as the `bearer.<token>` subprotocol.
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
	const row = await c.var.db
		.select({
			tokenId: apiTokens.id,
			tokenHash: apiTokens.tokenHash,
			tokenCreatedAt: apiTokens.createdAt,
			workspaceId: apiTokens.workspaceId,
			operatorId: operators.id,
			permissions: operators.permissions,
		})
		.from(apiTokens)
		.innerJoin(operators, and(eq(operators.id, apiTokens.operatorId), eq(operators.workspaceId, apiTokens.workspaceId)))
		.where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)))
		.get();
	if (!row || !digestsEqual(row.tokenHash, tokenHash)) {
		throw new Unauthorized('Invalid API token: unknown or revoked.');
	}
	c.set('caller', {
		workspaceId: row.workspaceId,
		operatorId: row.operatorId,
		tokenId: row.tokenId,
		tokenCreatedAt: row.tokenCreatedAt,
		permissions: row.permissions,
	});
	// Set before the route runs, so that every answer to an old token carries it, errors included.
	const warning = rotationWarning(row.tokenCreatedAt, Date.now());
	if (warning) for (const [name, value] of Object.entries(warning)) c.header(name, value);
	await next();
});

/**
 * Counts the request against its token's limit in a RateLimiter Durable Object and sets the
 * IETF rate-limit headers (draft-ietf-httpapi-ratelimit-headers) on every answer, 429 included.
 */
export const rateLimit = createMiddleware<AppEnv>(async function rateLimit(c, next) {
	const decision = await timed(c.var.db, 'ratelimit', spendOperatorBudget(c.env, c.var.caller.operatorId));
	c.header('RateLimit-Policy', `"per-token";q=${decision.limit};w=${decision.windowSeconds}`);
	c.header('RateLimit', `"per-token";r=${decision.remaining};t=${decision.resetSeconds}`);
	if (!decision.allowed) throw overBudget(decision);
	await next();
});

/**
 * Counts one request against the operator's per-minute budget. Counted per operator, which holds one active
 * token at a time: regenerating a token to get a fresh budget would otherwise sidestep the limit. Sends on a
 * conversation socket spend the same budget.
 */
export async function spendOperatorBudget(env: Env, operatorId: string, units = 1): Promise<RateLimitDecision> {
	return env.RATE_LIMITER.getByName(operatorId).hit(operatorLimit(env), 60, Date.now(), units);
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
