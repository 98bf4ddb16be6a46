import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { type ActionContext, performAction } from '../src/domain/automation/core/perform';
import { loadFacts } from '../src/domain/automation/facts';
import { api, db, seedConversation, seedCustomFields, seedOperator, seedWorkspace } from './factories';

/**
 * The kernel's actions against real D1: each does through the domain what the API would, refuses what the
 * API would refuse (changing nothing), and announces its changes as the bot.
 */

async function scene(locale: 'pt' | 'en' = 'pt') {
	const { workspaceId, token, operatorId } = await seedWorkspace();
	const conversationId = await seedConversation(workspaceId);
	const contactId = (
		(await env.DB.prepare('SELECT contact_id FROM conversations WHERE id = ?').bind(conversationId).first()) as {
			contact_id: string;
		}
	).contact_id;
	const ctx = (overrides: Partial<ActionContext> = {}): ActionContext => ({
		env,
		db,
		workspaceId,
		run: { kind: 'bot', id: 'run_1' },
		actor: { kind: 'bot', id: 'bot_1' },
		conversationId,
		contactId,
		variables: {},
		locale,
		now: Date.now(),
		...overrides,
	});
	return { workspaceId, token, operatorId, conversationId, contactId, ctx };
}

async function funnel(token: string, name = 'Sales', stages = ['New', 'Qualified', 'Won over']) {
	const res = await api(token, 'POST', '/v3/funnels', { name, stages });
	expect(res.status).toBe(201);
	return (await res.json()) as { id: string; stages: Array<{ id: string; name: string }> };
}

async function dealsOf(workspaceId: string) {
	const { results } = await env.DB.prepare(
		'SELECT id, name, value_cents, currency, contact_id, stage_id, products, custom_fields FROM deals WHERE workspace_id = ? ORDER BY created_at',
	)
		.bind(workspaceId)
		.all<Record<string, unknown>>();
	return results;
}

async function eventActors(workspaceId: string, type: string) {
	const { results } = await env.DB.prepare('SELECT actor FROM events WHERE workspace_id = ? AND type = ?')
		.bind(workspaceId, type)
		.all<{ actor: string }>();
	return results.map((row) => JSON.parse(row.actor));
}

describe('create_deal action', () => {
	it('creates the deal in the funnel and stage named, its value read in the workspace locale, for the contact', async () => {
		const s = await scene('pt');
		const sales = await funnel(s.token);
		await seedCustomFields(s.workspaceId, { source: 'text', seats: 'number' }, 'deal');
		const result = await performAction(s.ctx(), {
			type: 'create_deal',
			funnel: 'sales',
			stage: 'Qualified',
			name: 'Lead Ana',
			value: 'R$ 1.500,00',
			custom_fields: { source: 'bot', seats: '12', ignored_when_empty: '' },
		});
		expect(result).toMatchObject({ ok: true, data: { name: 'Lead Ana', stage: 'Qualified', value: 150_000 } });
		const [deal] = await dealsOf(s.workspaceId);
		expect(deal).toMatchObject({
			value_cents: 150_000,
			currency: 'BRL',
			contact_id: s.contactId,
			stage_id: sales.stages[1]?.id,
		});
		expect(JSON.parse(deal?.custom_fields as string)).toEqual({ source: 'bot', seats: 12 });
		await expect.poll(() => eventActors(s.workspaceId, 'deal.created')).toEqual([{ kind: 'bot', id: 'bot_1' }]);
	});

	it('reads "1,500.00" as fifteen hundred in an English workspace', async () => {
		const s = await scene('en');
		await funnel(s.token);
		const result = await performAction(s.ctx(), { type: 'create_deal', funnel: 'Sales', name: 'X', value: '1,500.00' });
		expect(result).toMatchObject({ ok: true, data: { value: 150_000, stage: 'New' } });
		expect((await dealsOf(s.workspaceId))[0]).toMatchObject({ currency: 'USD' });
	});

	it('refuses a value that is no amount, an unknown stage and an empty name, creating nothing', async () => {
		const s = await scene();
		await funnel(s.token);
		const refusals = await Promise.all([
			performAction(s.ctx(), { type: 'create_deal', funnel: 'Sales', name: 'X', value: 'about a thousand' }),
			performAction(s.ctx(), { type: 'create_deal', funnel: 'Sales', stage: 'Nope', name: 'X' }),
			performAction(s.ctx(), { type: 'create_deal', funnel: 'Sales', name: '  ' }),
			performAction(s.ctx(), { type: 'create_deal', funnel: 'Nowhere', name: 'X' }),
		]);
		expect(refusals.map((r) => (r.ok ? 'ok' : r.error))).toEqual([
			'value: "about a thousand" is not an amount',
			'no stage "Nope" (by id or name)',
			'name: rendered empty',
			'no funnel "Nowhere" (by id or name)',
		]);
		expect(await dealsOf(s.workspaceId)).toEqual([]);
	});
});

describe('update_deal action', () => {
	it("finds the contact's open deal in the selected funnel, moves its stage and adds products to its value", async () => {
		const s = await scene('pt');
		await funnel(s.token, 'Sales');
		await funnel(s.token, 'Renewals', ['Due', 'Renewed']);
		const created = await performAction(s.ctx(), { type: 'create_deal', funnel: 'Renewals', name: 'Renewal' });
		const sale = await performAction(s.ctx(), { type: 'create_deal', funnel: 'Sales', name: 'Sale', value: '100' });
		expect(created.ok && sale.ok).toBe(true);
		const result = await performAction(s.ctx(), {
			type: 'update_deal',
			funnels: ['Sales'],
			stage: 'Qualified',
			owner: s.operatorId,
			products: [{ name: 'Seat', quantity: 2, unitPrice: '49,90' }],
		});
		expect(result).toMatchObject({ ok: true, data: { name: 'Sale', stage: 'Qualified', value: 10_000 } });
		const [renewal, updated] = await dealsOf(s.workspaceId);
		expect(JSON.parse(updated?.products as string)).toEqual([{ name: 'Seat', quantity: 2, unitPrice: 4990 }]);
		// Its value was set by hand (100), so products leave it; the renewal had none, so its value follows them.
		expect(updated?.value_cents).toBe(10_000);
		expect(renewal?.products).toBe('[]');
		await performAction(s.ctx(), {
			type: 'update_deal',
			funnels: ['Renewals'],
			products: [{ name: 'Plan', quantity: 1, unitPrice: '1.200,00' }],
		});
		expect((await dealsOf(s.workspaceId))[0]).toMatchObject({ value_cents: 120_000, currency: 'BRL' });
		await expect.poll(() => eventActors(s.workspaceId, 'deal.stage_changed')).toEqual([{ kind: 'bot', id: 'bot_1' }]);
	});

	it('targets the deal a variable names, and answers noDeal when there is none', async () => {
		const s = await scene();
		await funnel(s.token);
		const created = await performAction(s.ctx(), { type: 'create_deal', funnel: 'Sales', name: 'A' });
		const id = 'data' in created ? (created.data as { id: string }).id : '';
		const renamed = await performAction(s.ctx({ variables: { deal_id: id }, contactId: null }), {
			type: 'update_deal',
			dealVariable: 'deal_id',
			name: 'Renamed',
		});
		expect(renamed).toMatchObject({ ok: true, data: { id, name: 'Renamed' } });
		expect(
			await performAction(s.ctx({ variables: { deal_id: 'deal_nope' } }), {
				type: 'update_deal',
				dealVariable: 'deal_id',
				name: 'Y',
			}),
		).toEqual({ ok: true, noDeal: true });
		const other = await scene();
		await funnel(other.token);
		expect(await performAction(other.ctx(), { type: 'update_deal', name: 'Z' })).toEqual({ ok: true, noDeal: true });
	});

	it('refuses an owner who is no operator of the workspace, leaving the deal as it was', async () => {
		const s = await scene();
		await funnel(s.token);
		await performAction(s.ctx(), { type: 'create_deal', funnel: 'Sales', name: 'A' });
		const stranger = await seedWorkspace();
		const result = await performAction(s.ctx(), { type: 'update_deal', owner: stranger.operatorId, name: 'B' });
		expect(result.ok).toBe(false);
		expect((await dealsOf(s.workspaceId))[0]).toMatchObject({ name: 'A' });
	});
});

describe('update_contact action', () => {
	it('writes what the templates rendered, checked as the API checks it, and skips fields rendered empty', async () => {
		const s = await scene();
		await seedCustomFields(s.workspaceId, { plan: ['free', 'pro'] });
		const result = await performAction(s.ctx(), {
			type: 'update_contact',
			name: 'Ana Souza',
			email: 'Ana@Example.com',
			phone: '+55 (11) 99999-8888',
			custom_fields: { plan: 'pro' },
		});
		expect(result.ok).toBe(true);
		const row = await env.DB.prepare('SELECT name, email, phone, custom_fields FROM contacts WHERE id = ?')
			.bind(s.contactId)
			.first();
		expect(row).toEqual({
			name: 'Ana Souza',
			email: 'ana@example.com',
			phone: '+5511999998888',
			custom_fields: '{"plan":"pro"}',
		});
		expect(await performAction(s.ctx(), { type: 'update_contact', name: '', email: ' ' })).toEqual({
			ok: true,
			data: 'nothing to change',
		});
		await expect.poll(() => eventActors(s.workspaceId, 'contact.updated')).toEqual([{ kind: 'bot', id: 'bot_1' }]);
	});

	it('refuses a malformed e-mail, an e-mail another contact has and a value outside the field, changing nothing', async () => {
		const s = await scene();
		await seedCustomFields(s.workspaceId, { plan: ['free', 'pro'] });
		const other = await seedConversation(s.workspaceId);
		const otherContact = (await env.DB.prepare('SELECT contact_id FROM conversations WHERE id = ?')
			.bind(other)
			.first('contact_id')) as string;
		await performAction(s.ctx({ contactId: otherContact }), { type: 'update_contact', email: 'taken@example.com' });
		const outcomes = await Promise.all([
			performAction(s.ctx(), { type: 'update_contact', email: 'not an e-mail' }),
			performAction(s.ctx(), { type: 'update_contact', email: 'taken@example.com' }),
			performAction(s.ctx(), { type: 'update_contact', custom_fields: { plan: 'platinum' } }),
		]);
		expect(outcomes.map((o) => o.ok)).toEqual([false, false, false]);
		expect(outcomes[2]).toMatchObject({ error: expect.stringContaining('customFields.plan') });
		const row = await env.DB.prepare('SELECT email, custom_fields FROM contacts WHERE id = ?')
			.bind(s.contactId)
			.first();
		expect(row).toEqual({ email: null, custom_fields: '{}' });
	});
});

describe('apply_tag and assign actions', () => {
	it('tags the conversation or its contact, and takes a tag off', async () => {
		const s = await scene();
		expect(
			await performAction(s.ctx(), { type: 'apply_tag', tag: 'lead', remove: false, target: 'conversation' }),
		).toMatchObject({ ok: true });
		expect(
			await performAction(s.ctx(), { type: 'apply_tag', tag: 'vip', remove: false, target: 'contact' }),
		).toMatchObject({ ok: true });
		const facts = await loadFacts(env, db, { ...s.ctx(), variables: {} }, ['conversation', 'contact']);
		expect(facts).toMatchObject({ conversation: { tags: ['lead'] }, contact: { tags: ['vip'] } });
		await performAction(s.ctx(), { type: 'apply_tag', tag: 'lead', remove: true, target: 'conversation' });
		const after = await loadFacts(env, db, { ...s.ctx(), variables: {} }, ['conversation']);
		expect(after).toMatchObject({ conversation: { tags: [] } });
		expect(
			await performAction(s.ctx(), { type: 'apply_tag', tag: ' ', remove: false, target: 'conversation' }),
		).toMatchObject({ ok: false });
	});

	it('assigns to an enabled operator or a group, and refuses one of another workspace', async () => {
		const s = await scene();
		const res = await api(s.token, 'POST', '/v3/team/groups', { name: 'Sales', memberIds: [] });
		const group = (await res.json()) as { id: string };
		expect(await performAction(s.ctx(), { type: 'assign', groupId: group.id })).toEqual({
			ok: true,
			data: { groupId: group.id },
		});
		const agent = await seedOperator(s.workspaceId, ['messages:send']);
		expect(await performAction(s.ctx(), { type: 'assign', operatorId: agent.operatorId })).toMatchObject({ ok: true });
		const stranger = await seedWorkspace();
		expect(await performAction(s.ctx(), { type: 'assign', operatorId: stranger.operatorId })).toMatchObject({
			ok: false,
		});
		const row = await env.DB.prepare('SELECT assignee_id, group_id FROM conversations WHERE id = ?')
			.bind(s.conversationId)
			.first();
		expect(row).toEqual({ assignee_id: agent.operatorId, group_id: group.id });
	});
});

describe('integration action', () => {
	/** The remote API: records each request and answers as `answer` says. */
	function remote(answer: (request: Request) => Response) {
		const seen: Request[] = [];
		const transport = (async (input: RequestInfo | URL, init?: RequestInit) => {
			const request = new Request(input, init);
			seen.push(request.clone());
			return answer(request);
		}) as typeof fetch;
		return { seen, transport };
	}

	it('sends method, auth and JSON body, and answers the parsed JSON', async () => {
		const s = await scene();
		const api = remote(() => Response.json({ order: { status: 'shipped' } }));
		const result = await performAction(s.ctx({ transport: api.transport }), {
			type: 'integration',
			method: 'POST',
			url: 'https://api.example.com/orders/lookup',
			headers: { 'X-Shop': 'acme', 'X-Empty': '' },
			auth: { kind: 'basic', username: 'ana', password: 'señha' },
			body: '{"order":"A-1"}',
		});
		expect(result).toEqual({ ok: true, data: { order: { status: 'shipped' } } });
		const [request] = api.seen;
		expect(request?.method).toBe('POST');
		expect(request?.headers.get('Authorization')).toBe(
			`Basic ${btoa(String.fromCharCode(...new TextEncoder().encode('ana:señha')))}`,
		);
		expect(request?.headers.get('Content-Type')).toBe('application/json');
		expect(request?.headers.get('X-Shop')).toBe('acme');
		expect(request?.headers.has('X-Empty')).toBe(false);
		expect(await request?.text()).toBe('{"order":"A-1"}');
	});

	it('puts a bearer token or an API key in its header, and sends no body with GET', async () => {
		const s = await scene();
		const api = remote(() => new Response('plain answer', { headers: { 'Content-Type': 'text/plain' } }));
		const bearer = await performAction(s.ctx({ transport: api.transport }), {
			type: 'integration',
			method: 'GET',
			url: 'https://api.example.com/a',
			auth: { kind: 'bearer', token: 'tok' },
			body: 'ignored',
		});
		await performAction(s.ctx({ transport: api.transport }), {
			type: 'integration',
			method: 'DELETE',
			url: 'https://api.example.com/b',
			auth: { kind: 'api_key', header: 'X-Api-Key', value: 'k-1' },
		});
		expect(bearer).toEqual({ ok: true, data: 'plain answer' });
		expect(api.seen[0]?.headers.get('Authorization')).toBe('Bearer tok');
		expect(api.seen[0]?.body).toBeNull();
		expect(api.seen[1]?.headers.get('X-Api-Key')).toBe('k-1');
	});

	it('refuses an error answer (keeping it for the log), a forbidden address and a path that climbs', async () => {
		const s = await scene();
		const api = remote(() => Response.json({ error: 'no such order' }, { status: 404 }));
		const notFound = await performAction(s.ctx({ transport: api.transport }), {
			type: 'integration',
			method: 'GET',
			url: 'https://api.example.com/orders/9',
		});
		expect(notFound).toEqual({
			ok: false,
			error: 'the answer was HTTP 404',
			data: { status: 404, body: { error: 'no such order' } },
		});
		const metadata = await performAction(s.ctx({ transport: api.transport }), {
			type: 'integration',
			method: 'GET',
			url: 'https://169.254.169.254/latest/meta-data/',
		});
		expect(metadata).toMatchObject({ ok: false });
		// A value rendered into the path cannot climb to another resource.
		const climbing = await performAction(s.ctx({ transport: api.transport }), {
			type: 'integration',
			method: 'DELETE',
			url: 'https://api.example.com/v1/deals/1/../persons/7',
		});
		expect(climbing).toMatchObject({ ok: false, error: expect.stringContaining('.. segment') });
		expect(api.seen).toHaveLength(1);
	});
});

describe('facts for conditions', () => {
	it('loads only the roots asked for: contact, conversation, business hours, agents, deal', async () => {
		const s = await scene();
		await funnel(s.token);
		await performAction(s.ctx(), {
			type: 'create_deal',
			funnel: 'Sales',
			stage: 'Qualified',
			name: 'Deal',
			value: '10',
		});
		await seedConversation(s.workspaceId, { contactId: s.contactId });
		const scope = { ...s.ctx(), variables: {} };
		expect(await loadFacts(env, db, scope, [])).toEqual({});
		const facts = await loadFacts(env, db, scope, ['contact', 'conversation', 'businessHours', 'agents', 'deal']);
		expect(facts).toMatchObject({
			contact: { conversationCount: 2, tags: [] },
			conversation: { id: s.conversationId, channel: 'widget', status: 'open' },
			businessHours: { open: expect.any(Boolean), period: expect.any(String) },
			agents: { available: 0 },
			deal: { name: 'Deal', status: 'open', stage: 'Qualified', funnel: 'Sales', value: 1000 },
		});
	});
});
