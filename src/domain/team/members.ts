/**
 * The team's members (operators): one function per operation, for the /v3/team routes now and for assignment,
 * bots and rules later. A change to what a member's token may do (its permissions, disabling it) suspends the
 * token's gate before it commits, so the token cannot act on what its gate read before (see `suspendGates`); a
 * disabled member's sockets close at once. Groups are in groups.ts, the checks that name an operator in
 * assignees.ts, and deleting a member (what becomes of its work) in member-removal.ts.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { suspendGates } from '../../auth/credentials';
import { permissionSchema } from '../../auth/permissions';
import { batchGuard, brokeGuard, type Database, type Statement, violatesUnique } from '../../db/client';
import { apiTokens, consoleSessions, operators } from '../../db/schema';
import { commit, release } from '../../events/commit';
import { afterByName, pageOf } from '../../lib/cursor';
import { Conflict, NotFound } from '../../lib/errors';
import { iso, isoOrNull, newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { emailAddress } from '../../model/email-address';
import { changesOf, newEvent } from '../../model/events';
import { closeReplacedTokenSockets } from '../conversations/live';
import { assertGroups, groupGone, membershipStatements } from './groups';
import { presenceRemoved } from './presence';

const groupRef = z
	.object({
		id: z.string().openapi({ description: 'The group id.', example: 'grp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'The group name.', example: 'Sales' }),
	})
	.openapi('GroupRef');

export const memberSchema = z
	.object({
		id: z.string().openapi({ description: 'The operator id.', example: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		email: z.string().openapi({ description: 'Sign-in e-mail.' }),
		name: z.string().openapi({ description: 'Name shown to visitors and colleagues.' }),
		permissions: z
			.array(permissionSchema)
			.openapi({ description: 'What the operator (and its token) may do; `admin` implies every permission.' }),
		groups: z.array(groupRef).openapi({ description: 'The groups it belongs to, by name.' }),
		capacity: z
			.number()
			.int()
			.nullable()
			.openapi({ description: 'The most open conversations assignment gives it; null for no limit.' }),
		disabled: z.boolean().openapi({ description: 'Disabled: its token is refused and it is never available.' }),
		disabledAt: z.string().nullable().openapi({ description: 'When it was disabled (ISO 8601); null if enabled.' }),
		createdAt: z.string().openapi({ description: 'When it was added (ISO 8601).' }),
	})
	.openapi('Operator');

export type MemberView = z.infer<typeof memberSchema>;

const groupIds = z
	.array(z.string().min(1).max(64))
	.max(50)
	.refine((ids) => new Set(ids).size === ids.length, 'group ids must be unique')
	.openapi({ uniqueItems: true });
const capacity = z.int().min(0).max(10_000).nullable();

export const memberChangesSchema = z
	.strictObject({
		name: z
			.string()
			.trim()
			.min(1)
			.max(200)
			.optional()
			.openapi({ description: 'Name shown to visitors and colleagues.' }),
		permissions: z.array(permissionSchema).max(6).optional().openapi({
			description:
				'Replaces its permissions: from its next request, and its open sockets close (to reconnect with them).',
		}),
		groups: groupIds.optional().openapi({ description: 'Replaces its groups, by id.' }),
		capacity: capacity.optional().openapi({ description: 'The most open conversations it takes; null for no limit.' }),
		disabled: z.boolean().optional().openapi({
			description: 'True disables it: its token is refused and its sockets close at once. False enables it again.',
		}),
	})
	.refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
	.openapi('OperatorChanges', { minProperties: 1 });

export type MemberChanges = z.infer<typeof memberChangesSchema>;

export const memberFiltersSchema = z.strictObject({
	groupId: z.string().min(1).max(64).optional().openapi({ description: 'Only the members of this group.' }),
	disabled: z
		.enum(['true', 'false'])
		.transform((v) => v === 'true')
		.optional()
		.openapi({ description: 'Only disabled (`true`) or enabled (`false`) members.' }),
});

/** Position in the member list: by name, then id. */
export const memberCursor = z.object({ name: z.string(), id: z.string() });

type OperatorRow = typeof operators.$inferSelect;

/** The member's groups as `[{ id, name }]` JSON, in the row's own select. */
const groupsOfMember = sql<string>`(SELECT json_group_array(json_object('id', g.id, 'name', g.name)) FROM operator_groups og JOIN groups g ON g.id = og.group_id WHERE og.workspace_id = operators.workspace_id AND og.operator_id = operators.id)`;
const memberColumns = { operator: operators, groups: groupsOfMember };

function memberView(row: { operator: OperatorRow; groups: string | null }): MemberView {
	const { operator } = row;
	const refs = (JSON.parse(row.groups ?? '[]') as Array<{ id: string; name: string }>).sort((a, b) =>
		a.name.localeCompare(b.name),
	);
	return {
		id: operator.id,
		email: operator.email,
		name: operator.name,
		permissions: operator.permissions as z.infer<typeof permissionSchema>[],
		groups: refs,
		capacity: operator.capacity,
		disabled: operator.disabledAt !== null,
		disabledAt: isoOrNull(operator.disabledAt),
		createdAt: iso(operator.createdAt),
	};
}

/** What a member's events say of it. */
export const memberSummary = (row: { id: string; name: string; email: string }) => ({
	id: row.id,
	name: row.name,
	email: row.email,
});

export const operatorIn = (workspaceId: string, id: string) =>
	and(eq(operators.workspaceId, workspaceId), eq(operators.id, id));

/** The member's row with its groups; a 404 when the workspace has no such member. */
export async function memberRow(db: Database, workspaceId: string, id: string) {
	const row = await db.select(memberColumns).from(operators).where(operatorIn(workspaceId, id)).get();
	if (!row) throw new NotFound(`Team member ${id} not found.`);
	return row;
}

export async function getMember(db: Database, workspaceId: string, id: string): Promise<MemberView> {
	return memberView(await memberRow(db, workspaceId, id));
}

/** One page of the workspace's members by name, in one statement. */
export async function listMembers(
	db: Database,
	workspaceId: string,
	filters: z.infer<typeof memberFiltersSchema>,
	after: z.infer<typeof memberCursor> | null,
	limit: number,
) {
	const o = operators;
	const rows = await db
		.select(memberColumns)
		.from(o)
		.where(
			and(
				eq(o.workspaceId, workspaceId),
				filters.groupId === undefined
					? undefined
					: sql`EXISTS (SELECT 1 FROM operator_groups og WHERE og.workspace_id = ${workspaceId} AND og.operator_id = ${o.id} AND og.group_id = ${filters.groupId})`,
				filters.disabled === undefined
					? undefined
					: filters.disabled
						? sql`${o.disabledAt} IS NOT NULL`
						: isNull(o.disabledAt),
				afterByName(o.name, o.id, after),
			),
		)
		.orderBy(asc(o.name), asc(o.id))
		.limit(limit + 1);
	return pageOf(rows, limit, memberView, (row) => ({ name: row.operator.name, id: row.operator.id }));
}

export const newMemberSchema = z
	.strictObject({
		email: emailAddress().openapi({ description: 'Sign-in e-mail, unique in the workspace.' }),
		name: z.string().trim().min(1).max(200).openapi({ description: 'Name shown to visitors and colleagues.' }),
		permissions: z
			.array(permissionSchema)
			.max(6)
			.openapi({ description: 'Only what the operator needs; `admin` implies every permission.' }),
		groups: groupIds.default([]).openapi({ description: 'The groups to put it in, by id.' }),
		capacity: capacity
			.default(null)
			.openapi({ description: 'The most open conversations it takes; null for no limit.' }),
	})
	.openapi('NewOperator');

/** Adds an operator with its groups and a `member.created` event; a 409 when its e-mail is taken. */
export async function createMember(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newMemberSchema>,
	actor: Actor,
	now = Date.now(),
): Promise<MemberView> {
	await assertGroups(db, workspaceId, input.groups, 'groups');
	const row: OperatorRow = {
		id: newId('op', now),
		workspaceId,
		email: input.email.toLowerCase(),
		name: input.name,
		permissions: [...new Set(input.permissions)],
		capacity: input.capacity,
		disabledAt: null,
		createdAt: now,
	};
	const event = newEvent('member.created', workspaceId, actor, { member: memberSummary(row) }, now);
	const statements = [
		db.insert(operators).values(row),
		...membershipStatements(db, workspaceId, { operatorId: row.id }, [], input.groups),
	];
	const committed = await commit(db, { statements, events: [event] }, (error) => {
		if (violatesUnique(error, 'operators.')) {
			throw new Conflict(`An operator with e-mail ${row.email} already exists in this workspace.`, { cause: error });
		}
		return groupGone(error);
	});
	await release(env, committed.events);
	return getMember(db, workspaceId, row.id);
}

/**
 * The hashes of the member's active tokens and console sessions: the gates a change of what it may do must
 * suspend first.
 */
export async function activeTokenHashes(db: Database, workspaceId: string, operatorId: string): Promise<string[]> {
	const rows = await db
		.select({ hash: apiTokens.tokenHash })
		.from(apiTokens)
		.where(
			and(eq(apiTokens.workspaceId, workspaceId), eq(apiTokens.operatorId, operatorId), isNull(apiTokens.revokedAt)),
		)
		.union(
			db
				.select({ hash: consoleSessions.tokenHash })
				.from(consoleSessions)
				.where(
					and(
						eq(consoleSessions.workspaceId, workspaceId),
						eq(consoleSessions.operatorId, operatorId),
						isNull(consoleSessions.revokedAt),
					),
				),
		);
	return rows.map((r) => r.hash);
}

/** Revokes every active console session of a member. */
function endSessions(db: Database, workspaceId: string, operatorId: string, now: number) {
	return db
		.update(consoleSessions)
		.set({ revokedAt: now })
		.where(
			and(
				eq(consoleSessions.workspaceId, workspaceId),
				eq(consoleSessions.operatorId, operatorId),
				isNull(consoleSessions.revokedAt),
			),
		);
}

/** A condition that the operator row still holds what was read (compare-and-set, in a `batchGuard`). */
function unchanged(current: OperatorRow, groupIdsBefore: string[]) {
	return sql`EXISTS (SELECT 1 FROM operators WHERE id = ${current.id} AND workspace_id = ${current.workspaceId}
		AND name = ${current.name} AND permissions = ${JSON.stringify(current.permissions)}
		AND capacity IS ${current.capacity} AND disabled_at IS ${current.disabledAt})
		AND (SELECT coalesce(json_group_array(group_id), '[]') FROM (SELECT group_id FROM operator_groups
			WHERE operator_id = ${current.id} ORDER BY group_id)) = ${JSON.stringify([...groupIdsBefore].sort())}`;
}

/**
 * Changes a member with a `member.updated` event naming each field from and to; nothing when nothing moves.
 * A member cannot disable itself or take away its own `admin` (a workspace could lose its last admin). A
 * change of permissions or of `disabled` suspends the member's token gates before it commits, and closes its
 * sockets after (they were opened with what it could do then); disabling also ends its console sessions. The write applies only while the member is as read, else a 409.
 */
export async function updateMember(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: MemberChanges,
	actor: Actor,
	now = Date.now(),
): Promise<MemberView> {
	const row = await memberRow(db, workspaceId, id);
	const current = row.operator;
	const before = memberView(row);
	const groupsBefore = before.groups.map((g) => g.id);
	if (changes.groups) await assertGroups(db, workspaceId, changes.groups, 'groups');
	const self = actor.kind === 'operator' && actor.id === id;
	if (self && changes.disabled === true) throw new Conflict('An operator cannot disable itself.');
	if (self && changes.permissions && before.permissions.includes('admin') && !changes.permissions.includes('admin')) {
		throw new Conflict('An operator cannot take away its own admin permission.');
	}
	const moved: Partial<
		Record<'name' | 'permissions' | 'groups' | 'capacity' | 'disabled', { from: unknown; to: unknown }>
	> = {};
	const permissions = changes.permissions && [...new Set(changes.permissions)].sort();
	if (changes.name !== undefined && changes.name !== current.name)
		moved.name = { from: current.name, to: changes.name };
	if (permissions && permissions.join() !== [...before.permissions].sort().join()) {
		moved.permissions = { from: before.permissions, to: permissions };
	}
	const groupsAfter = changes.groups && [...changes.groups].sort();
	if (groupsAfter && groupsAfter.join() !== [...groupsBefore].sort().join()) {
		moved.groups = { from: [...groupsBefore].sort(), to: groupsAfter };
	}
	if (changes.capacity !== undefined && changes.capacity !== current.capacity) {
		moved.capacity = { from: current.capacity, to: changes.capacity };
	}
	if (changes.disabled !== undefined && changes.disabled !== before.disabled) {
		moved.disabled = { from: before.disabled, to: changes.disabled };
	}
	if (Object.keys(moved).length === 0) return before;
	// What its token may do changes: its gates read D1 again from before the commit until well after it.
	if (moved.permissions || moved.disabled) await suspendGates(env, await activeTokenHashes(db, workspaceId, id));
	const set = {
		...(moved.name ? { name: changes.name } : {}),
		...(moved.permissions ? { permissions } : {}),
		...(moved.capacity ? { capacity: changes.capacity } : {}),
		...(moved.disabled ? { disabledAt: changes.disabled ? now : null } : {}),
	};
	const statements: Statement[] = [batchGuard(unchanged(current, groupsBefore))];
	if (Object.keys(set).length > 0) statements.push(db.update(operators).set(set).where(operatorIn(workspaceId, id)));
	if (moved.groups)
		statements.push(...membershipStatements(db, workspaceId, { operatorId: id }, groupsBefore, groupsAfter ?? []));
	// Disabling ends its console sessions (enabling it again must not bring an old cookie back); its API token
	// only pauses, as an integration's credential is meant to outlive a leave of absence.
	if (changes.disabled === true) statements.push(endSessions(db, workspaceId, id, now));
	const summary = memberSummary({ ...current, name: changes.name ?? current.name });
	const event = newEvent('member.updated', workspaceId, actor, { member: summary, ...changesOf(moved) }, now);
	const committed = await commit(db, { statements, events: [event] }, (error) => {
		if (brokeGuard(error)) throw new Conflict(`Team member ${id} changed while this update was applied; retry.`);
		return groupGone(error);
	});
	await release(env, committed.events);
	// Its open sockets hold what it could do when they opened: they close now (each room also re-checks its
	// token before acting), and a console reconnects with what it may do now.
	if (changes.disabled === true || moved.permissions) await closeReplacedTokenSockets(env, workspaceId, id);
	if (changes.disabled === true) await presenceRemoved(env, workspaceId, id, actor);
	return getMember(db, workspaceId, id);
}
