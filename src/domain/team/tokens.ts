import { z } from '@hono/zod-openapi';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Caller } from '../../app-env';
import { carryBudget, suspendGates } from '../../auth/credentials';
import { generateToken, hashToken, tokenHint } from '../../auth/token';
import { type Database, runBatch } from '../../db/client';
import { apiTokens, consoleSessions, operators } from '../../db/schema';
import { existsInWorkspace } from '../../db/scoped';
import { addRoute } from '../../db/shards';
import { NotFound, Unauthorized } from '../../lib/errors';
import { iso, newId } from '../../lib/ids';

export const issuedTokenSchema = z
	.object({
		token: z.string().openapi({ description: 'The plaintext Token V3. Shown once: store it now.' }),
		tokenId: z.string().openapi({ description: 'The token id (not the token).' }),
		operatorId: z.string().openapi({ description: 'The operator the token acts as.' }),
		hint: z.string().openapi({ description: 'The prefix and last characters, safe to show next to it.' }),
		createdAt: z.string().openapi({ description: 'When it was issued (ISO 8601); rotate about every 90 days.' }),
	})
	.openapi('IssuedToken');

/** A fresh token and the row that stores it (hash and hint only). */
export async function newTokenRow(workspaceId: string, operatorId: string, now: number) {
	const token = generateToken();
	return {
		token,
		row: {
			id: newId('tok', now),
			workspaceId,
			operatorId,
			tokenHash: await hashToken(token),
			hint: tokenHint(token),
			createdAt: now,
		},
	};
}

function issued(token: string, row: { id: string; operatorId: string; hint: string; createdAt: number }) {
	return { token, tokenId: row.id, operatorId: row.operatorId, hint: row.hint, createdAt: iso(row.createdAt) };
}

/**
 * An admin issues a token for an operator of the workspace. Any token the operator had is revoked in the
 * same transaction (an operator holds at most one active token), its gate suspended first (see
 * `suspendGates`), and its budget carried over to the new one.
 */
export async function issueTokenFor(env: Env, db: Database, workspaceId: string, operatorId: string) {
	if (!(await existsInWorkspace(db, operators, workspaceId, operatorId))) {
		throw new NotFound(`Team member ${operatorId} not found.`);
	}
	const active = and(
		eq(apiTokens.workspaceId, workspaceId),
		eq(apiTokens.operatorId, operatorId),
		isNull(apiTokens.revokedAt),
	);
	const known = (await db.select({ hash: apiTokens.tokenHash }).from(apiTokens).where(active)).map((r) => r.hash);
	const counts = await suspendGates(env, known);
	const now = Date.now();
	const { token, row } = await newTokenRow(workspaceId, operatorId, now);
	// The directory learns the new token's workspace first: a token whose row is missing admits nothing.
	await addRoute(env, 'token', row.tokenHash, workspaceId, now);
	const [revoked] = await runBatch(db, [
		db
			.update(apiTokens)
			.set({ revokedAt: now, replacedBy: row.id })
			.where(active)
			.returning({ hash: apiTokens.tokenHash }),
		db.insert(apiTokens).values(row),
	]);
	// A token issued by a concurrent call between the read and the batch was revoked unseen: its gate too.
	const unseen = ((revoked?.results ?? []) as Array<{ hash: string }>)
		.map((r) => r.hash)
		.filter((h) => !known.includes(h));
	const late = await suspendGates(env, unseen).catch((error: unknown) => {
		// Revoked in D1 already: its gate sees it within its 30 s revalidation.
		console.error('could not suspend the gate of a token revoked by a concurrent issue', error);
		return [];
	});
	counts.push(...late);
	await carryBudget(env, row.tokenHash, counts);
	return issued(token, row);
}

/**
 * Replaces the calling token with a new one. The old token is revoked and the new one inserted in one
 * transaction, and the insert only happens if this call was the one that revoked the old token, so two
 * racing regenerations cannot both succeed. The old token's gate is suspended first and its budget carried.
 */
export async function regenerateToken(env: Env, db: Database, caller: Caller) {
	const { workspaceId, operatorId, credential } = caller;
	// From the console (a session), the operator's token is replaced, or a first one generated.
	if (credential.kind === 'session') return issueTokenFor(env, db, workspaceId, operatorId);
	const tokenId = credential.id;
	const counts = await suspendGates(env, [credential.hash]);
	const now = Date.now();
	const { token, row } = await newTokenRow(workspaceId, operatorId, now);
	const [, inserted] = await runBatch(db, [
		db
			.update(apiTokens)
			.set({ revokedAt: now, replacedBy: row.id })
			.where(and(eq(apiTokens.id, tokenId), isNull(apiTokens.revokedAt))),
		sql`
			INSERT INTO api_tokens (id, workspace_id, operator_id, token_hash, hint, created_at)
			SELECT ${row.id}, ${workspaceId}, ${operatorId}, ${row.tokenHash}, ${row.hint}, ${now}
			WHERE EXISTS (SELECT 1 FROM api_tokens WHERE id = ${tokenId} AND replaced_by = ${row.id})`,
	]);
	if (inserted?.meta.changes !== 1) throw new Unauthorized('Invalid API token: unknown or revoked.');
	await carryBudget(env, row.tokenHash, counts);
	return issued(token, row);
}

/**
 * Whether a credential is still active: a token (`tok_…`) not revoked, or a console session (`ses_…`) not
 * signed out, revoked or expired; its operator not disabled. What a conversation socket opened with it checks
 * before each send, and the inbox feed when it accepts one.
 */
export async function isCredentialActive(db: Database, workspaceId: string, credentialId: string): Promise<boolean> {
	const enabled = isNull(operators.disabledAt);
	if (credentialId.startsWith('ses_')) {
		const row = await db
			.select({ id: consoleSessions.id })
			.from(consoleSessions)
			.innerJoin(operators, and(eq(operators.id, consoleSessions.operatorId), enabled))
			.where(
				and(
					eq(consoleSessions.workspaceId, workspaceId),
					eq(consoleSessions.id, credentialId),
					isNull(consoleSessions.revokedAt),
					gt(consoleSessions.expiresAt, Date.now()),
				),
			)
			.get();
		return row !== undefined;
	}
	const row = await db
		.select({ id: apiTokens.id })
		.from(apiTokens)
		.innerJoin(operators, and(eq(operators.id, apiTokens.operatorId), enabled))
		.where(and(eq(apiTokens.workspaceId, workspaceId), eq(apiTokens.id, credentialId), isNull(apiTokens.revokedAt)))
		.get();
	return row !== undefined;
}
