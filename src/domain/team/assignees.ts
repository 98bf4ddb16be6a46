/**
 * Who may be named as an assignee, a group or a deal's owner: the checks that an operator is one of the
 * workspace's and enabled, that a group is the workspace's, and the batch guard that keeps them true until the
 * write. Apart from members.ts so that what names an operator (conversations, assignment, tasks, deals) needs
 * only this small module, never the team's operations: removing a member reaches deals and tasks
 * (member-removal.ts), and an import back from them would close a circle.
 */
import { and, eq } from 'drizzle-orm';
import { brokeGuard, type Database, type Statement } from '../../db/client';
import { groups, operators } from '../../db/schema';
import { existsInWorkspace, linksGuard } from '../../db/scoped';
import { Conflict, Invalid } from '../../lib/errors';

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
		.where(and(eq(operators.workspaceId, workspaceId), eq(operators.id, operatorId)))
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
