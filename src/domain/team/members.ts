/**
 * The team: operators (members) and the groups they belong to. One function per operation, for the
 * /v3/team routes now and for assignment, bots and rules later. A change to what a member's token may do
 * (its permissions, disabling it, deleting it) suspends the token's gate before it commits, so the token
 * cannot act on what its gate read before (see `suspendGates`); a disabled member's sockets close at once.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { suspendGates } from '../../auth/credentials';
import { permissionSchema } from '../../auth/permissions';
import {
	batchGuard,
	brokeGuard,
	type Database,
	nextVersion,
	type Statement,
	violatesForeignKey,
	violatesUnique,
} from '../../db/client';
import {
	apiTokens,
	consoleSessions,
	conversations,
	deals,
	groups,
	operatorGroups,
	operatorPasswords,
	operators,
	passwordLinks,
	tasks,
} from '../../db/schema';
import { assertAllInWorkspace, existsInWorkspace, linksGuard, rowsLinkedTo } from '../../db/scoped';
import { commit, release } from '../../events/commit';
import { afterByName, pageOf } from '../../lib/cursor';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { iso, isoOrNull, newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { changesOf, type DomainEvent, newEvent } from '../../model/events';
import { conversationsMoved } from '../conversations/conversations';
import { closeReplacedTokenSockets } from '../conversations/live';
import { dealsMoved } from '../crm/deals';
import { tasksMoved } from '../crm/tasks';
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
	.refine((ids) => new Set(ids).size === ids.length, 'group ids must be unique');
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

const memberSummary = (row: { id: string; name: string; email: string }) => ({
	id: row.id,
	name: row.name,
	email: row.email,
});

const operatorIn = (workspaceId: string, id: string) =>
	and(eq(operators.workspaceId, workspaceId), eq(operators.id, id));

async function memberRow(db: Database, workspaceId: string, id: string) {
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

/** Checks that every id names a group of the workspace: a 422 naming each unknown one under `field`. */
export function assertGroups(db: Database, workspaceId: string, ids: readonly string[], field: string) {
	return assertAllInWorkspace(db, groups, workspaceId, ids, field, 'group');
}

/** A group deleted between its check and the batch that links it fails the link's foreign key: a 409. */
function groupGone(error: unknown): never {
	if (violatesForeignKey(error)) {
		throw new Conflict('A group of this change was deleted at the same moment; retry.', { cause: error });
	}
	throw error;
}

/**
 * The statements that make one side's links exactly `to`, from `from`: an operator's groups, or a group's
 * members (`side` names the fixed end). Chunked under D1's bind limit.
 */
function membershipStatements(
	db: Database,
	workspaceId: string,
	side: { operatorId: string } | { groupId: string },
	from: readonly string[],
	to: readonly string[],
) {
	const fixed = 'operatorId' in side ? operatorGroups.operatorId : operatorGroups.groupId;
	const fixedId = 'operatorId' in side ? side.operatorId : side.groupId;
	const other = 'operatorId' in side ? operatorGroups.groupId : operatorGroups.operatorId;
	const row = (id: string) =>
		'operatorId' in side
			? { workspaceId, operatorId: side.operatorId, groupId: id }
			: { workspaceId, operatorId: id, groupId: side.groupId };
	const removed = from.filter((id) => !to.includes(id));
	const added = to.filter((id) => !from.includes(id));
	const statements: Statement[] = [];
	for (let i = 0; i < removed.length; i += 90) {
		const ids = removed.slice(i, i + 90);
		statements.push(
			db
				.delete(operatorGroups)
				.where(and(eq(operatorGroups.workspaceId, workspaceId), eq(fixed, fixedId), inArray(other, ids))),
		);
	}
	for (let i = 0; i < added.length; i += 30) {
		statements.push(
			db
				.insert(operatorGroups)
				.values(added.slice(i, i + 30).map(row))
				.onConflictDoNothing(),
		);
	}
	return statements;
}

export const newMemberSchema = z
	.strictObject({
		email: z.email().max(254).openapi({ description: 'Sign-in e-mail, unique in the workspace.' }),
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
async function activeTokenHashes(db: Database, workspaceId: string, operatorId: string): Promise<string[]> {
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

/**
 * Deletes a member: its tokens, console sessions, password and group memberships go, every conversation assigned to it is unassigned
 * (each with its `conversation.updated`), its deals lose their owner (each with its `deal.updated`) and its
 * tasks go to the operator deleting it (each with its `task.updated`), in one batch with `member.deleted`. Its gates are
 * suspended first and its sockets closed after. A member cannot delete itself (409).
 */
export async function deleteMember(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	actor: Actor,
	now = Date.now(),
): Promise<void> {
	const { operator } = await memberRow(db, workspaceId, id);
	if (actor.kind === 'operator' && actor.id === id) throw new Conflict('An operator cannot delete itself.');
	// Its to-dos are not dropped: whoever removed it gets them (an automation removing it, nobody: refused).
	const heir = actor.kind === 'operator' ? actor.id : null;
	const [assigned, todo, owned] = await Promise.all([
		rowsLinkedTo(db, conversations, conversations.assigneeId, workspaceId, id),
		rowsLinkedTo(db, tasks, tasks.assigneeId, workspaceId, id),
		rowsLinkedTo(db, deals, deals.ownerId, workspaceId, id),
	]);
	if (todo.rows.length > 0 && heir === null) {
		throw new Conflict(`Team member ${id} has tasks: an operator deletes it and takes them over.`);
	}
	await suspendGates(env, await activeTokenHashes(db, workspaceId, id));
	const statements: Statement[] = [
		// Rows given to it since the reads above would change without their event: refused.
		batchGuard(sql`${assigned.unchanged} AND ${todo.unchanged} AND ${owned.unchanged}`),
		db.update(conversations).set({ assigneeId: null, updatedAt: now }).where(assigned.where),
		db
			.update(deals)
			.set({ ownerId: null, updatedAt: nextVersion(deals.updatedAt, now) })
			.where(owned.where),
		db
			.update(tasks)
			.set({ assigneeId: heir ?? id, updatedAt: now })
			.where(todo.where),
		db
			.delete(operatorGroups)
			.where(and(eq(operatorGroups.workspaceId, workspaceId), eq(operatorGroups.operatorId, id))),
		db.delete(apiTokens).where(and(eq(apiTokens.workspaceId, workspaceId), eq(apiTokens.operatorId, id))),
		// Its console sign-ins, password and password links go with it.
		db
			.delete(consoleSessions)
			.where(and(eq(consoleSessions.workspaceId, workspaceId), eq(consoleSessions.operatorId, id))),
		db
			.delete(operatorPasswords)
			.where(and(eq(operatorPasswords.workspaceId, workspaceId), eq(operatorPasswords.operatorId, id))),
		db.delete(passwordLinks).where(and(eq(passwordLinks.workspaceId, workspaceId), eq(passwordLinks.operatorId, id))),
		db.delete(operators).where(operatorIn(workspaceId, id)),
	];
	const events: DomainEvent[] = [
		...conversationsMoved(workspaceId, actor, assigned.rows, 'assigneeId', null, now),
		...tasksMoved(workspaceId, actor, todo.rows, 'assigneeId', heir ?? id, now),
		...dealsMoved(workspaceId, actor, owned.rows, 'ownerId', null, now),
		newEvent('member.deleted', workspaceId, actor, { member: memberSummary(operator) }, now),
	];
	const committed = await commit(db, { statements, events }, (error) => {
		if (brokeGuard(error)) throw new Conflict(`Team member ${id} was given a conversation or a task meanwhile; retry.`);
		throw error;
	});
	await release(env, committed.events);
	await closeReplacedTokenSockets(env, workspaceId, id);
	await presenceRemoved(env, workspaceId, id, actor);
}

// Groups.

export const groupSchema = z
	.object({
		id: z.string().openapi({ description: 'The group id.', example: 'grp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'The name, unique in the workspace.', example: 'Sales' }),
		memberIds: z.array(z.string()).openapi({ description: 'The operators in it.' }),
		createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
	})
	.openapi('Group');

export type GroupView = z.infer<typeof groupSchema>;

const groupName = z.string().trim().min(1).max(64);
const memberIds = z
	.array(z.string().min(1).max(64))
	.max(500)
	.refine((ids) => new Set(ids).size === ids.length, 'member ids must be unique');

export const newGroupSchema = z
	.strictObject({
		name: groupName.openapi({ description: 'Unique in the workspace.', example: 'Sales' }),
		memberIds: memberIds.default([]).openapi({ description: 'The operators to put in it.' }),
	})
	.openapi('NewGroup');

export const groupChangesSchema = z
	.strictObject({
		name: groupName.optional().openapi({ description: 'The new name.' }),
		memberIds: memberIds.optional().openapi({ description: 'Replaces its members.' }),
	})
	.refine((b) => Object.keys(b).length > 0, 'give at least one of name, memberIds')
	.openapi('GroupChanges', { minProperties: 1 });

export const groupCursor = z.object({ name: z.string() });

const membersOfGroup = sql<string>`(SELECT json_group_array(og.operator_id) FROM operator_groups og WHERE og.workspace_id = groups.workspace_id AND og.group_id = groups.id)`;
const groupColumns = { group: groups, members: membersOfGroup };

function groupView(row: { group: typeof groups.$inferSelect; members: string | null }): GroupView {
	return {
		id: row.group.id,
		name: row.group.name,
		memberIds: (JSON.parse(row.members ?? '[]') as string[]).sort(),
		createdAt: iso(row.group.createdAt),
	};
}

const groupIn = (workspaceId: string, id: string) => and(eq(groups.workspaceId, workspaceId), eq(groups.id, id));

async function groupRow(db: Database, workspaceId: string, id: string) {
	const row = await db.select(groupColumns).from(groups).where(groupIn(workspaceId, id)).get();
	if (!row) throw new NotFound(`Group ${id} not found.`);
	return row;
}

export async function getGroup(db: Database, workspaceId: string, id: string): Promise<GroupView> {
	return groupView(await groupRow(db, workspaceId, id));
}

/** One page of the workspace's groups by name (names are unique), in one statement. */
export async function listGroups(db: Database, workspaceId: string, after: { name: string } | null, limit: number) {
	const rows = await db
		.select(groupColumns)
		.from(groups)
		.where(and(eq(groups.workspaceId, workspaceId), after === null ? undefined : gt(groups.name, after.name)))
		.orderBy(asc(groups.name))
		.limit(limit + 1);
	return pageOf(rows, limit, groupView, (row) => ({ name: row.group.name }));
}

function groupNameTaken(name: string) {
	return (error: unknown): never => {
		if (violatesUnique(error, 'groups.name')) {
			throw new Conflict(`The workspace already has a group named "${name}".`, { cause: error });
		}
		if (violatesForeignKey(error)) {
			throw new Conflict('A member of this change was deleted at the same moment; retry.', { cause: error });
		}
		throw error;
	};
}

/** Creates a group with its members and a `group.created` event; a 409 when the name is taken. */
export async function createGroup(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newGroupSchema>,
	actor: Actor,
	now = Date.now(),
): Promise<GroupView> {
	await assertAllInWorkspace(db, operators, workspaceId, input.memberIds, 'memberIds', 'operator');
	const row = { id: newId('grp', now), workspaceId, name: input.name, createdAt: now };
	const event = newEvent('group.created', workspaceId, actor, { group: { id: row.id, name: row.name } }, now);
	const statements = [
		db.insert(groups).values(row),
		...membershipStatements(db, workspaceId, { groupId: row.id }, [], input.memberIds),
	];
	const committed = await commit(db, { statements, events: [event] }, groupNameTaken(input.name));
	await release(env, committed.events);
	return getGroup(db, workspaceId, row.id);
}

/**
 * Renames a group or replaces its members, with a `group.updated` event from and to; nothing when nothing
 * moves. The write applies only while the group is as read, else a 409.
 */
export async function updateGroup(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof groupChangesSchema>,
	actor: Actor,
	now = Date.now(),
): Promise<GroupView> {
	const before = groupView(await groupRow(db, workspaceId, id));
	if (changes.memberIds) {
		await assertAllInWorkspace(db, operators, workspaceId, changes.memberIds, 'memberIds', 'operator');
	}
	const moved: Partial<Record<'name' | 'memberIds', { from: unknown; to: unknown }>> = {};
	if (changes.name !== undefined && changes.name !== before.name) moved.name = { from: before.name, to: changes.name };
	const after = changes.memberIds && [...changes.memberIds].sort();
	if (after && after.join() !== before.memberIds.join()) moved.memberIds = { from: before.memberIds, to: after };
	if (Object.keys(moved).length === 0) return before;
	const statements: Statement[] = [
		batchGuard(sql`EXISTS (SELECT 1 FROM groups WHERE id = ${id} AND workspace_id = ${workspaceId} AND name = ${before.name})
			AND (SELECT coalesce(json_group_array(operator_id), '[]') FROM (SELECT operator_id FROM operator_groups
				WHERE group_id = ${id} ORDER BY operator_id)) = ${JSON.stringify(before.memberIds)}`),
	];
	if (moved.name) statements.push(db.update(groups).set({ name: changes.name }).where(groupIn(workspaceId, id)));
	if (moved.memberIds) {
		statements.push(...membershipStatements(db, workspaceId, { groupId: id }, before.memberIds, after ?? []));
	}
	const group = { id, name: changes.name ?? before.name };
	const event = newEvent('group.updated', workspaceId, actor, { group, ...changesOf(moved) }, now);
	const committed = await commit(db, { statements, events: [event] }, (error) => {
		if (brokeGuard(error)) throw new Conflict(`Group ${id} changed while this update was applied; retry.`);
		return groupNameTaken(changes.name ?? before.name)(error);
	});
	await release(env, committed.events);
	return getGroup(db, workspaceId, id);
}

/**
 * Deletes a group: its members leave it and its conversations lose it, each with its `conversation.updated`,
 * in one batch with `group.deleted` (guarded: a conversation routed to it meanwhile makes it a 409).
 */
export async function deleteGroup(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	actor: Actor,
	now = Date.now(),
): Promise<void> {
	const { group } = await groupRow(db, workspaceId, id);
	const routed = await rowsLinkedTo(db, conversations, conversations.groupId, workspaceId, id);
	const statements: Statement[] = [
		batchGuard(routed.unchanged),
		db.update(conversations).set({ groupId: null, updatedAt: now }).where(routed.where),
		db.delete(operatorGroups).where(and(eq(operatorGroups.workspaceId, workspaceId), eq(operatorGroups.groupId, id))),
		db.delete(groups).where(groupIn(workspaceId, id)),
	];
	const events: DomainEvent[] = [
		...conversationsMoved(workspaceId, actor, routed.rows, 'groupId', null, now),
		newEvent('group.deleted', workspaceId, actor, { group: { id, name: group.name } }, now),
	];
	const committed = await commit(db, { statements, events }, (error) => {
		if (brokeGuard(error)) throw new Conflict(`Group ${id} was given a conversation meanwhile; retry.`);
		if (violatesForeignKey(error)) throw new Conflict(`Group ${id} was given a member meanwhile; retry.`);
		throw error;
	});
	await release(env, committed.events);
}

/**
 * The checks of a conversation's assignment: the assignee an enabled operator of the workspace, the group
 * one of its groups (422 naming the field otherwise). The batch that writes them carries `assignmentGuard`,
 * so a member disabled or deleted, or a group deleted, between this check and the write refuses it.
 */
export async function assertAssignment(
	db: Database,
	workspaceId: string,
	target: { assigneeId?: string | null; groupId?: string | null },
): Promise<void> {
	if (target.assigneeId) await assertEnabledOperator(db, workspaceId, target.assigneeId, 'assigneeId');
	if (target.groupId && !(await existsInWorkspace(db, groups, workspaceId, target.groupId))) {
		throw new Invalid(`no group ${target.groupId} in this workspace`, { field: ['groupId'] });
	}
}

/**
 * Checks that an operator someone names (an assignee, a deal's owner) is one of the workspace's and is
 * enabled: a 422 on `field` otherwise.
 */
export async function assertEnabledOperator(db: Database, workspaceId: string, operatorId: string, field: string) {
	const row = await db
		.select({ disabledAt: operators.disabledAt })
		.from(operators)
		.where(operatorIn(workspaceId, operatorId))
		.get();
	if (!row) throw new Invalid(`no operator ${operatorId} in this workspace`, { field: [field] });
	if (row.disabledAt !== null) throw new Invalid(`operator ${operatorId} is disabled`, { field: [field] });
}

/** The batch guard of a checked assignment (see `assertAssignment`); null when it names no one. */
export function assignmentGuard(
	workspaceId: string,
	target: { assigneeId?: string | null; groupId?: string | null },
): Statement | null {
	return linksGuard(workspaceId, [
		['operators', target.assigneeId],
		['groups', target.groupId],
	]);
}

/** The 409 of a batch whose `assignmentGuard` failed; other errors go to `otherwise`. */
export function assignmentGone(otherwise: (error: unknown) => never) {
	return (error: unknown): never => {
		if (brokeGuard(error)) {
			throw new Conflict('The assignee or group was disabled or deleted at the same moment; retry.', { cause: error });
		}
		return otherwise(error);
	};
}
