import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { hasPermission } from '../../auth/permissions';
import {
	createTask,
	deleteTask,
	getTask,
	listTasks,
	newTaskSchema,
	type TaskCaller,
	taskChangesSchema,
	taskCursor,
	taskFiltersSchema,
	taskSchema,
	updateTask,
} from '../../domain/crm/tasks';
import {
	anyToken,
	errorResponses,
	forbiddenResponse,
	idParam,
	jsonBody,
	jsonResponse,
	requires,
} from '../../http/openapi';
import { createRouter } from '../../http/router';
import { pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { operatorActor } from '../../model/actor';

const at = '2026-11-23T12:00:00.000Z';
const taskExample: z.input<typeof taskSchema> = {
	id: 'task_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	title: 'Send the proposal',
	description: null,
	dueAt: '2026-11-30T17:00:00.000Z',
	assigneeId: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	contactId: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	conversationId: null,
	dealId: 'deal_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	done: false,
	doneAt: null,
	createdBy: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	createdAt: at,
	updatedAt: at,
};
const idParams = z.object({ id: idParam('id', taskExample.id, 'The task id.') });

/** The caller as the task functions see it: an admin manages every task, an operator its own. */
function taskCaller(c: Context<AppEnv>): TaskCaller {
	const { operatorId, permissions } = c.var.caller;
	return { actor: operatorActor(operatorId), operatorId, admin: hasPermission(permissions, 'admin') };
}

const ownTasks =
	'Permission: any valid Token V3 for its own tasks (assigned to it or created by it); `admin` for every task and to give one to another operator (403 otherwise).';

/** The 403s of `ownTasks`, as the domain answers them (src/domain/crm/tasks.ts); the document sets their case. */
const GIVEN_AWAY =
	'an `assigneeId` names another operator than the caller, who is no admin: only an admin gives a task to another operator.';
const NOT_OWN = 'The task is neither assigned to the caller nor created by it, and the caller is no admin.';
const NOT_OWN_MESSAGE = 'Only its assignee, its creator or an admin may change this task.';

export const tasksRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listTasks',
			summary: 'List tasks, soonest due first',
			description:
				'Every task of the workspace (undated ones last), filtered by assignee (`me` for your own), state, due time or what they are about.',
			...requires('conversations:read'),
			request: { query: taskFiltersSchema.extend(pageQuery(50)) },
			responses: {
				200: jsonResponse('A page of tasks.', pageSchema('TaskPage', taskSchema, 'This page, soonest due first.'), {
					data: [taskExample],
					nextCursor: null,
				}),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor, ...filters } = c.req.valid('query');
			const after = readCursor(cursor, taskCursor);
			return c.json(await listTasks(c.var.db, c.var.caller.workspaceId, filters, taskCaller(c), after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createTask',
			summary: 'Create a task',
			description: `For the caller unless \`assigneeId\` names another operator. ${ownTasks}`,
			...anyToken,
			request: {
				body: jsonBody(newTaskSchema, {
					title: 'Send the proposal',
					dueAt: '2026-11-30T17:00:00Z',
					dealId: 'deal_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
				}),
			},
			responses: {
				201: jsonResponse('The new task.', taskSchema, taskExample),
				...errorResponses(400, 413, 415, 422),
				...forbiddenResponse(GIVEN_AWAY, 'Only an admin gives a task to another operator.'),
			},
		}),
		async (c) => {
			const task = await createTask(c.env, c.var.db, c.var.caller.workspaceId, c.req.valid('json'), taskCaller(c));
			return c.json(task, 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getTask',
			summary: 'One task',
			description: 'The task, by id.',
			...requires('conversations:read'),
			request: { params: idParams },
			responses: { 200: jsonResponse('The task.', taskSchema, taskExample), ...errorResponses(403, 404) },
		}),
		async (c) => c.json(await getTask(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateTask',
			summary: 'Change a task or mark it done',
			description: `\`done: true\` marks it done (and \`false\` to do again); null clears a field. ${ownTasks}`,
			...anyToken,
			request: { params: idParams, body: jsonBody(taskChangesSchema, { done: true }) },
			responses: {
				200: jsonResponse('The task as it now is.', taskSchema, { ...taskExample, done: true, doneAt: at }),
				...errorResponses(400, 404, 409, 413, 415, 422),
				...forbiddenResponse(`${NOT_OWN} Or ${GIVEN_AWAY}`, NOT_OWN_MESSAGE),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const task = await updateTask(c.env, c.var.db, c.var.caller.workspaceId, id, c.req.valid('json'), taskCaller(c));
			return c.json(task, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteTask',
			summary: 'Delete a task',
			description: ownTasks,
			...anyToken,
			request: { params: idParams },
			responses: {
				204: { description: 'The task is deleted.' },
				...errorResponses(404),
				...forbiddenResponse(NOT_OWN, NOT_OWN_MESSAGE),
			},
		}),
		async (c) => {
			await deleteTask(c.env, c.var.db, c.var.caller.workspaceId, c.req.valid('param').id, taskCaller(c));
			return c.body(null, 204);
		},
	);
