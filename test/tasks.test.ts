import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, documentedAnswer, expectError, seedConversation, seedOperator, seedWorkspace } from './factories';

interface Task {
	id: string;
	title: string;
	assigneeId: string;
	dueAt: string | null;
	done: boolean;
	doneAt: string | null;
	createdBy: string | null;
}

async function newTask(token: string, body: Record<string, unknown>): Promise<Task> {
	const res = await api(token, 'POST', '/v3/tasks', body);
	expect(res.status).toBe(201);
	return (await res.json()) as Task;
}

async function titles(token: string, query = ''): Promise<string[]> {
	const res = await api(token, 'GET', `/v3/tasks${query}`);
	expect(res.status).toBe(200);
	return ((await res.json()) as { data: Task[] }).data.map((t) => t.title);
}

describe('/v3/tasks', () => {
	it('gives an operator its own tasks, soonest due first, and marks one done with an event', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const later = await newTask(token, { title: 'Later', dueAt: '2026-12-10T12:00:00Z' });
		await newTask(token, { title: 'Someday' });
		await newTask(token, { title: 'Soon', dueAt: '2026-12-01T09:00:00-03:00', conversationId });
		expect(later).toMatchObject({ assigneeId: operatorId, createdBy: operatorId, done: false });
		expect(await titles(token, '?assigneeId=me')).toEqual(['Soon', 'Later', 'Someday']);
		expect(await titles(token, '?dueBefore=2026-12-05T00:00:00Z')).toEqual(['Soon']);
		expect(await titles(token, `?conversationId=${conversationId}`)).toEqual(['Soon']);
		const page = (await (await api(token, 'GET', '/v3/tasks?limit=2')).json()) as { data: Task[]; nextCursor: string };
		expect(await titles(token, `?limit=2&cursor=${page.nextCursor}`)).toEqual(['Someday']);
		const done = (await (await api(token, 'PATCH', `/v3/tasks/${later.id}`, { done: true })).json()) as Task;
		expect(done.done).toBe(true);
		expect(done.doneAt).not.toBeNull();
		expect(await titles(token, '?done=false')).toEqual(['Soon', 'Someday']);
		expect((await api(token, 'DELETE', `/v3/tasks/${later.id}`)).status).toBe(204);
		await expectError(await api(token, 'GET', `/v3/tasks/${later.id}`), 404);
		await expect
			.poll(async () =>
				(
					await env.DB.prepare(
						"SELECT type FROM events WHERE workspace_id = ? AND type LIKE 'task.%' ORDER BY occurred_at, id",
					)
						.bind(workspaceId)
						.all<{ type: string }>()
				).results.map((r) => r.type),
			)
			.toEqual(['task.created', 'task.created', 'task.created', 'task.updated', 'task.deleted']);
	});

	it("lets an operator manage only its own tasks; an admin manages everyone's and assigns them", async () => {
		const { workspaceId, token: admin } = await seedWorkspace();
		const bia = await seedOperator(workspaceId, ['conversations:read']);
		const cai = await seedOperator(workspaceId, []);
		const forBia = await newTask(admin, { title: 'Call Acme', assigneeId: bia.operatorId });
		expect(forBia.assigneeId).toBe(bia.operatorId);
		// Bia works on hers; Cai, without any permission, still keeps his own to-dos.
		expect((await api(bia.token, 'PATCH', `/v3/tasks/${forBia.id}`, { done: true })).status).toBe(200);
		const caiTask = await newTask(cai.token, { title: 'Mine' });
		const notOwn = await expectError(
			await api(cai.token, 'PATCH', `/v3/tasks/${forBia.id}`, { title: 'Hijacked' }),
			403,
		);
		await expectError(await api(cai.token, 'DELETE', `/v3/tasks/${forBia.id}`), 403);
		const given = await expectError(
			await api(cai.token, 'POST', '/v3/tasks', { title: 'For Bia', assigneeId: bia.operatorId }),
			403,
		);
		await expectError(await api(bia.token, 'PATCH', `/v3/tasks/${forBia.id}`, { assigneeId: cai.operatorId }), 403);
		// The document states these refusals, and no permission the operations do not take.
		const documented = {
			create: await documentedAnswer('POST', '/v3/tasks', 403),
			change: await documentedAnswer('PATCH', '/v3/tasks/{id}', 403),
			remove: await documentedAnswer('DELETE', '/v3/tasks/{id}', 403),
		};
		expect(documented.create.message).toBe(given.message);
		expect(documented.create.description).toContain('only an admin gives a task to another operator');
		expect(documented.change.message).toBe(notOwn.message);
		expect(documented.change.description).toContain('neither assigned to the caller nor created by it');
		expect(documented.change.description).toContain('only an admin gives a task to another operator');
		expect(documented.remove.description).toContain('neither assigned to the caller nor created by it');
		for (const { description } of Object.values(documented)) expect(description).not.toContain('lacks the permission');
		// Reading the team's tasks needs conversations:read.
		await expectError(await api(cai.token, 'GET', '/v3/tasks'), 403);
		expect(await titles(bia.token, `?assigneeId=${cai.operatorId}`)).toEqual(['Mine']);
		const handed = await api(admin, 'PATCH', `/v3/tasks/${caiTask.id}`, { assigneeId: bia.operatorId });
		expect(((await handed.json()) as Task).assigneeId).toBe(bia.operatorId);
	});

	it('checks what a task is about in the workspace (422), and hands a deleted member’s tasks to its deleter', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const other = await seedWorkspace();
		const foreignConversation = await seedConversation(other.workspaceId);
		for (const [body, field] of [
			[{ title: 'x', contactId: 'ctc_nope' }, 'json.contactId'],
			[{ title: 'x', conversationId: foreignConversation }, 'json.conversationId'],
			[{ title: 'x', dealId: 'deal_nope' }, 'json.dealId'],
			[{ title: 'x', assigneeId: other.operatorId }, 'json.assigneeId'],
			[{ title: 'x', dueAt: 'tomorrow' }, 'json.dueAt'],
		] as const) {
			const { message } = await expectError(await api(token, 'POST', '/v3/tasks', body), 422);
			expect(message).toContain(field);
		}
		const leaving = await seedOperator(workspaceId, ['conversations:read']);
		const task = await newTask(token, { title: 'Follow up', assigneeId: leaving.operatorId });
		await expectError(await api(other.token, 'GET', `/v3/tasks/${task.id}`), 404);
		await expectError(await api(other.token, 'PATCH', `/v3/tasks/${task.id}`, { done: true }), 404);
		expect((await api(token, 'DELETE', `/v3/team/members/${leaving.operatorId}`)).status).toBe(204);
		const kept = (await (await api(token, 'GET', `/v3/tasks/${task.id}`)).json()) as Task;
		expect(kept.assigneeId).toBe(operatorId);
	});
});
