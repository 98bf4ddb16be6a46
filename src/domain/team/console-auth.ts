/**
 * Signing in to the operator console, and what an admin manages around it: sessions (listed, revoked). The
 * one-time links that set a password, and changing one, are in console-passwords.ts.
 *
 * Sign-in answers the same for an unknown e-mail, a member with no password yet and a wrong password, in the same
 * time (a decoy hash is checked, src/auth/passwords.ts); failures are throttled per e-mail and per client address
 * (src/domain/team/sign-in-throttle.ts). An e-mail may belong to members of several workspaces, each with its own
 * password: when one password opens more than one, the caller is asked to choose.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Caller } from '../../app-env';
import { csrfToken, hashSession, newSessionValue, SESSION_DAYS } from '../../auth/console-session';
import { suspendGates } from '../../auth/credentials';
import { checkPassword, hashPassword, MAX_PASSWORD_LENGTH } from '../../auth/passwords';
import { sha256Hex } from '../../auth/token';
import { type Database, runBatch } from '../../db/client';
import { consoleSessions, operatorPasswords, operators, workspaces } from '../../db/schema';
import { existsInWorkspace } from '../../db/scoped';
import { addRoute, shardsToAsk } from '../../db/shards';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../lib/cursor';
import { Conflict, NotFound, TooManyRequests, Unauthorized } from '../../lib/errors';
import { iso, isoOrNull, newId } from '../../lib/ids';
import { emailAddress } from '../../model/email-address';
import { type RateLimiterStub, rateLimiter } from '../objects';
import { ADDRESS_POLICY, EMAIL_POLICY, type ThrottlePolicy } from './sign-in-throttle';

export const DAY_MS = 24 * 3600_000;

/** At most this many workspaces' passwords are tried for one e-mail: each try is a full PBKDF2. */
const MAX_MEMBERSHIPS = 5;
const WRONG = 'Wrong e-mail or password.';

export const signInSchema = z
	.strictObject({
		email: emailAddress().openapi({ description: 'The sign-in e-mail.', example: 'ana@acme.example' }),
		password: z.string().min(1).max(MAX_PASSWORD_LENGTH).openapi({ description: 'The password.' }),
		workspaceId: z.string().min(1).max(64).optional().openapi({
			description: 'Which workspace, when the same e-mail and password open several (the answer lists them).',
		}),
	})
	.openapi('SignIn');

export const consoleSessionSchema = z
	.object({
		operator: z
			.object({
				id: z.string().openapi({ description: 'The operator id.' }),
				name: z.string().openapi({ description: 'Its name.' }),
				email: z.string().openapi({ description: 'Its e-mail.' }),
			})
			.openapi({ description: 'Who is signed in.' }),
		workspace: z
			.object({
				id: z.string().openapi({ description: 'The workspace id.' }),
				name: z.string().openapi({ description: 'Its name.' }),
			})
			.openapi({ description: 'The workspace the session acts in.' }),
		permissions: z.array(z.string()).openapi({ description: 'The operator’s permissions.' }),
		csrfToken: z.string().openapi({
			description: 'Send it as `X-CSRF-Token` on every state-changing request the console makes.',
		}),
		expiresAt: z.string().openapi({ description: 'When the session ends (ISO 8601): then sign in again.' }),
	})
	.openapi('ConsoleSession');
export type ConsoleSessionView = z.infer<typeof consoleSessionSchema>;

export const workspaceChoiceSchema = z
	.object({
		workspaces: z
			.array(
				z.object({
					id: z.string().openapi({ description: 'The workspace id.' }),
					name: z.string().openapi({ description: 'Its name.' }),
				}),
			)
			.openapi({ description: 'The workspaces this e-mail and password open: sign in again with one’s id.' }),
	})
	.openapi('WorkspaceChoice');

/** The browser a session is opened for. */
export interface Client {
	userAgent: string;
	ip: string;
}

/** The columns of a member the console is told about (operators joined with workspaces). */
export const MEMBER = {
	operatorId: operators.id,
	name: operators.name,
	email: operators.email,
	permissions: operators.permissions,
	workspaceId: operators.workspaceId,
	workspaceName: workspaces.name,
};
interface Member {
	operatorId: string;
	name: string;
	email: string;
	permissions: string[];
	workspaceId: string;
	workspaceName: string;
}

type Throttle = [RateLimiterStub, ThrottlePolicy];

/** The e-mail's throttle first (a good sign-in clears it), then the client address's. */
function throttles(env: Env, emailHash: string, ip: string): [Throttle, Throttle] {
	return [
		[rateLimiter(env, `sign-in:${emailHash}`), EMAIL_POLICY],
		[rateLimiter(env, `sign-in-address:${ip}`), ADDRESS_POLICY],
	];
}

async function assertNotThrottled(limiters: Throttle[]): Promise<void> {
	const waits = await Promise.all(limiters.map(([limiter, policy]) => limiter.signInWait(policy)));
	const wait = Math.max(...waits);
	if (wait > 0) {
		const seconds = Math.ceil(wait / 1000);
		throw new TooManyRequests(`Too many failed sign-ins: try again in ${seconds} s.`, seconds);
	}
}

/**
 * Checks the e-mail and password and opens a session: the cookie's value (for `Set-Cookie`, never in a body)
 * and what the console needs. Or, when the password opens several workspaces and none was named, their list.
 */
export async function signIn(
	env: Env,
	db: Database,
	input: z.infer<typeof signInSchema>,
	client: Client,
	now = Date.now(),
): Promise<{ session: ConsoleSessionView; cookie: string } | { choose: z.infer<typeof workspaceChoiceSchema> }> {
	const email = input.email.toLowerCase();
	const limiters = throttles(env, await sha256Hex(`sign-in:${email}`), client.ip);
	await assertNotThrottled(limiters);
	// The e-mail names no workspace: each shard is asked for its memberships (one, unless there are shards).
	const found = await Promise.all(
		shardsToAsk(env, db).map(async (shard) => {
			const rows = await shard
				.select({ ...MEMBER, hash: operatorPasswords.hash, createdAt: operators.createdAt })
				.from(operators)
				.innerJoin(workspaces, eq(workspaces.id, operators.workspaceId))
				.leftJoin(operatorPasswords, eq(operatorPasswords.operatorId, operators.id))
				.where(
					and(
						eq(operators.email, email),
						isNull(operators.disabledAt),
						input.workspaceId ? eq(operators.workspaceId, input.workspaceId) : undefined,
					),
				)
				.orderBy(operators.createdAt)
				.limit(MAX_MEMBERSHIPS);
			return rows.map((row) => ({ ...row, shard }));
		}),
	);
	const members = found
		.flat()
		.sort((a, b) => a.createdAt - b.createdAt)
		.slice(0, MAX_MEMBERSHIPS);
	// Always at least one full check (a decoy when there is nobody), so a miss takes as long as a wrong password.
	const checks = await Promise.all(
		(members.length > 0 ? members : [null]).map((member) => checkPassword(input.password, member?.hash ?? null)),
	);
	const opened = members.filter((_, i) => checks[i]?.matches);
	if (opened.length === 0) {
		await Promise.all(limiters.map(([limiter, policy]) => limiter.signInFailed(policy)));
		throw new Unauthorized(WRONG, false);
	}
	await limiters[0][0].signInSucceeded();
	if (opened.length > 1) {
		return { choose: { workspaces: opened.map((m) => ({ id: m.workspaceId, name: m.workspaceName })) } };
	}
	const member = opened[0] as (typeof opened)[number];
	const outdated = checks[members.indexOf(member)]?.outdated === true;
	const home = member.shard;
	const rehash = outdated
		? [passwordUpsert(home, member.workspaceId, member.operatorId, await hashPassword(input.password), now)]
		: [];
	const { cookie, row } = await newSession(member.workspaceId, member.operatorId, client, now);
	await addRoute(env, 'session', row.tokenHash, member.workspaceId, now);
	await runBatch(home, [...rehash, home.insert(consoleSessions).values(row)]);
	return { session: await sessionView(env, member, row), cookie };
}

/** A new session of the member: the cookie's value and the row that stores its hash. */
export async function newSession(workspaceId: string, operatorId: string, client: Client, now: number) {
	const cookie = newSessionValue();
	const row = {
		id: newId('ses', now),
		workspaceId,
		operatorId,
		tokenHash: await hashSession(cookie),
		userAgent: client.userAgent.slice(0, 200),
		createdAt: now,
		lastSeenAt: now,
		expiresAt: now + SESSION_DAYS * DAY_MS,
	};
	return { cookie, row };
}

/** The statement that stores a password's hash (`hashPassword` first: a statement is not awaited before its batch). */
export function passwordUpsert(db: Database, workspaceId: string, operatorId: string, hash: string, now: number) {
	return db
		.insert(operatorPasswords)
		.values({ operatorId, workspaceId, hash, updatedAt: now })
		.onConflictDoUpdate({ target: operatorPasswords.operatorId, set: { hash, updatedAt: now } });
}

/** What the console is told about a session: who, where, what it may do, and the CSRF token. */
export async function sessionView(
	env: Env,
	member: Member,
	session: { tokenHash: string; expiresAt: number },
): Promise<ConsoleSessionView> {
	return {
		operator: { id: member.operatorId, name: member.name, email: member.email },
		workspace: { id: member.workspaceId, name: member.workspaceName },
		permissions: member.permissions,
		csrfToken: await csrfToken(env, session.tokenHash),
		expiresAt: iso(session.expiresAt),
	};
}

/** The signed-in caller's session, as sign-in described it (a reloaded console asks for it). */
export async function currentSession(env: Env, db: Database, caller: Caller): Promise<ConsoleSessionView> {
	const { credential } = caller;
	if (credential.kind !== 'session') {
		throw new Conflict('This request was made with an API token, not a console session.');
	}
	const row = await db
		.select({ ...MEMBER, expiresAt: consoleSessions.expiresAt })
		.from(consoleSessions)
		.innerJoin(operators, eq(operators.id, consoleSessions.operatorId))
		.innerJoin(workspaces, eq(workspaces.id, operators.workspaceId))
		.where(and(eq(consoleSessions.workspaceId, caller.workspaceId), eq(consoleSessions.id, credential.id)))
		.get();
	if (!row) throw new Unauthorized('The console session has ended: sign in again.', false);
	return sessionView(env, row, { tokenHash: credential.hash, expiresAt: row.expiresAt });
}

/**
 * Ends sessions at once: their gates are suspended first (so none answers from what it read before), then the
 * rows revoked. Returns how many were still active.
 */
export async function revokeSessions(
	env: Env,
	db: Database,
	workspaceId: string,
	where: ReturnType<typeof and>,
	now: number,
) {
	const active = and(eq(consoleSessions.workspaceId, workspaceId), isNull(consoleSessions.revokedAt), where);
	const rows = await db.select({ hash: consoleSessions.tokenHash }).from(consoleSessions).where(active);
	if (rows.length === 0) return 0;
	await suspendGates(
		env,
		rows.map((r) => r.hash),
	);
	const result = await db.update(consoleSessions).set({ revokedAt: now }).where(active);
	return result.meta.changes;
}

/** Signs the caller's session out. */
export async function signOut(env: Env, db: Database, caller: Caller, now = Date.now()): Promise<void> {
	if (caller.credential.kind !== 'session') return;
	await revokeSessions(env, db, caller.workspaceId, eq(consoleSessions.id, caller.credential.id), now);
}

/** An admin ends one session of the workspace (404 for another workspace's or an unknown one). */
export async function revokeSession(env: Env, db: Database, workspaceId: string, id: string, now = Date.now()) {
	if (!(await existsInWorkspace(db, consoleSessions, workspaceId, id))) throw new NotFound(`Session ${id} not found.`);
	await revokeSessions(env, db, workspaceId, eq(consoleSessions.id, id), now);
}

export const sessionSchema = z
	.object({
		id: z.string().openapi({ description: 'The session id.', example: 'ses_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		operatorId: z.string().openapi({ description: 'Who signed in.' }),
		userAgent: z.string().openapi({ description: 'The browser, as it named itself.' }),
		createdAt: z.string().openapi({ description: 'When it signed in (ISO 8601).' }),
		lastSeenAt: z.string().openapi({ description: 'When it was last used, to within five minutes (ISO 8601).' }),
		expiresAt: z.string().openapi({ description: 'When it ends by itself (ISO 8601).' }),
		revokedAt: z.string().nullable().openapi({ description: 'When it was signed out or revoked; null while active.' }),
		current: z.boolean().openapi({ description: 'Whether it is the session making this request.' }),
	})
	.openapi('ConsoleSessionEntry');

export const sessionFiltersSchema = z.object({
	operatorId: z.string().min(1).max(64).optional().openapi({ description: 'Only this operator’s sessions.' }),
	active: z
		.enum(['true', 'false'])
		.optional()
		.openapi({ description: '`true`: only sessions that may still be used.' }),
});

/** The workspace's console sessions, newest first. */
export async function listSessions(
	db: Database,
	caller: Caller,
	filters: z.infer<typeof sessionFiltersSchema>,
	after: NewestFirstCursor | null,
	limit: number,
	now = Date.now(),
) {
	const stillActive = and(isNull(consoleSessions.revokedAt), gt(consoleSessions.expiresAt, now));
	const rows = await db
		.select()
		.from(consoleSessions)
		.where(
			and(
				eq(consoleSessions.workspaceId, caller.workspaceId),
				filters.operatorId ? eq(consoleSessions.operatorId, filters.operatorId) : undefined,
				filters.active === 'true' ? stillActive : filters.active === 'false' ? sql`NOT (${stillActive})` : undefined,
				afterNewestFirst(consoleSessions.createdAt, consoleSessions.id, after),
			),
		)
		.orderBy(desc(consoleSessions.createdAt), desc(consoleSessions.id))
		.limit(limit + 1);
	return pageOf(
		rows,
		limit,
		(row) => ({
			id: row.id,
			operatorId: row.operatorId,
			userAgent: row.userAgent,
			createdAt: iso(row.createdAt),
			lastSeenAt: iso(row.lastSeenAt),
			expiresAt: iso(row.expiresAt),
			revokedAt: isoOrNull(row.revokedAt),
			current: caller.credential.id === row.id,
		}),
		(row) => ({ at: row.createdAt, id: row.id }),
	);
}
