import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { workflowRuns } from '../src/db/schema';
import { api, db, expectError, seedConversation, seedWorkspace } from './factories';

describe('tenant isolation', () => {
	it("gives a token of workspace A 404 for every id of workspace B, and changes nothing of B's", async () => {
		const a = await seedWorkspace();
		const b = await seedWorkspace();
		const conv = await seedConversation(b.workspaceId, { gclid: 'b-click' });
		const webhook = (await (await api(b.token, 'POST', '/v3/workflows/webhooks', { name: 'B' })).json()) as {
			id: string;
		};
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
		const hooks = (await (await api(a.token, 'GET', '/v3/workflows/webhooks')).json()) as { data: unknown[] };
		expect(hooks.data).toEqual([]);
		// Assigning to B's operator is refused as an unknown operator.
		const own = await seedConversation(a.workspaceId);
		await expectError(await api(a.token, 'PATCH', `/v3/conversations/${own}`, { assigneeId: b.operatorId }), 422);

		// No run was recorded for B's webhook.
		expect(await db.select().from(workflowRuns).where(eq(workflowRuns.webhookId, webhook.id))).toEqual([]);

		// B's conversation is untouched and B's admin token still works.
		const after = (await (await api(b.token, 'GET', `/v3/conversations/${conv}`)).json()) as {
			status: string;
			tags: string[];
			lastMessageSeq: number;
		};
		expect(after).toMatchObject({ status: 'open', tags: [], lastMessageSeq: 0 });
		expect((await api(b.token, 'GET', '/v3/conversations')).status).toBe(200);
	});

	it('keeps widget settings per workspace', async () => {
		const a = await seedWorkspace();
		const b = await seedWorkspace();
		await api(a.token, 'PUT', '/v3/widget/settings', { primaryColor: '#ff0000' });
		const bSettings = (await (await api(b.token, 'GET', '/v3/widget/settings')).json()) as { primaryColor: string };
		expect(bSettings.primaryColor).not.toBe('#ff0000');
	});
});
