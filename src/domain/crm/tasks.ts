/**
 * Tasks: an operator's to-dos (call back, send the proposal), maybe about a contact, a conversation or a
 * deal. Any operator manages its own (assigned to it, or created by it); an admin, and automations acting for
 * the workspace, manage all. One function per operation, for the routes and for the rules' "create task".
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, isNotNull, isNull, lte, or, type SQL, sql } from 'drizzle-orm';
import { batchGuard, brokeGuard, type Database, type Statement } from '../../db/client';
import { contacts, conversations, deals, tasks } from '../../db/schema';
import { existsInWorkspace, linksGuard } from '../../db/scoped';
import { commit, release } from '../../events/commit';
import { pageOf } from '../../lib/cursor';
import { Conflict, Forbidden, Invalid, NotFound } from '../../lib/errors';
import { iso, isoOrNull, newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { changesOf, type DomainEvent, newEvent } from '../../model/events';
import { assertEnabledOperator } from '../team/assignees';

export const taskSchema = z
	.object({
		id: z.string().openapi({ description: 'The task id.', example: 'task_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		title: z.string().openapi({ description: 'What to do.' }),
		description: z.string().nullable().openapi({ description: 'More about it; null for none.' }),
		dueAt: z.string().nullable().openapi({ description: 'When it is due (ISO 8601); null for no date.' }),
		assigneeId: z.string().openapi({ description: 'The operator who does it.' }),
		contactId: z.string().nullable().openapi({ description: 'The contact it is about.' }),
		conversationId: z.string().nullable().openapi({ description: 'The conversation it is about.' }),
		dealId: z.string().nullable().openapi({ description: 'The deal it is about.' }),
		done: z.boolean().openapi({ description: 'Whether it is done.' }),
		doneAt: z.string().nullable().openapi({ description: 'When it was done (ISO 8601).' }),
		createdBy: z.string().nullable().openapi({ description: 'The operator who created it; null for an automation.' }),
		createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When it last changed (ISO 8601).' }),
	})
	.openapi('Task');

export type TaskView = z.infer<typeof taskSchema>;

const when = z.iso.datetime({ offset: true }).transform((at) => Date.parse(at));
const link = z.string().min(1).max(64);

export const newTaskSchema = z
	.strictObject({
		title: z.string().trim().min(1).max(200).openapi({ description: 'What to do.', example: 'Send the proposal' }),
		description: z.string().trim().min(1).max(5000).optional().openapi({ description: 'More about it.' }),
		dueAt: when.optional().openapi({ description: 'When it is due (ISO 8601).', example: '2026-11-30T17:00:00Z' }),
		assigneeId: link
			.optional()
			.openapi({ description: 'Who does it: the caller when left out (another operator: admin only).' }),
		contactId: link.optional().openapi({ description: 'The contact it is about.' }),
		conversationId: link.optional().openapi({ description: 'The conversation it is about.' }),
		dealId: link.optional().openapi({ description: 'The deal it is about.' }),
	})
	.openapi('NewTask');

export const taskChangesSchema = z
	.strictObject({
		title: z.string().trim().min(1).max(200).optional().openapi({ description: 'What to do.' }),
		description: z.string().trim().min(1).max(5000).nullable().optional().openapi({ description: 'null clears it.' }),
		dueAt: when.nullable().optional().openapi({ description: 'null for no date.' }),
		assigneeId: link.optional().openapi({ description: 'Hand it to another operator (admin only).' }),
		contactId: link.nullable().optional().openapi({ description: 'null unlinks it.' }),
		conversationId: link.nullable().optional().openapi({ description: 'null unlinks it.' }),
		dealId: link.nullable().optional().openapi({ description: 'null unlinks it.' }),
		done: z.boolean().optional().openapi({ description: 'Mark it done, or to do again.' }),
	})
	.refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
	.openapi('TaskChanges', { minProperties: 1 });

export const taskFiltersSchema = z.strictObject({
	assigneeId: link.optional().openapi({ description: 'Only this operator’s tasks (`me` for the caller’s).' }),
	done: z
		.enum(['true', 'false'])
		.transform((v) => v === 'true')
		.optional()
		.openapi({ description: 'Only done (`true`) or open (`false`) tasks.' }),
	dueBefore: when.optional().openapi({ description: 'Only tasks due at or before this instant.' }),
	contactId: link.optional().openapi({ description: 'Only tasks about this contact.' }),
	conversationId: link.optional().openapi({ description: 'Only tasks about this conversation.' }),
	dealId: link.optional().openapi({ description: 'Only tasks about this deal.' }),
});

/** Who is acting on a task: an operator (admin or not), or an automation acting for the workspace. */
export interface TaskCaller {
	actor: Actor;
	/** The operator acting; null for an automation. */
	operatorId: string | null;
	/** Manages every task (an admin, an automation). */
	admin: boolean;
}

/** Position in the task list: due time (undated last), then id. */
export const taskCursor = z.object({ due: z.number(), id: z.string() });
/** The due time of an undated task, for ordering: after every real one. */
const UNDATED = Number.MAX_SAFE_INTEGER;
const dueKey = sql<number>`coalesce(${tasks.dueAt}, ${UNDATED})`;

type TaskRow = typeof tasks.$inferSelect;

function taskView(row: TaskRow): TaskView {
	return {
		id: row.id,
		title: row.title,
		description: row.description,
		dueAt: isoOrNull(row.dueAt),
		assigneeId: row.assigneeId,
		contactId: row.contactId,
		conversationId: row.conversationId,
		dealId: row.dealId,
		done: row.doneAt !== null,
		doneAt: isoOrNull(row.doneAt),
		createdBy: row.createdBy,
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
	};
}

export function taskSummary(row: TaskRow) {
	return {
		id: row.id,
		title: row.title,
		assigneeId: row.assigneeId,
		dueAt: isoOrNull(row.dueAt),
		done: row.doneAt !== null,
		contactId: row.contactId,
		conversationId: row.conversationId,
		dealId: row.dealId,
	};
}

/** One `task.updated` per task a bulk change moved (its assignee deleted, its deal deleted). */
export function tasksMoved(
	workspaceId: string,
	actor: Actor,
	rows: readonly TaskRow[],
	field: 'assigneeId' | 'dealId',
	to: string | null,
	now: number,
): DomainEvent[] {
	return rows.map((task) =>
		newEvent(
			'task.updated',
			workspaceId,
			actor,
			{ task: taskSummary({ ...task, [field]: to }), ...changesOf({ [field]: { from: task[field], to } }) },
			now,
		),
	);
}

const taskIn = (workspaceId: string, id: string) => and(eq(tasks.workspaceId, workspaceId), eq(tasks.id, id));

async function taskRow(db: Database, workspaceId: string, id: string): Promise<TaskRow> {
	const row = await db.select().from(tasks).where(taskIn(workspaceId, id)).get();
	if (!row) throw new NotFound(`Task ${id} not found.`);
	return row;
}

export async function getTask(db: Database, workspaceId: string, id: string): Promise<TaskView> {
	return taskView(await taskRow(db, workspaceId, id));
}

/** One page of the workspace's tasks, soonest due first (undated last), in one statement. */
export async function listTasks(
	db: Database,
	workspaceId: string,
	filters: z.infer<typeof taskFiltersSchema>,
	caller: TaskCaller,
	after: z.infer<typeof taskCursor> | null,
	limit: number,
) {
	const t = tasks;
	const assignee = filters.assigneeId === 'me' ? (caller.operatorId ?? '') : filters.assigneeId;
	const where: Array<SQL | undefined> = [
		eq(t.workspaceId, workspaceId),
		assignee === undefined ? undefined : eq(t.assigneeId, assignee),
		filters.done === undefined ? undefined : filters.done ? isNotNull(t.doneAt) : isNull(t.doneAt),
		filters.dueBefore === undefined ? undefined : lte(t.dueAt, filters.dueBefore),
		filters.contactId === undefined ? undefined : eq(t.contactId, filters.contactId),
		filters.conversationId === undefined ? undefined : eq(t.conversationId, filters.conversationId),
		filters.dealId === undefined ? undefined : eq(t.dealId, filters.dealId),
		after === null
			? undefined
			: or(sql`${dueKey} > ${after.due}`, and(sql`${dueKey} = ${after.due}`, sql`${t.id} > ${after.id}`)),
	];
	const rows = await db
		.select()
		.from(t)
		.where(and(...where))
		.orderBy(asc(dueKey), asc(t.id))
		.limit(limit + 1);
	return pageOf(rows, limit, taskView, (row) => ({ due: row.dueAt ?? UNDATED, id: row.id }));
}

/** The links a task names, each checked in the workspace: a 422 naming the first that is not there. */
async function assertLinks(
	db: Database,
	workspaceId: string,
	links: { assigneeId?: string; contactId?: string | null; conversationId?: string | null; dealId?: string | null },
) {
	if (links.assigneeId) await assertEnabledOperator(db, workspaceId, links.assigneeId, 'assigneeId');
	const about = [
		[contacts, links.contactId, 'contactId', 'contact'],
		[conversations, links.conversationId, 'conversationId', 'conversation'],
		[deals, links.dealId, 'dealId', 'deal'],
	] as const;
	for (const [table, id, field, what] of about) {
		if (id && !(await existsInWorkspace(db, table, workspaceId, id))) {
			throw new Invalid(`no ${what} ${id} in this workspace`, { field: [field] });
		}
	}
}

/** The guard that what a task is given (its assignee, contact, conversation, deal) is still there. */
function taskLinksGuard(workspaceId: string, links: Partial<TaskRow>) {
	return linksGuard(workspaceId, [
		['operators', links.assigneeId],
		['contacts', links.contactId],
		['conversations', links.conversationId],
		['deals', links.dealId],
	]);
}

function linkGone(error: unknown): never {
	if (brokeGuard(error)) throw new Conflict('What the task links to was deleted at the same moment; retry.');
	throw error;
}

/** An operator may act on its own tasks (assigned to it or created by it); an admin on all. */
function assertManages(caller: TaskCaller, task: TaskRow) {
	if (caller.admin) return;
	if (caller.operatorId !== null && (task.assigneeId === caller.operatorId || task.createdBy === caller.operatorId)) {
		return;
	}
	throw new Forbidden('Only its assignee, its creator or an admin may change this task.');
}

/** Creates a task (for the caller unless an admin names another assignee), with a `task.created` event. */
export async function createTask(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newTaskSchema>,
	caller: TaskCaller,
	now = Date.now(),
): Promise<TaskView> {
	const assigneeId = input.assigneeId ?? caller.operatorId;
	if (assigneeId === null || assigneeId === undefined) {
		throw new Invalid('an automation names the operator a task is for', { field: ['assigneeId'] });
	}
	if (assigneeId !== caller.operatorId && !caller.admin) {
		throw new Forbidden('Only an admin gives a task to another operator.');
	}
	await assertLinks(db, workspaceId, { ...input, assigneeId });
	const row: TaskRow = {
		id: newId('task', now),
		workspaceId,
		title: input.title,
		description: input.description ?? null,
		dueAt: input.dueAt ?? null,
		assigneeId,
		contactId: input.contactId ?? null,
		conversationId: input.conversationId ?? null,
		dealId: input.dealId ?? null,
		doneAt: null,
		createdBy: caller.operatorId,
		createdAt: now,
		updatedAt: now,
	};
	const event = newEvent('task.created', workspaceId, caller.actor, { task: taskSummary(row) }, now);
	const links = taskLinksGuard(workspaceId, row);
	const statements = [...(links ? [links] : []), db.insert(tasks).values(row)];
	const committed = await commit(db, { statements, events: [event] }, linkGone);
	await release(env, committed.events);
	return taskView(row);
}

/**
 * Changes a task with a `task.updated` event naming each field from and to; nothing when nothing moves.
 * Handing it to another operator is an admin's. The write applies only while the task is as read, else 409.
 */
export async function updateTask(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof taskChangesSchema>,
	caller: TaskCaller,
	now = Date.now(),
): Promise<TaskView> {
	const current = await taskRow(db, workspaceId, id);
	assertManages(caller, current);
	if (changes.assigneeId !== undefined && changes.assigneeId !== current.assigneeId && !caller.admin) {
		throw new Forbidden('Only an admin gives a task to another operator.');
	}
	await assertLinks(db, workspaceId, changes);
	const moved: Record<string, { from: unknown; to: unknown }> = {};
	const set: Partial<TaskRow> = {};
	const fields = ['title', 'description', 'dueAt', 'assigneeId', 'contactId', 'conversationId', 'dealId'] as const;
	for (const key of fields) {
		const to = changes[key];
		if (to !== undefined && to !== current[key]) {
			const from = current[key];
			moved[key] =
				key === 'dueAt' ? { from: isoOrNull(from as number | null), to: isoOrNull(to as number | null) } : { from, to };
			Object.assign(set, { [key]: to });
		}
	}
	if (changes.done !== undefined && changes.done !== (current.doneAt !== null)) {
		moved.done = { from: current.doneAt !== null, to: changes.done };
		set.doneAt = changes.done ? now : null;
	}
	if (Object.keys(set).length === 0) return taskView(current);
	const updatedAt = Math.max(now, current.updatedAt + 1);
	const after: TaskRow = { ...current, ...set, updatedAt };
	const statements: Statement[] = [
		db
			.update(tasks)
			.set({ ...set, updatedAt })
			.where(and(taskIn(workspaceId, id), eq(tasks.updatedAt, current.updatedAt))),
		batchGuard(sql`changes() = 1`),
	];
	const links = taskLinksGuard(workspaceId, set);
	if (links) statements.unshift(links);
	const event = newEvent(
		'task.updated',
		workspaceId,
		caller.actor,
		{ task: taskSummary(after), ...changesOf(moved) },
		now,
	);
	const committed = await commit(db, { statements, events: [event] }, (error) => {
		if (brokeGuard(error)) {
			throw new Conflict(`Task ${id}, or what it links to, changed while this update was applied; retry.`);
		}
		throw error;
	});
	await release(env, committed.events);
	return taskView(after);
}

/** Deletes a task the caller manages, with a `task.deleted` event. */
export async function deleteTask(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	caller: TaskCaller,
	now = Date.now(),
): Promise<void> {
	const current = await taskRow(db, workspaceId, id);
	assertManages(caller, current);
	const event = newEvent('task.deleted', workspaceId, caller.actor, { task: taskSummary(current) }, now);
	const committed = await commit(db, {
		statements: [db.delete(tasks).where(taskIn(workspaceId, id))],
		events: [event],
	});
	await release(env, committed.events);
}
