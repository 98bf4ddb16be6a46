import { describe, expect, it } from 'vitest';
import { api, expectError, seedOperator, seedWorkspace } from './factories';

interface Directory {
	operators: { id: string; name: string; groupIds: string[]; disabled: boolean }[];
	groups: { id: string; name: string }[];
	bots: { id: string; name: string }[];
	customFields: { entity: string; key: string; label: string; type: string }[];
}

const definition = { start: 'hello', steps: [{ id: 'hello', type: 'end', message: 'Hi!' }] };

describe('GET /v3/directory', () => {
	it("names the workspace's operators, groups, manual bots and custom fields to an operator who is no admin", async () => {
		const admin = await seedWorkspace();
		const agent = await seedOperator(admin.workspaceId, ['conversations:read', 'messages:send']);
		const group = (await (await api(admin.token, 'POST', '/v3/team/groups', { name: 'Billing' })).json()) as {
			id: string;
		};
		expect(
			(await api(admin.token, 'PATCH', `/v3/team/members/${agent.operatorId}`, { groups: [group.id] })).status,
		).toBe(200);
		expect(
			(
				await api(admin.token, 'POST', '/v3/custom-fields', {
					entity: 'contact',
					key: 'plan',
					label: 'Plan',
					type: 'text',
				})
			).status,
		).toBe(201);
		const bot = async (name: string, trigger: Record<string, unknown>, publish: boolean) => {
			const res = await api(admin.token, 'POST', '/v3/bots', { name, trigger, definition });
			expect(res.status).toBe(201);
			const { id } = (await res.json()) as { id: string };
			if (publish) expect((await api(admin.token, 'POST', `/v3/bots/${id}/publish`)).status).toBe(200);
			return id;
		};
		const manual = await bot('Qualify', { kind: 'manual' }, true);
		await bot('Draft only', { kind: 'manual' }, false);
		await bot('Greeter', { kind: 'new_conversation' }, true);

		const res = await api(agent.token, 'GET', '/v3/directory');
		expect(res.status).toBe(200);
		const body = (await res.json()) as Directory;
		expect(body.operators.map((o) => o.id).sort()).toEqual([admin.operatorId, agent.operatorId].sort());
		expect(body.operators.find((o) => o.id === agent.operatorId)?.groupIds).toEqual([group.id]);
		expect(JSON.stringify(body.operators)).not.toContain('@');
		expect(body.groups).toEqual([{ id: group.id, name: 'Billing' }]);
		expect(body.bots).toEqual([{ id: manual, name: 'Qualify' }]);
		expect(body.customFields).toMatchObject([{ entity: 'contact', key: 'plan', label: 'Plan', type: 'text' }]);
	});

	it("never shows another workspace's names, and needs conversations:read", async () => {
		const first = await seedWorkspace();
		const second = await seedWorkspace();
		const body = (await (await api(second.token, 'GET', '/v3/directory')).json()) as Directory;
		expect(body.operators.map((o) => o.id)).toEqual([second.operatorId]);
		expect(body.operators.map((o) => o.id)).not.toContain(first.operatorId);
		const sender = await seedOperator(first.workspaceId, ['messages:send']);
		await expectError(await api(sender.token, 'GET', '/v3/directory'), 403);
	});
});
