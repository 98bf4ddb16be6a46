/**
 * What happens when a member is removed: its conversations unassigned, its deals without an owner, its tasks
 * handed to whoever removed it, its credentials gone, all in one batch with their events. Apart from
 * members.ts because it reaches the CRM (deals, tasks) and conversations, which themselves check operators:
 * kept here, above both, the team's own module imports no CRM module.
 */
import { and, eq, sql } from 'drizzle-orm';
import { suspendGates } from '../../auth/credentials';
import { batchGuard, brokeGuard, type Database, nextVersion, type Statement } from '../../db/client';
import {
	apiTokens,
	consoleSessions,
	conversations,
	deals,
	memberNotificationSettings,
	operatorGroups,
	operatorPasswords,
	operators,
	passwordLinks,
	pushSubscriptions,
	tasks,
} from '../../db/schema';
import { rowsLinkedTo } from '../../db/scoped';
import { commit, release } from '../../events/commit';
import { Conflict } from '../../lib/errors';
import type { Actor } from '../../model/actor';
import { type DomainEvent, newEvent } from '../../model/events';
import { conversationsMoved } from '../conversations/conversations';
import { closeReplacedTokenSockets } from '../conversations/live';
import { dealsMoved } from '../crm/deal-events';
import { tasksMoved } from '../crm/tasks';
import { activeTokenHashes, memberRow, memberSummary, operatorIn } from './members';
import { presenceRemoved } from './presence';

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
		db
			.delete(memberNotificationSettings)
			.where(
				and(eq(memberNotificationSettings.workspaceId, workspaceId), eq(memberNotificationSettings.operatorId, id)),
			),
		db
			.delete(pushSubscriptions)
			.where(and(eq(pushSubscriptions.workspaceId, workspaceId), eq(pushSubscriptions.operatorId, id))),
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
