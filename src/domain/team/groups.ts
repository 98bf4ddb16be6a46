/**
 * Groups of operators (Sales, Support): their CRUD for the /v3/team/groups routes, and the operator-group
 * links both sides write (a member's groups, a group's members). Apart from members.ts because a group is a
 * resource of its own; members.ts uses the links and the group checks from here.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import {
	batchGuard,
	brokeGuard,
	type Database,
	type Statement,
	violatesForeignKey,
	violatesUnique,
} from '../../db/client';
import { conversations, groups, operatorGroups, operators } from '../../db/schema';
import { assertAllInWorkspace, rowsLinkedTo } from '../../db/scoped';
import { commit, release } from '../../events/commit';
import { pageOf } from '../../lib/cursor';
import { Conflict, NotFound } from '../../lib/errors';
import { iso, newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { changesOf, type DomainEvent, newEvent } from '../../model/events';
import { conversationsMoved } from '../conversations/conversations';

/** Checks that every id names a group of the workspace: a 422 naming each unknown one under `field`. */
export function assertGroups(db: Database, workspaceId: string, ids: readonly string[], field: string) {
	return assertAllInWorkspace(db, groups, workspaceId, ids, field, 'group');
}

/** A group deleted between its check and the batch that links it fails the link's foreign key: a 409. */
export function groupGone(error: unknown): never {
	if (violatesForeignKey(error)) {
		throw new Conflict('A group of this change was deleted at the same moment; retry.', { cause: error });
	}
	throw error;
}

/**
 * The statements that make one side's links exactly `to`, from `from`: an operator's groups, or a group's
 * members (`side` names the fixed end). Chunked under D1's bind limit.
 */
export function membershipStatements(
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
	.refine((ids) => new Set(ids).size === ids.length, 'member ids must be unique')
	.openapi({ uniqueItems: true });

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
