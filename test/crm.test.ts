import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDeal } from '../src/domain/crm/deals';
import { Invalid } from '../src/lib/errors';
import { operatorActor } from '../src/model/actor';
import { api, d1Timing, db, expectError, seedCustomFields, seedOperator, seedWorkspace } from './factories';

interface Funnel {
	id: string;
	name: string;
	stages: { id: string; name: string; position: number }[];
}

interface Deal {
	id: string;
	name: string;
	funnelId: string;
	stage: { id: string; name: string };
	status: string;
	value: number | null;
	closedAt: string | null;
	customFields: Record<string, unknown>;
}

async function newFunnel(token: string, name = 'Sales', stages = ['New', 'Proposal', 'Won over']): Promise<Funnel> {
	const res = await api(token, 'POST', '/v3/funnels', { name, stages });
	expect(res.status).toBe(201);
	return (await res.json()) as Funnel;
}

async function newDeal(token: string, body: Record<string, unknown>): Promise<Deal> {
	const res = await api(token, 'POST', '/v3/deals', body);
	expect(res.status).toBe(201);
	return (await res.json()) as Deal;
}

/** The events of types starting with `prefix`, oldest first. */
async function eventsOf(workspaceId: string, prefix: string) {
	const { results } = await env.DB.prepare(
		'SELECT type, payload FROM events WHERE workspace_id = ? AND type LIKE ? ORDER BY occurred_at, id',
	)
		.bind(workspaceId, `${prefix}%`)
		.all<{ type: string; payload: string }>();
	return results.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

const names = (funnel: Funnel) => funnel.stages.map((s) => s.name);

describe('/v3/funnels', () => {
	it('creates a funnel, renames and reorders it, adds and renames stages, with an event each', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const funnel = await newFunnel(token);
		expect(names(funnel)).toEqual(['New', 'Proposal', 'Won over']);
		await expectError(await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['A'] }), 409);
		const { message } = await expectError(
			await api(token, 'POST', '/v3/funnels', { name: 'Other', stages: ['A', 'A'] }),
			422,
		);
		expect(message).toContain('json.stages');
		const [first, second, third] = funnel.stages.map((s) => s.id);
		const reordered = await api(token, 'PATCH', `/v3/funnels/${funnel.id}`, {
			name: 'Inbound',
			stageOrder: [second, first, third],
		});
		expect(names((await reordered.json()) as Funnel)).toEqual(['Proposal', 'New', 'Won over']);
		await expectError(await api(token, 'PATCH', `/v3/funnels/${funnel.id}`, { stageOrder: [first, second] }), 422);
		const added = await api(token, 'POST', `/v3/funnels/${funnel.id}/stages`, { name: 'Demo', position: 1 });
		expect(added.status).toBe(201);
		const withDemo = (await added.json()) as Funnel;
		expect(names(withDemo)).toEqual(['Proposal', 'Demo', 'New', 'Won over']);
		expect(withDemo.stages.map((s) => s.position)).toEqual([0, 1, 2, 3]);
		await expectError(await api(token, 'POST', `/v3/funnels/${funnel.id}/stages`, { name: 'Demo' }), 409);
		const renamed = await api(token, 'PATCH', `/v3/funnels/${funnel.id}/stages/${first}`, { name: 'Qualified' });
		expect(names((await renamed.json()) as Funnel)).toEqual(['Proposal', 'Demo', 'Qualified', 'Won over']);
		const list = (await (await api(token, 'GET', '/v3/funnels')).json()) as { data: Funnel[] };
		expect(list.data.map((f) => f.name)).toEqual(['Inbound']);
		await expect
			.poll(async () => (await eventsOf(workspaceId, 'funnel.')).map((e) => e.type))
			.toEqual(['funnel.created', 'funnel.updated', 'funnel.updated', 'funnel.updated']);
	});

	it('deletes a stage only when empty or with a target for its deals, each move announced', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const funnel = await newFunnel(token);
		const [fresh, proposal, last] = funnel.stages;
		const deals = [
			await newDeal(token, { funnel: funnel.id, name: 'One' }),
			await newDeal(token, { funnel: funnel.id, name: 'Two' }),
		];
		const path = `/v3/funnels/${funnel.id}/stages/${fresh?.id}`;
		await expectError(await api(token, 'DELETE', path), 409);
		const { message } = await expectError(await api(token, 'DELETE', `${path}?moveDealsTo=${fresh?.id}`), 422);
		expect(message).toContain('query.moveDealsTo');
		const res = await api(token, 'DELETE', `${path}?moveDealsTo=${proposal?.id}`);
		expect(res.status).toBe(200);
		expect(names((await res.json()) as Funnel)).toEqual(['Proposal', 'Won over']);
		for (const deal of deals) {
			expect(((await (await api(token, 'GET', `/v3/deals/${deal.id}`)).json()) as Deal).stage.name).toBe('Proposal');
		}
		await expect
			.poll(async () =>
				(await eventsOf(workspaceId, 'deal.stage_changed')).map((e) => [e.payload.from.name, e.payload.to.name]),
			)
			.toEqual([
				['New', 'Proposal'],
				['New', 'Proposal'],
			]);
		expect((await api(token, 'DELETE', `/v3/funnels/${funnel.id}/stages/${last?.id}`)).status).toBe(200);
		// The last stage stays; a funnel with deals stays.
		await expectError(await api(token, 'DELETE', `/v3/funnels/${funnel.id}/stages/${proposal?.id}`), 409);
		await expectError(await api(token, 'DELETE', `/v3/funnels/${funnel.id}`), 409);
		const empty = await newFunnel(token, 'Empty', ['Only']);
		expect((await api(token, 'DELETE', `/v3/funnels/${empty.id}`)).status).toBe(204);
		await expectError(await api(token, 'GET', `/v3/funnels/${empty.id}`), 404);
	});
});

describe('/v3/deals', () => {
	it('creates a deal by funnel and stage name in any case, its value the products’ total', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const funnel = await newFunnel(token);
		const contact = (await (await api(token, 'POST', '/v3/contacts', { name: 'Ana' })).json()) as { id: string };
		const deal = await newDeal(token, {
			funnel: 'sales',
			stage: 'PROPOSAL',
			name: 'Acme: 20 seats',
			currency: 'BRL',
			products: [
				{ name: 'Seat', quantity: 20, unitPrice: 12000 },
				{ name: 'Setup', quantity: 1, unitPrice: 50000 },
			],
			ownerId: operatorId,
			contactId: contact.id,
		});
		expect(deal).toMatchObject({ funnelId: funnel.id, stage: { name: 'Proposal' }, value: 290000, status: 'open' });
		const first = await newDeal(token, { funnel: funnel.id, name: 'No stage given' });
		expect(first.stage.name).toBe('New');
		const record = (await (await api(token, 'GET', `/v3/contacts/${contact.id}`)).json()) as { openDealCount: number };
		expect(record.openDealCount).toBe(1);
		for (const [body, field] of [
			[{ funnel: 'Marketing', name: 'x' }, 'json.funnel'],
			[{ funnel: 'Sales', stage: 'Closed', name: 'x' }, 'json.stage'],
			[{ funnel: 'Sales', name: 'x', value: 100 }, 'json.currency'],
			[{ funnel: 'Sales', name: 'x', ownerId: 'op_nope' }, 'json.ownerId'],
			[{ funnel: 'Sales', name: 'x', contactId: 'ctc_nope' }, 'json.contactId'],
			[{ funnel: 'Sales', name: 'x', customFields: { region: 'south' } }, 'json.customFields.region'],
		] as const) {
			const { message } = await expectError(await api(token, 'POST', '/v3/deals', body), 422);
			expect(message).toContain(field);
		}
		await expect.poll(async () => (await eventsOf(workspaceId, 'deal.created')).length).toBe(2);
	});

	it('refuses a funnel name that matches two in different case as ambiguous, from a direct domain call', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		await newFunnel(token, 'Sales');
		await newFunnel(token, 'SALES');
		const actor = operatorActor(operatorId);
		const call = createDeal(env, db, workspaceId, { funnel: 'sales', name: 'x' }, actor);
		await expect(call).rejects.toThrow(Invalid);
		await expect(createDeal(env, db, workspaceId, { funnel: 'sales', name: 'x' }, actor)).rejects.toThrow(/ambiguous/);
		// The exact name is no guess: it names one.
		const deal = await createDeal(env, db, workspaceId, { funnel: 'SALES', stage: 'proposal', name: 'x' }, actor);
		expect(deal.stage.name).toBe('Proposal');
	});

	it('moves a deal between stages with deal.stage_changed, and marks it won with its time', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, { region: ['north', 'south'] }, 'deal');
		const funnel = await newFunnel(token);
		const deal = await newDeal(token, { funnel: 'Sales', name: 'Acme', customFields: { region: 'north' } });
		const moved = await api(token, 'PATCH', `/v3/deals/${deal.id}`, { stage: 'Proposal' });
		expect((await moved.json()) as Deal).toMatchObject({ funnelId: funnel.id, stage: { name: 'Proposal' } });
		const won = (await (
			await api(token, 'PATCH', `/v3/deals/${deal.id}`, { status: 'won', customFields: { region: 'south' } })
		).json()) as Deal;
		expect(won).toMatchObject({ status: 'won', customFields: { region: 'south' } });
		expect(won.closedAt).not.toBeNull();
		const other = await newFunnel(token, 'Renewals', ['Due', 'Renewed']);
		const across = (await (
			await api(token, 'PATCH', `/v3/deals/${deal.id}`, { funnel: 'Renewals', stage: 'Renewed' })
		).json()) as Deal;
		expect(across).toMatchObject({ funnelId: other.id, stage: { name: 'Renewed' } });
		await expect
			.poll(async () =>
				(await eventsOf(workspaceId, 'deal.')).map((e) =>
					e.type === 'deal.stage_changed' ? `${e.type} ${e.payload.from.name}>${e.payload.to.name}` : e.type,
				),
			)
			.toEqual([
				'deal.created',
				'deal.stage_changed New>Proposal',
				'deal.updated',
				'deal.stage_changed Proposal>Renewed',
			]);
		const updated = (await eventsOf(workspaceId, 'deal.updated'))[0]?.payload;
		expect(updated.changes).toEqual({
			status: { from: 'open', to: 'won' },
			'customFields.region': { from: 'north', to: 'south' },
		});
	});

	it('lists deals by funnel, stage, owner, contact and status, one D1 statement a page', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const funnel = await newFunnel(token);
		const ana = await seedOperator(workspaceId, ['crm:access']);
		const mine = await newDeal(token, { funnel: 'Sales', name: 'Mine', ownerId: operatorId });
		await newDeal(token, { funnel: 'Sales', stage: 'Proposal', name: 'Hers', ownerId: ana.operatorId });
		const lost = await newDeal(token, { funnel: 'Sales', name: 'Gone' });
		await api(token, 'PATCH', `/v3/deals/${lost.id}`, { status: 'lost' });
		const list = async (query: string) => {
			const res = await api(token, 'GET', `/v3/deals?${query}`);
			expect(d1Timing(res)).toBe('d1;desc="1 queries"');
			return ((await res.json()) as { data: Deal[] }).data.map((d) => d.name);
		};
		expect(await list(`funnelId=${funnel.id}`)).toEqual(['Gone', 'Hers', 'Mine']);
		expect(await list(`stageId=${funnel.stages[1]?.id}`)).toEqual(['Hers']);
		expect(await list(`ownerId=${operatorId}`)).toEqual(['Mine']);
		expect(await list('status=lost')).toEqual(['Gone']);
		const page = (await (await api(token, 'GET', '/v3/deals?limit=2')).json()) as { data: Deal[]; nextCursor: string };
		const rest = (await (await api(token, 'GET', `/v3/deals?limit=2&cursor=${page.nextCursor}`)).json()) as {
			data: Deal[];
			nextCursor: string | null;
		};
		expect([...page.data, ...rest.data].map((d) => d.name)).toEqual(['Gone', 'Hers', 'Mine']);
		expect(rest.nextCursor).toBeNull();
		expect((await api(token, 'DELETE', `/v3/deals/${mine.id}`)).status).toBe(204);
		await expectError(await api(token, 'GET', `/v3/deals/${mine.id}`), 404);
	});

	it('needs crm:access, and answers 404 for a deal or funnel of another workspace', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const funnel = await newFunnel(token);
		const deal = await newDeal(token, { funnel: 'Sales', name: 'Ours' });
		const writer = await seedOperator(workspaceId, ['contacts:write', 'conversations:read']);
		for (const [method, path] of [
			['GET', '/v3/funnels'],
			['GET', '/v3/deals'],
			['POST', `/v3/deals/${deal.id}/notes`],
			['PATCH', `/v3/deals/${deal.id}`],
		] as const) {
			await expectError(await api(writer.token, method, path, method === 'GET' ? undefined : { text: 'x' }), 403);
		}
		const other = await seedWorkspace();
		await expectError(await api(other.token, 'GET', `/v3/deals/${deal.id}`), 404);
		await expectError(await api(other.token, 'PATCH', `/v3/deals/${deal.id}`, { name: 'Theirs' }), 404);
		await expectError(await api(other.token, 'GET', `/v3/funnels/${funnel.id}`), 404);
		await expectError(await api(other.token, 'POST', `/v3/deals/${deal.id}/notes`, { text: 'x' }), 404);
		// Their funnel of the same name is theirs: a deal of ours is never put in it.
		await newFunnel(other.token, 'Sales');
		const theirs = await newDeal(other.token, { funnel: 'Sales', name: 'Theirs' });
		expect(theirs.funnelId).not.toBe(funnel.id);
	});
});

describe('notes', () => {
	it('adds notes to a contact and a deal, lists them newest first, and announces each', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		await newFunnel(token);
		const deal = await newDeal(token, { funnel: 'Sales', name: 'Acme' });
		const contact = (await (await api(token, 'POST', '/v3/contacts', { name: 'Ana' })).json()) as { id: string };
		for (const text of ['first', 'second']) {
			expect((await api(token, 'POST', `/v3/contacts/${contact.id}/notes`, { text })).status).toBe(201);
		}
		const note = await api(token, 'POST', `/v3/deals/${deal.id}/notes`, { text: 'Wants it by Friday.' });
		expect(await note.json()).toMatchObject({
			text: 'Wants it by Friday.',
			author: { kind: 'operator', id: operatorId },
		});
		const reader = await seedOperator(workspaceId, ['conversations:read']);
		const listed = (await (await api(reader.token, 'GET', `/v3/contacts/${contact.id}/notes`)).json()) as {
			data: { text: string }[];
		};
		expect(listed.data.map((n) => n.text)).toEqual(['second', 'first']);
		await expectError(await api(reader.token, 'POST', `/v3/contacts/${contact.id}/notes`, { text: 'x' }), 403);
		await expectError(await api(token, 'POST', `/v3/contacts/${contact.id}/notes`, { text: '' }), 422);
		await expectError(await api(token, 'POST', '/v3/contacts/ctc_nope/notes', { text: 'x' }), 404);
		const dealNotes = (await (await api(token, 'GET', `/v3/deals/${deal.id}/notes`)).json()) as { data: unknown[] };
		expect(dealNotes.data).toHaveLength(1);
		await expect
			.poll(async () => (await eventsOf(workspaceId, 'note.created')).map((e) => e.payload.note.subject.kind))
			.toEqual(['contact', 'contact', 'deal']);
	});
});
