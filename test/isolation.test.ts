import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { scenarioRuns } from '../src/db/schema';
import { api, db, expectError, publishedScenario, seedConversation, seedOperator, seedWorkspace } from './factories';

describe('tenant isolation', () => {
	it("gives a token of workspace A 404 for every id of workspace B, and changes nothing of B's", async () => {
		const a = await seedWorkspace();
		const b = await seedWorkspace();
		const conv = await seedConversation(b.workspaceId, { gclid: 'b-click' });
		const { scenarioId, webhook } = await publishedScenario(b.token, {
			start: 'keep',
			steps: [{ id: 'keep', type: 'set_variables', values: { from: '{{ from }}' } }],
		});
		const bConversation = (await (await api(b.token, 'GET', `/v3/conversations/${conv}`)).json()) as {
			contactId: string;
		};

		const attempts: [string, string, unknown?][] = [
			['GET', `/v3/conversations/${conv}`],
			['GET', `/v3/conversations/${conv}/messages`],
			['PATCH', `/v3/conversations/${conv}`, { status: 'closed', tags: ['stolen'] }],
			['POST', '/v3/messages', { conversationId: conv, text: 'from A' }],
			['POST', '/v3/conversations', { contact: { id: bConversation.contactId } }],
			['POST', `/v3/team/members/${b.operatorId}/token`],
			['POST', `/v3/workflows/webhook/${webhook.id}`, { from: 'A' }],
			['GET', `/v3/scenarios/${scenarioId}`],
			['PATCH', `/v3/scenarios/${scenarioId}`, { enabled: false }],
			['POST', `/v3/scenarios/${scenarioId}/runs`, { from: 'A' }],
			['GET', `/v3/scenarios/${scenarioId}/webhooks`],
			['POST', `/v3/scenarios/${scenarioId}/webhooks/${webhook.id}/rotate-secret`],
			['GET', `/v3/scenarios/${scenarioId}/versions/1`],
		];
		for (const [method, path, body] of attempts) {
			const res = await api(a.token, method, path, body);
			await expectError(res, 404);
		}

		// Lists and filters of A never show B's rows.
		const list = (await (await api(a.token, 'GET', '/v3/conversations?hasGclid=true')).json()) as { data: unknown[] };
		expect(list.data).toEqual([]);
		const byContact = (await (
			await api(a.token, 'GET', `/v3/conversations?contactId=${bConversation.contactId}`)
		).json()) as { data: unknown[] };
		expect(byContact.data).toEqual([]);
		const scenarios = (await (await api(a.token, 'GET', '/v3/scenarios')).json()) as { data: unknown[] };
		expect(scenarios.data).toEqual([]);
		// Assigning to B's operator is refused as an unknown operator.
		const own = await seedConversation(a.workspaceId);
		await expectError(await api(a.token, 'PATCH', `/v3/conversations/${own}`, { assigneeId: b.operatorId }), 422);

		// No run was recorded for B's webhook; B's scenario is still enabled and its webhook's secret unchanged.
		expect(await db.select().from(scenarioRuns).where(eq(scenarioRuns.scenarioId, scenarioId))).toEqual([]);
		const bScenario = (await (await api(b.token, 'GET', `/v3/scenarios/${scenarioId}`)).json()) as { enabled: boolean };
		expect(bScenario.enabled).toBe(true);
		const bCall = await api(
			null,
			'POST',
			`/v3/workflows/webhook/${webhook.id}`,
			{ from: 'B' },
			{
				'X-Webhook-Secret': webhook.secret,
			},
		);
		expect(bCall.status).toBe(202);

		// B's conversation is untouched and B's admin token still works.
		const after = (await (await api(b.token, 'GET', `/v3/conversations/${conv}`)).json()) as {
			status: string;
			tags: string[];
			lastMessageSeq: number;
		};
		expect(after).toMatchObject({ status: 'open', tags: [], lastMessageSeq: 0 });
		expect((await api(b.token, 'GET', '/v3/conversations')).status).toBe(200);
	});

	it("gives A 404 for B's records of every issue-11 resource on every route, and changes none of them", async () => {
		const a = await seedWorkspace();
		const b = await seedWorkspace();
		const json = async <T>(res: Response) => (await res.json()) as T;
		const contact = await json<{ id: string }>(await api(b.token, 'POST', '/v3/contacts', { name: 'B' }));
		const other = await json<{ id: string }>(await api(b.token, 'POST', '/v3/contacts', { name: 'B2' }));
		const tag = await json<{ id: string }>(await api(b.token, 'POST', '/v3/tags', { name: 'b-tag' }));
		const field = await json<{ id: string }>(
			await api(b.token, 'POST', '/v3/custom-fields', { entity: 'contact', key: 'bkey', label: 'B', type: 'text' }),
		);
		const group = await json<{ id: string }>(await api(b.token, 'POST', '/v3/team/groups', { name: 'B group' }));
		const funnel = await json<{ id: string; stages: { id: string }[] }>(
			await api(b.token, 'POST', '/v3/funnels', { name: 'B funnel', stages: ['One', 'Two'] }),
		);
		const stage = funnel.stages[0]?.id ?? '';
		const deal = await json<{ id: string }>(
			await api(b.token, 'POST', '/v3/deals', { funnel: funnel.id, name: 'B deal' }),
		);
		const task = await json<{ id: string }>(await api(b.token, 'POST', '/v3/tasks', { title: 'B task' }));

		const attempts: [string, string, unknown?][] = [
			['GET', `/v3/contacts/${contact.id}`],
			['PATCH', `/v3/contacts/${contact.id}`, { name: 'A' }],
			['DELETE', `/v3/contacts/${contact.id}`],
			['POST', `/v3/contacts/${contact.id}/merge`, { duplicateId: other.id }],
			['PUT', `/v3/contacts/${contact.id}/tags/x`],
			['DELETE', `/v3/contacts/${contact.id}/tags/x`],
			['GET', `/v3/contacts/${contact.id}/notes`],
			['POST', `/v3/contacts/${contact.id}/notes`, { text: 'A' }],
			['GET', `/v3/tags/${tag.id}`],
			['PATCH', `/v3/tags/${tag.id}`, { name: 'a' }],
			['DELETE', `/v3/tags/${tag.id}`],
			['GET', `/v3/custom-fields/${field.id}`],
			['PATCH', `/v3/custom-fields/${field.id}`, { label: 'A' }],
			['DELETE', `/v3/custom-fields/${field.id}`],
			['GET', `/v3/team/members/${b.operatorId}`],
			['PATCH', `/v3/team/members/${b.operatorId}`, { name: 'A' }],
			['DELETE', `/v3/team/members/${b.operatorId}`],
			['GET', `/v3/team/groups/${group.id}`],
			['PATCH', `/v3/team/groups/${group.id}`, { name: 'A' }],
			['DELETE', `/v3/team/groups/${group.id}`],
			['GET', `/v3/funnels/${funnel.id}`],
			['PATCH', `/v3/funnels/${funnel.id}`, { name: 'A' }],
			['DELETE', `/v3/funnels/${funnel.id}`],
			['POST', `/v3/funnels/${funnel.id}/stages`, { name: 'A' }],
			['PATCH', `/v3/funnels/${funnel.id}/stages/${stage}`, { name: 'A' }],
			['DELETE', `/v3/funnels/${funnel.id}/stages/${stage}`],
			['GET', `/v3/deals/${deal.id}`],
			['PATCH', `/v3/deals/${deal.id}`, { name: 'A' }],
			['DELETE', `/v3/deals/${deal.id}`],
			['GET', `/v3/deals/${deal.id}/notes`],
			['POST', `/v3/deals/${deal.id}/notes`, { text: 'A' }],
			['GET', `/v3/tasks/${task.id}`],
			['PATCH', `/v3/tasks/${task.id}`, { done: true }],
			['DELETE', `/v3/tasks/${task.id}`],
		];
		for (const [method, path, body] of attempts) {
			const res = await api(a.token, method, path, body);
			expect(res.status, `${method} ${path}`).toBe(404);
		}
		// A's lists never show B's records; names B uses are free in A. (Another token of A: the suite's rate
		// limit is 40 a minute.)
		const a2 = await seedOperator(a.workspaceId, ['admin']);
		for (const path of [
			'/v3/contacts',
			'/v3/tags',
			'/v3/custom-fields',
			'/v3/team/groups',
			'/v3/funnels',
			'/v3/deals',
			'/v3/tasks',
		]) {
			expect((await json<{ data: unknown[] }>(await api(a2.token, 'GET', path))).data, path).toEqual([]);
		}
		expect((await api(a2.token, 'POST', '/v3/funnels', { name: 'B funnel', stages: ['One'] })).status).toBe(201);
		// B's records are as they were.
		expect(await json<{ name: string }>(await api(b.token, 'GET', `/v3/contacts/${contact.id}`))).toMatchObject({
			name: 'B',
		});
		expect(await json<{ done: boolean }>(await api(b.token, 'GET', `/v3/tasks/${task.id}`))).toMatchObject({
			done: false,
		});
		expect(await json<{ name: string }>(await api(b.token, 'GET', `/v3/deals/${deal.id}`))).toMatchObject({
			name: 'B deal',
		});
	});

	it('keeps widget settings per workspace', async () => {
		const a = await seedWorkspace();
		const b = await seedWorkspace();
		await api(a.token, 'PUT', '/v3/widget/settings', { primaryColor: '#ff0000' });
		const bSettings = (await (await api(b.token, 'GET', '/v3/widget/settings')).json()) as { primaryColor: string };
		expect(bSettings.primaryColor).not.toBe('#ff0000');
	});
});
