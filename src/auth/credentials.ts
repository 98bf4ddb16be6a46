import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Caller } from '../app-env';
import type { Database } from '../db/client';
import { apiTokens, consoleSessions, operators } from '../db/schema';
import type { RateLimitDecision, WindowCount } from '../model/rate-limits';
import { digestsEqual } from './token';

/** A `TokenGate`'s answer for one request: the caller (null: refused) and its request counted. */
export interface GateAnswer {
	caller: Caller | null;
	/** Null when the token was refused: nothing was counted. */
	rate: RateLimitDecision | null;
	/** D1 statements the gate sent for this answer: 1 when it read the token's row, 0 when it knew it. */
	d1Statements: number;
}

/**
 * The operator an active token acts for, found by the token's hash; null when no active token has it or its
 * operator is disabled.
 */
export async function callerByTokenHash(db: Database, tokenHash: string): Promise<Caller | null> {
	const row = await db
		.select({
			id: apiTokens.id,
			hash: apiTokens.tokenHash,
			createdAt: apiTokens.createdAt,
			hint: apiTokens.hint,
			workspaceId: apiTokens.workspaceId,
			operatorId: operators.id,
			permissions: operators.permissions,
		})
		.from(apiTokens)
		.innerJoin(
			operators,
			and(
				eq(operators.id, apiTokens.operatorId),
				eq(operators.workspaceId, apiTokens.workspaceId),
				isNull(operators.disabledAt),
			),
		)
		.where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)))
		.get();
	if (!row || !digestsEqual(row.hash, tokenHash)) return null;
	const { workspaceId, operatorId, permissions, id, hash, createdAt, hint } = row;
	return { workspaceId, operatorId, permissions, credential: { kind: 'token', id, hash, createdAt, hint } };
}

/** How often a session's `last_seen_at` is brought up to date (the admin's list of sessions shows it). */
const SEEN_EVERY_MS = 5 * 60_000;

/**
 * The operator a console session acts for, found by the hash of its cookie; null when it is unknown, signed out,
 * revoked, expired, or its operator is disabled. Notes that it was seen, at most every five minutes, without
 * waiting for the note.
 */
export async function callerBySessionHash(
	db: Database,
	sessionHash: string,
	now: number,
	/** Keeps the note's write going after the answer: a Worker passes its `waitUntil`; an object runs it to its end. */
	later: (work: Promise<unknown>) => void = () => undefined,
): Promise<Caller | null> {
	const row = await db
		.select({
			id: consoleSessions.id,
			hash: consoleSessions.tokenHash,
			createdAt: consoleSessions.createdAt,
			lastSeenAt: consoleSessions.lastSeenAt,
			workspaceId: consoleSessions.workspaceId,
			operatorId: operators.id,
			permissions: operators.permissions,
		})
		.from(consoleSessions)
		.innerJoin(
			operators,
			and(
				eq(operators.id, consoleSessions.operatorId),
				eq(operators.workspaceId, consoleSessions.workspaceId),
				isNull(operators.disabledAt),
			),
		)
		.where(
			and(
				eq(consoleSessions.tokenHash, sessionHash),
				isNull(consoleSessions.revokedAt),
				gt(consoleSessions.expiresAt, now),
			),
		)
		.get();
	if (!row || !digestsEqual(row.hash, sessionHash)) return null;
	if (now - row.lastSeenAt > SEEN_EVERY_MS) {
		// Not waited for: it only feeds the admin's list of sessions, and was a round trip to D1's primary on the
		// request's path every five minutes (docs/EDGE.md).
		later(
			db
				.update(consoleSessions)
				.set({ lastSeenAt: now })
				.where(eq(consoleSessions.id, row.id))
				.run()
				.catch((error: unknown) => console.error('could not note when a console session was last seen', error)),
		);
	}
	const { workspaceId, operatorId, permissions, id, hash, createdAt } = row;
	return {
		workspaceId,
		operatorId,
		permissions,
		credential: { kind: 'session', id, hash, createdAt, hint: 'console' },
	};
}

/**
 * Call before committing a change to these tokens' or sessions' validity: their gates read D1 for every request until well
 * after the commit (see `TokenGate.suspend`). Throws when a gate cannot be reached, so that the change is not
 * made while a gate may still answer from what it read before. Returns the tokens' counts, for their successor.
 */
export async function suspendGates(env: Env, hashes: readonly string[]): Promise<WindowCount[]> {
	return Promise.all(hashes.map((hash) => env.TOKEN_GATE.getByName(hash).suspend()));
}

/**
 * Hands the budget counted for replaced tokens to the token replacing them. Best effort: a gate that cannot be
 * reached leaves the new token a fresh count, which is logged.
 */
export async function carryBudget(env: Env, tokenHash: string, counts: readonly WindowCount[]): Promise<void> {
	try {
		const gate = env.TOKEN_GATE.getByName(tokenHash);
		for (const count of counts) await gate.carry(count);
	} catch (error) {
		console.error('could not carry a replaced token’s budget over to its successor', error);
	}
}
