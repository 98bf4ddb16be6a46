import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { ActionContext, ActionResult } from '../src/domain/automation/core/context';
import { performAction } from '../src/domain/automation/core/perform';
import { loadScene } from '../src/domain/automation/core/scene';
import { runStep, type StepLog } from '../src/domain/automation/core/steps';
import type { CatalogueAction, RunKind } from '../src/engines/actions/catalogue';
import { api, db, seedConversation, seedOperator, seedWorkspace } from './factories';

/**
 * The automation core that bots, scenarios and rules share: one dispatch checked against each runner's
 * actions, one step taken through a runner's step log under one key scheme, one scene loader.
 */

async function scene(kind: RunKind) {
	const { workspaceId, token } = await seedWorkspace();
	const conversationId = await seedConversation(workspaceId);
	const { contact_id: contactId } = (await env.DB.prepare('SELECT contact_id FROM conversations WHERE id = ?')
		.bind(conversationId)
		.first()) as { contact_id: string };
	const ctx: ActionContext = {
		env,
		db,
		workspaceId,
		run: { kind, id: `run_${crypto.randomUUID()}` },
		actor: { kind, id: `${kind}_1` },
		conversationId,
		contactId,
		variables: {},
		locale: 'en',
		now: Date.now(),
	};
	return { workspaceId, token, conversationId, contactId, ctx };
}

async function tagsOf(conversationId: string): Promise<string[]> {
	const { results } = await env.DB.prepare(
		'SELECT t.name FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.conversation_id = ?',
	)
		.bind(conversationId)
		.all<{ name: string }>();
	return results.map((row) => row.name);
}

/** A step log in memory: what a runner's port does with D1 or the room's storage. */
function memoryLog(recorded: Record<string, ActionResult> = {}) {
	const records: Array<{ key: string; type: string; result: ActionResult }> = [];
	const log: StepLog = {
		recorded: async (key) => recorded[key] ?? null,
		record: async (key, action, result) => {
			records.push({ key, type: action.type, result });
		},
	};
	return { log, records };
}

describe('the action catalogue', () => {
	it('refuses an action the run’s runner may not take, and does nothing', async () => {
		const bot = await scene('bot');
		expect(await performAction(bot.ctx, { type: 'create_task', title: 'Call back' })).toEqual({
			ok: false,
			error: 'create_task is no action of a bot',
		});
		const rule = await scene('rule');
		const deal: CatalogueAction = { type: 'create_deal', funnel: 'Sales', name: 'Deal' };
		expect(await performAction(rule.ctx, deal)).toEqual({ ok: false, error: 'create_deal is no action of a rule' });
		const { n } = (await env.DB.prepare('SELECT COUNT(*) AS n FROM deals WHERE workspace_id = ?')
			.bind(rule.workspaceId)
			.first()) as { n: number };
		expect(n).toBe(0);
	});

	it('acts on the record a scenario’s action names, and refuses a name rendered empty', async () => {
		const s = await scene('scenario');
		const own = { ...s.ctx, conversationId: null, contactId: null };
		const tag = { type: 'apply_tag', tag: 'vip', remove: false, target: 'conversation' } as const;
		expect(await performAction(own, { ...tag, targetId: s.conversationId })).toMatchObject({ ok: true });
		expect(await tagsOf(s.conversationId)).toEqual(['vip']);
		expect(await performAction(own, { ...tag, targetId: ' ' })).toEqual({
			ok: false,
			error: 'targetId: rendered empty',
		});
		expect(await performAction(own, { type: 'update_contact', contact: '', name: 'Ana' })).toEqual({
			ok: false,
			error: 'contact: rendered empty',
		});
	});
});

describe('runStep', () => {
	it('feeds back what the step log recorded, and acts again for nothing', async () => {
		const s = await scene('bot');
		const { log, records } = memoryLog({ tag: { ok: true, data: 'earlier' } });
		const action = { type: 'apply_tag', tag: 'lead', remove: false, target: 'conversation' } as const;
		expect(await runStep(s.ctx, log, 'tag', action)).toEqual({ ok: true, data: 'earlier' });
		expect(records).toEqual([]);
		expect(await tagsOf(s.conversationId)).toEqual([]);
	});

	it('acts under the key `<run kind>:<run id>:<step key>` and records the outcome under the step key', async () => {
		const s = await scene('scenario');
		const { log, records } = memoryLog();
		const open = { type: 'create_conversation', contact: s.contactId, channel: 'api', message: 'Hi' } as const;
		const opened = await runStep({ ...s.ctx, conversationId: null }, log, 'open@each:2', open);
		expect(opened).toMatchObject({ ok: true });
		const id = (opened as { data: { id: string } }).data.id;
		const row = await env.DB.prepare('SELECT start_key FROM conversations WHERE id = ?').bind(id).first();
		expect(row).toEqual({ start_key: `scenario:${s.ctx.run.id}:open@each:2` });
		expect(records).toEqual([{ key: 'open@each:2', type: 'create_conversation', result: opened }]);
		// A second try of the step (its outcome lost) finds the conversation the first one opened.
		expect(await runStep({ ...s.ctx, conversationId: null }, log, 'open@each:2', open)).toMatchObject({
			ok: true,
			data: { id },
		});
	});
});

describe('loadScene', () => {
	it('reads the conversation, its contact and its assignee, and the workspace’s locale and time zone', async () => {
		const s = await scene('bot');
		const agent = await seedOperator(s.workspaceId, ['messages:send']);
		await env.DB.prepare('UPDATE conversations SET assignee_id = ? WHERE id = ?')
			.bind(agent.operatorId, s.conversationId)
			.run();
		await env.DB.prepare('UPDATE contacts SET name = \'Ana\', custom_fields = \'{"plan":"gold"}\' WHERE id = ?')
			.bind(s.contactId)
			.run();
		const res = await api(s.token, 'PUT', '/v3/widget/settings', { locale: 'pt' });
		expect(res.status).toBe(200);
		const read = await loadScene(db, s.workspaceId, s.conversationId);
		expect(read).toMatchObject({
			conversationId: s.conversationId,
			contactId: s.contactId,
			channel: 'widget',
			locale: 'pt',
			context: {
				contact: { id: s.contactId, name: 'Ana', customFields: { plan: 'gold' } },
				conversation: { id: s.conversationId, channel: 'widget' },
				agent: { id: agent.operatorId },
			},
		});
		expect(read.context.timeZone).toBe(read.timeZone);
		const workspace = await loadScene(db, s.workspaceId, null);
		expect(workspace).toMatchObject({
			conversationId: null,
			contactId: null,
			locale: 'pt',
			context: { contact: null },
		});
	});
});
