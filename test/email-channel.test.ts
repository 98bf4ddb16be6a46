import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { deliver, lastMail, mailWorkspace } from './email-inbound-helpers';
import { api, startVisitor, startVisitorConversation } from './factories';
import { gmailMail, newMessageId } from './mail-samples';

/** Everything that reads a conversation's channel learns `email`: the list's filter, the report, the rules. */

const poll = { timeout: 20_000 };

/** A conversation a mail from `from` started. */
async function mailed(ws: { token: string; inbox: string }, from: string): Promise<string> {
	await deliver(gmailMail({ to: ws.inbox, from, messageId: newMessageId() }, 'Hello by mail'), { from, to: ws.inbox });
	const conversationId = (await lastMail(ws.token)).conversationId;
	if (!conversationId) throw new Error('the mail started no conversation');
	return conversationId;
}

describe('the e-mail channel everywhere a channel is read', () => {
	it('filters the conversation list and counts in the report by channel', async () => {
		const ws = await mailWorkspace();
		const byMail = await mailed(ws, 'ana.souza@gmail.com');
		const visitor = await startVisitor(ws.workspaceId);
		const bySite = await startVisitorConversation(visitor, 'Hello from the site');
		const list = async (channel: string) => {
			const res = await api(ws.token, 'GET', `/v3/conversations?channel=${channel}`);
			expect(res.status).toBe(200);
			return ((await res.json()) as { data: Array<{ id: string; channel: string }> }).data.map((c) => c.id);
		};
		expect(await list('email')).toEqual([byMail]);
		expect(await list('widget')).toEqual([bySite]);
		const today = new Date().toISOString().slice(0, 10);
		const res = await api(ws.token, 'GET', `/v3/reports/conversations?from=${today}&to=${today}`);
		expect(res.status).toBe(200);
		const { byChannel } = (await res.json()) as { byChannel: Array<{ key: string; count: number }> };
		expect([...byChannel].sort((a, b) => a.key.localeCompare(b.key))).toEqual([
			{ key: 'email', count: 1 },
			{ key: 'widget', count: 1 },
		]);
	});

	it('lets a rule’s condition select it', async () => {
		const ws = await mailWorkspace();
		const rule = await api(ws.token, 'POST', '/v3/automation-rules', {
			name: 'Mail gets a tag',
			trigger: { kind: 'new_contact' },
			condition: { fact: 'conversation.channel', operator: 'eq', value: 'email' },
			actions: [{ type: 'apply_tag', tag: 'by-mail' }],
		});
		expect(rule.status, await rule.clone().text()).toBe(201);
		const byMail = await mailed(ws, 'bruno@example.com');
		const visitor = await startVisitor(ws.workspaceId);
		const bySite = await startVisitorConversation(visitor, 'Hello from the site');
		const tagsOf = async (conversationId: string) => {
			const { results } = await env.DB.prepare(
				'SELECT t.name FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.conversation_id = ?',
			)
				.bind(conversationId)
				.all<{ name: string }>();
			return results.map((r) => r.name);
		};
		await expect.poll(() => tagsOf(byMail), poll).toEqual(['by-mail']);
		// The widget conversation's rule execution ran and skipped: its condition does not hold.
		const skipped = async () => {
			const { results } = await env.DB.prepare(
				"SELECT status FROM rule_executions WHERE workspace_id = ? AND status = 'skipped'",
			)
				.bind(ws.workspaceId)
				.all();
			return results.length;
		};
		await expect.poll(skipped, poll).toBe(1);
		expect(await tagsOf(bySite)).toEqual([]);
	});
});
