/**
 * Console passwords: the one-time links an admin makes to set a member's password (an invitation for a new
 * member, a reset for one who forgot), setting a password through one (which signs the member in), and a
 * member changing its own. Apart from console-auth.ts (signing in and the sessions it opens), whose session
 * helpers it uses: a new password ends the member's other sessions.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { Caller } from '../../app-env';
import { checkPassword, hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../auth/passwords';
import { randomBase62, sha256Hex } from '../../auth/token';
import { batchGuard, brokeGuard, type Database, runBatch } from '../../db/client';
import { consoleSessions, operatorPasswords, operators, passwordLinks, workspaces } from '../../db/schema';
import { addRoute, firstFound, shardsToAsk } from '../../db/shards';
import { Invalid, NotFound } from '../../lib/errors';
import { iso, newId } from '../../lib/ids';
import { type Client, DAY_MS, MEMBER, newSession, passwordUpsert, revokeSessions, sessionView } from './console-auth';

/** How long an invitation, and a reset link, may be used. */
const LINK_LIFETIME_MS = { invite: 7 * DAY_MS, reset: DAY_MS } as const;

const password = z
	.string()
	.min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`)
	.max(MAX_PASSWORD_LENGTH)
	.openapi({ description: `At least ${MIN_PASSWORD_LENGTH} characters.` });

export const setPasswordSchema = z
	.strictObject({
		token: z.string().min(1).max(100).openapi({ description: 'The token of the one-time link (after `#token=`).' }),
		password,
	})
	.openapi('SetPassword');

export const changePasswordSchema = z
	.strictObject({
		currentPassword: z.string().min(1).max(MAX_PASSWORD_LENGTH).openapi({ description: 'The password now.' }),
		newPassword: password,
	})
	.openapi('ChangePassword');

export const passwordLinkSchema = z
	.object({
		url: z.string().openapi({
			description:
				'The one-time link to hand to the member (the token is after `#`, so it never reaches a server log).',
			example: 'https://parley.example/console/set-password#token=ppl_…',
		}),
		purpose: z
			.enum(['invite', 'reset'])
			.openapi({ description: '`invite` for a member with no password yet, else `reset`.' }),
		expiresAt: z.string().openapi({ description: 'When the link stops working (ISO 8601).' }),
	})
	.openapi('PasswordLink');

/**
 * An admin makes a one-time link that sets a member's password: an invitation (7 days) when it has none, a reset
 * (24 hours) otherwise. Any earlier unused link of the member stops working.
 */
export async function createPasswordLink(
	db: Database,
	caller: Caller,
	operatorId: string,
	origin: string,
	now = Date.now(),
) {
	const { workspaceId } = caller;
	const member = await db
		.select({ id: operators.id, hash: operatorPasswords.hash })
		.from(operators)
		.leftJoin(operatorPasswords, eq(operatorPasswords.operatorId, operators.id))
		.where(and(eq(operators.workspaceId, workspaceId), eq(operators.id, operatorId)))
		.get();
	if (!member) throw new NotFound(`Team member ${operatorId} not found.`);
	const purpose = member.hash ? ('reset' as const) : ('invite' as const);
	const token = `ppl_${randomBase62(43)}`;
	const expiresAt = now + LINK_LIFETIME_MS[purpose];
	await runBatch(db, [
		db
			.update(passwordLinks)
			.set({ usedAt: now })
			.where(and(eq(passwordLinks.operatorId, operatorId), isNull(passwordLinks.usedAt))),
		db.insert(passwordLinks).values({
			id: newId('pwl', now),
			workspaceId,
			operatorId,
			tokenHash: await sha256Hex(token),
			purpose,
			createdBy: caller.operatorId,
			createdAt: now,
			expiresAt,
		}),
	]);
	return { url: `${origin}/console/set-password#token=${token}`, purpose, expiresAt: iso(expiresAt) };
}

/**
 * Sets a password through a one-time link and signs its member in. The link is used up in the same transaction
 * that stores the password (a second use, or an expired link, changes nothing); a reset ends the member's other
 * sessions.
 */
export async function setPasswordWithLink(
	env: Env,
	db: Database,
	input: z.infer<typeof setPasswordSchema>,
	client: Client,
	now = Date.now(),
) {
	const tokenHash = await sha256Hex(input.token);
	// The link names no workspace: each shard is asked (one, unless there are shards); the link's is used below.
	const found = await firstFound(shardsToAsk(env, db), (shard) =>
		shard
			.select({ ...MEMBER, id: passwordLinks.id })
			.from(passwordLinks)
			.innerJoin(operators, and(eq(operators.id, passwordLinks.operatorId), isNull(operators.disabledAt)))
			.innerJoin(workspaces, eq(workspaces.id, operators.workspaceId))
			.where(
				and(eq(passwordLinks.tokenHash, tokenHash), isNull(passwordLinks.usedAt), gt(passwordLinks.expiresAt, now)),
			)
			.get(),
	);
	const link = found ? { ...found.row, shard: found.shard } : null;
	const expired = new Invalid('This link has expired or was already used: ask an admin for a new one.', {
		field: ['token'],
	});
	if (!link) throw expired;
	const { workspaceId, operatorId, shard: home } = link;
	const hash = await hashPassword(input.password);
	await revokeSessions(env, home, workspaceId, eq(consoleSessions.operatorId, operatorId), now);
	const { cookie, row } = await newSession(workspaceId, operatorId, client, now);
	await addRoute(env, 'session', row.tokenHash, workspaceId, now);
	try {
		await runBatch(home, [
			home
				.update(passwordLinks)
				.set({ usedAt: now })
				.where(and(eq(passwordLinks.id, link.id), isNull(passwordLinks.usedAt))),
			batchGuard(sql`changes() = 1`),
			passwordUpsert(home, workspaceId, operatorId, hash, now),
			home.insert(consoleSessions).values(row),
		]);
	} catch (error) {
		if (brokeGuard(error)) throw expired;
		throw error;
	}
	return { session: await sessionView(env, link, row), cookie };
}

/** The signed-in operator changes its own password (the current one checked); its other sessions end. */
export async function changePassword(
	env: Env,
	db: Database,
	caller: Caller,
	input: z.infer<typeof changePasswordSchema>,
	now = Date.now(),
) {
	const stored = await db
		.select({ hash: operatorPasswords.hash })
		.from(operatorPasswords)
		.where(
			and(eq(operatorPasswords.workspaceId, caller.workspaceId), eq(operatorPasswords.operatorId, caller.operatorId)),
		)
		.get();
	const check = await checkPassword(input.currentPassword, stored?.hash ?? null);
	if (!check.matches) throw new Invalid('The current password is wrong.', { field: ['currentPassword'] });
	const { credential } = caller;
	const others = and(
		eq(consoleSessions.operatorId, caller.operatorId),
		credential.kind === 'session' ? ne(consoleSessions.id, credential.id) : undefined,
	);
	const hash = await hashPassword(input.newPassword);
	await revokeSessions(env, db, caller.workspaceId, others, now);
	await runBatch(db, [passwordUpsert(db, caller.workspaceId, caller.operatorId, hash, now)]);
}
