import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import migration from '../migrations/0008_custom_fields.sql?raw';
import { contacts, customFields } from '../src/db/schema';
import { createContact, updateContact } from '../src/domain/crm/contact-records';
import { Invalid } from '../src/lib/errors';
import { newId } from '../src/lib/ids';
import { operatorActor } from '../src/model/actor';
import {
	api,
	d1Timing,
	db,
	expectError,
	seedCustomFields,
	seedOperator,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
	widgetApi,
} from './factories';

interface Definition {
	id: string;
	entity: string;
	key: string;
	label: string;
	type: string;
	options: string[] | null;
	required: boolean;
}

interface Contact {
	id: string;
	name: string | null;
	customFields: Record<string, unknown>;
}

async function define(token: string, body: Record<string, unknown>): Promise<Definition> {
	const res = await api(token, 'POST', '/v3/custom-fields', { entity: 'contact', label: 'A field', ...body });
	expect(res.status).toBe(201);
	return (await res.json()) as Definition;
}

async function contactOf(token: string, id: string): Promise<Contact> {
	return (await (await api(token, 'GET', `/v3/contacts/${id}`)).json()) as Contact;
}

/** The events recorded with `type` prefix in the workspace, oldest first. */
async function eventsOf(workspaceId: string, prefix: string) {
	const { results } = await env.DB.prepare(
		'SELECT type, payload FROM events WHERE workspace_id = ? AND type LIKE ? ORDER BY occurred_at, id',
	)
		.bind(workspaceId, `${prefix}%`)
		.all<{ type: string; payload: string }>();
	return results.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

describe('/v3/custom-fields', () => {
	it('defines, changes and deletes a field, refusing a taken key, with an event each', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const plan = await define(token, { key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro'] });
		expect(plan).toMatchObject({
			entity: 'contact',
			key: 'plan',
			type: 'select',
			options: ['free', 'pro'],
			required: false,
		});
		await expectError(
			await api(token, 'POST', '/v3/custom-fields', { entity: 'contact', key: 'plan', label: 'x', type: 'text' }),
			409,
		);
		// The same key on deals is another field.
		await define(token, { entity: 'deal', key: 'plan', type: 'text' });
		const changed = await api(token, 'PATCH', `/v3/custom-fields/${plan.id}`, {
			label: 'Subscription',
			options: ['free', 'pro', 'team'],
			required: true,
		});
		expect(await changed.json()).toMatchObject({
			label: 'Subscription',
			options: ['free', 'pro', 'team'],
			required: true,
		});
		const list = (await (await api(token, 'GET', '/v3/custom-fields?entity=contact')).json()) as { data: Definition[] };
		expect(list.data.map((d) => d.key)).toEqual(['plan']);
		expect((await api(token, 'DELETE', `/v3/custom-fields/${plan.id}`)).status).toBe(204);
		await expectError(await api(token, 'GET', `/v3/custom-fields/${plan.id}`), 404);
		await expect
			.poll(async () =>
				(await eventsOf(workspaceId, 'custom_field.')).map(
					(e) => `${e.type} ${e.payload.customField.entity}.${e.payload.customField.key}`,
				),
			)
			.toEqual([
				'custom_field.created contact.plan',
				'custom_field.created deal.plan',
				'custom_field.updated contact.plan',
				'custom_field.deleted contact.plan',
			]);
		const updated = (await eventsOf(workspaceId, 'custom_field.updated'))[0]?.payload;
		expect(updated.changes).toEqual({
			label: { from: 'Plan', to: 'Subscription' },
			options: { from: ['free', 'pro'], to: ['free', 'pro', 'team'] },
			required: { from: false, to: true },
		});
	});

	it('refuses a bad definition or change with a 422 naming the field, and writes nothing', async () => {
		const { workspaceId, token } = await seedWorkspace();
		for (const [body, field] of [
			[{ entity: 'contact', key: 'plan', label: 'Plan', type: 'select' }, 'json.options'],
			[{ entity: 'contact', key: 'plan', label: 'Plan', type: 'text', options: ['a'] }, 'json.options'],
			[{ entity: 'contact', key: 'plan', label: 'Plan', type: 'select', options: ['a', 'a'] }, 'json.options'],
			[{ entity: 'contact', key: '1plan', label: 'Plan', type: 'text' }, 'json.key'],
			[{ entity: 'ticket', key: 'plan', label: 'Plan', type: 'text' }, 'json.entity'],
			[{ entity: 'contact', key: 'plan', label: 'Plan', type: 'color' }, 'json.type'],
		] as const) {
			const { message } = await expectError(await api(token, 'POST', '/v3/custom-fields', body), 422);
			expect(message).toContain(field);
		}
		const seats = await define(token, { key: 'seats', type: 'number' });
		const { message } = await expectError(
			await api(token, 'PATCH', `/v3/custom-fields/${seats.id}`, { options: ['1'] }),
			422,
		);
		expect(message).toContain('json.options');
		// The key and the type are fixed once created.
		await expectError(await api(token, 'PATCH', `/v3/custom-fields/${seats.id}`, { type: 'text' }), 422);
		await expectError(await api(token, 'PATCH', `/v3/custom-fields/${seats.id}`, { key: 'users' }), 422);
		const rows = await db.select().from(customFields).where(eqWorkspace(workspaceId));
		expect(rows.map((r) => [r.key, r.type, r.options])).toEqual([['seats', 'number', null]]);
	});

	it('refuses a 101st field for one entity, even when created concurrently', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(
			workspaceId,
			Object.fromEntries(Array.from({ length: 98 }, (_, i) => [`f${i}`, 'text' as const])),
		);
		const results = await Promise.all(
			['a', 'b', 'c', 'd'].map((key) =>
				api(token, 'POST', '/v3/custom-fields', { entity: 'contact', key, label: key, type: 'text' }),
			),
		);
		expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409, 409]);
		const count = await env.DB.prepare(
			"SELECT count(*) AS n FROM custom_fields WHERE workspace_id = ? AND entity = 'contact'",
		)
			.bind(workspaceId)
			.first<{ n: number }>();
		expect(count?.n).toBe(100);
		// Deals have their own hundred.
		await define(token, { entity: 'deal', key: 'region', type: 'text' });
	});

	it('needs admin, and answers 404 for a field of another workspace', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const plan = await define(token, { key: 'plan', type: 'text' });
		const writer = await seedOperator(workspaceId, ['contacts:write', 'conversations:read']);
		await expectError(await api(writer.token, 'GET', '/v3/custom-fields'), 403);
		await expectError(
			await api(writer.token, 'POST', '/v3/custom-fields', { entity: 'contact', key: 'x', label: 'x', type: 'text' }),
			403,
		);
		const other = await seedWorkspace();
		for (const [method, body] of [['GET'], ['PATCH', { label: 'Stolen' }], ['DELETE']] as const) {
			await expectError(await api(other.token, method, `/v3/custom-fields/${plan.id}`, body), 404);
		}
		const list = (await (await api(other.token, 'GET', '/v3/custom-fields')).json()) as { data: unknown[] };
		expect(list.data).toEqual([]);
		expect((await api(token, 'GET', `/v3/custom-fields/${plan.id}`)).status).toBe(200);
	});
});

const eqWorkspace = (workspaceId: string) => eq(customFields.workspaceId, workspaceId);

describe('custom values on contacts', () => {
	it('checks each value against its definition, stores it as its type, and refuses an undefined key by name', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, {
			plan: ['free', 'pro'],
			seats: 'number',
			trial: 'boolean',
			renewal: 'date',
			note: 'text',
		});
		const res = await api(token, 'POST', '/v3/contacts', {
			name: 'Ada',
			customFields: { plan: 'pro', seats: '12', trial: 'false', renewal: '2027-01-31T09:30:00-03:00', note: 7 },
		});
		expect(res.status).toBe(201);
		const ada = (await res.json()) as Contact;
		expect(ada.customFields).toEqual({
			plan: 'pro',
			seats: 12,
			trial: false,
			renewal: '2027-01-31T12:30:00.000Z',
			note: '7',
		});
		for (const [customFields, field] of [
			[{ colour: 'red' }, 'json.customFields.colour'],
			[{ plan: 'gold' }, 'json.customFields.plan'],
			[{ seats: 'many' }, 'json.customFields.seats'],
			[{ trial: 'yes' }, 'json.customFields.trial'],
			[{ renewal: '2027-02-30' }, 'json.customFields.renewal'],
			[{ renewal: '2027-02-30T10:00:00Z' }, 'json.customFields.renewal'],
			[{ note: '' }, 'json.customFields.note'],
		] as const) {
			const { message } = await expectError(await api(token, 'PATCH', `/v3/contacts/${ada.id}`, { customFields }), 422);
			expect(message).toContain(field);
			await expectError(await api(token, 'POST', '/v3/contacts', { name: 'Bo', customFields }), 422);
		}
		expect((await contactOf(token, ada.id)).customFields).toEqual(ada.customFields);
		const count = await env.DB.prepare('SELECT count(*) AS n FROM contacts WHERE workspace_id = ?')
			.bind(workspaceId)
			.first<{ n: number }>();
		expect(count?.n).toBe(1);
	});

	it('sets and clears keys one by one, announcing each as customFields.<key> from and to', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, { plan: ['free', 'pro'], seats: 'number' });
		const ada = (await (
			await api(token, 'POST', '/v3/contacts', { name: 'Ada', customFields: { plan: 'free' } })
		).json()) as Contact;
		const res = await api(token, 'PATCH', `/v3/contacts/${ada.id}`, { customFields: { seats: 3 } });
		expect(((await res.json()) as Contact).customFields).toEqual({ plan: 'free', seats: 3 });
		await api(token, 'PATCH', `/v3/contacts/${ada.id}`, { customFields: { plan: null, seats: 3 } });
		expect((await contactOf(token, ada.id)).customFields).toEqual({ seats: 3 });
		await expect
			.poll(async () => (await eventsOf(workspaceId, 'contact.updated')).map((e) => e.payload.changes))
			.toEqual([{ 'customFields.seats': { from: null, to: 3 } }, { 'customFields.plan': { from: 'free', to: null } }]);
	});

	it('keeps every one of eight concurrent writes of different keys', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
		await seedCustomFields(workspaceId, Object.fromEntries(keys.map((k) => [k, 'number' as const])));
		const ada = (await (await api(token, 'POST', '/v3/contacts', { name: 'Ada' })).json()) as Contact;
		const results = await Promise.all(
			keys.map((key, i) => api(token, 'PATCH', `/v3/contacts/${ada.id}`, { customFields: { [key]: i } })),
		);
		expect(results.map((r) => r.status)).toEqual(keys.map(() => 200));
		expect((await contactOf(token, ada.id)).customFields).toEqual(Object.fromEntries(keys.map((k, i) => [k, i])));
	});

	it('needs a required field on create and refuses to clear it', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await define(token, { key: 'segment', type: 'text', required: true });
		const { message } = await expectError(await api(token, 'POST', '/v3/contacts', { name: 'Ada' }), 422);
		expect(message).toContain('json.customFields.segment');
		await expectError(await api(token, 'PUT', '/v3/contacts/by-email/ada@example.com', { name: 'Ada' }), 422);
		const ada = (await (
			await api(token, 'POST', '/v3/contacts', { name: 'Ada', customFields: { segment: 'smb' } })
		).json()) as Contact;
		await expectError(await api(token, 'PATCH', `/v3/contacts/${ada.id}`, { customFields: { segment: null } }), 422);
		// Contacts a visitor or a conversation brings in are not held to it: nobody could have given it yet.
		expect(await startVisitorConversation(await startVisitor(workspaceId))).toBeTruthy();
		expect((await contactOf(token, ada.id)).customFields).toEqual({ segment: 'smb' });
	});

	it('holds a direct domain call to the same rules as the API', async () => {
		const { workspaceId, operatorId } = await seedWorkspace();
		await seedCustomFields(workspaceId, { seats: 'number' });
		const actor = operatorActor(operatorId);
		await expect(
			createContact(env, db, workspaceId, { name: 'Ada', customFields: { colour: 'red' } }, actor),
		).rejects.toThrow(Invalid);
		const id = await createContact(env, db, workspaceId, { name: 'Ada', customFields: { seats: '4' } }, actor);
		await expect(updateContact(env, db, workspaceId, id, { customFields: { seats: 'four' } }, actor)).rejects.toThrow(
			/customFields\.seats: must be a number/,
		);
		const row = await db.select().from(contacts).where(eqContact(id)).get();
		expect(row?.customFields).toEqual({ seats: 4 });
	});

	it('filters the list by a custom value read as its type, in at most two D1 statements', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, { seats: 'number', trial: 'boolean', plan: ['free', 'pro'] });
		const ten = (await (
			await api(token, 'POST', '/v3/contacts', { name: 'Ten', customFields: { seats: 10, trial: true } })
		).json()) as Contact;
		const two = (await (
			await api(token, 'POST', '/v3/contacts', { name: 'Two', customFields: { seats: 2, trial: false, plan: 'pro' } })
		).json()) as Contact;
		const names = async (query: string) => {
			const res = await api(token, 'GET', `/v3/contacts?${query}`);
			expect(res.status).toBe(200);
			expect(d1Timing(res)).toBe('d1;desc="2 queries"');
			return ((await res.json()) as { data: Contact[] }).data.map((c) => `${c.name} ${c.id}`);
		};
		expect(await names('customField=seats:10')).toEqual([`Ten ${ten.id}`]);
		expect(await names('customField=trial:false')).toEqual([`Two ${two.id}`]);
		expect(await names('customField=plan:pro')).toEqual([`Two ${two.id}`]);
		for (const query of ['customField=colour:red', 'customField=seats:ten', 'customField=seats']) {
			const { message } = await expectError(await api(token, 'GET', `/v3/contacts?${query}`), 422);
			expect(message).toContain('query.customField');
		}
	});

	it("removes a deleted field's values from every contact, and keeps one the pre-chat form asks for", async () => {
		const { token } = await seedWorkspace();
		const plan = await define(token, { key: 'plan', type: 'select', options: ['free', 'pro'] });
		const seats = await define(token, { key: 'seats', type: 'number' });
		const ada = (await (
			await api(token, 'POST', '/v3/contacts', { name: 'Ada', customFields: { plan: 'pro', seats: 2 } })
		).json()) as Contact;
		const settings = {
			customFields: [{ name: 'plan', label: 'Plan', type: 'select', options: ['pro'], required: true }],
		};
		expect((await api(token, 'PUT', '/v3/widget/settings', settings)).status).toBe(200);
		const { message } = await expectError(await api(token, 'DELETE', `/v3/custom-fields/${plan.id}`), 409);
		expect(message).toContain('pre-chat');
		// Nor can it drop an option the form offers (a visitor choosing it could not start a chat).
		const narrowed = await expectError(
			await api(token, 'PATCH', `/v3/custom-fields/${plan.id}`, { options: ['free'] }),
			409,
		);
		expect(narrowed.message).toContain('"pro"');
		expect((await api(token, 'PATCH', `/v3/custom-fields/${plan.id}`, { options: ['pro', 'team'] })).status).toBe(200);
		expect((await api(token, 'DELETE', `/v3/custom-fields/${seats.id}`)).status).toBe(204);
		expect((await contactOf(token, ada.id)).customFields).toEqual({ plan: 'pro' });
		// Defined again, the key starts empty.
		await define(token, { key: 'seats', type: 'text' });
		expect((await contactOf(token, ada.id)).customFields).toEqual({ plan: 'pro' });
	});
});

const eqContact = (id: string) => eq(contacts.id, id);

describe('custom values from the widget', () => {
	it('refuses a pre-chat form field the workspace has not defined, when the settings are saved', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, { plan: ['free', 'pro'], seats: 'number' });
		for (const [field, problem] of [
			[{ name: 'colour', label: 'Colour', type: 'text', required: false }, 'json.customFields.0.name'],
			[
				{ name: 'plan', label: 'Plan', type: 'select', options: ['pro', 'gold'], required: true },
				'json.customFields.0.options',
			],
			[
				{ name: 'seats', label: 'Seats', type: 'select', options: ['1', 'many'], required: true },
				'json.customFields.0.options',
			],
			[{ name: 'plan', label: 'Plan', type: 'text', required: false }, 'json.customFields.0.type'],
		] as const) {
			const { message } = await expectError(
				await api(token, 'PUT', '/v3/widget/settings', { customFields: [field] }),
				422,
			);
			expect(message).toContain(problem);
		}
		const ok = await api(token, 'PUT', '/v3/widget/settings', {
			customFields: [{ name: 'seats', label: 'Seats', type: 'select', options: ['1', '5', '10'], required: true }],
		});
		expect(ok.status).toBe(200);
	});

	it('stores pre-chat answers as their type and refuses an undefined one before anything starts', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, { seats: 'number' });
		const visitor = await startVisitor(workspaceId);
		const start = (customFields: Record<string, string>, id: string) =>
			widgetApi(
				'POST',
				`/widget/${workspaceId}/conversations`,
				{ message: { text: 'hi', clientMessageId: id }, customFields },
				visitor.session,
			);
		const { message } = await expectError(await start({ seats: '5', orderId: 'A-1' }, 'a'), 422);
		expect(message).toContain('json.customFields.orderId');
		const count = await env.DB.prepare('SELECT count(*) AS n FROM conversations WHERE workspace_id = ?')
			.bind(workspaceId)
			.first<{ n: number }>();
		expect(count?.n).toBe(0);
		const res = await start({ seats: '5' }, 'b');
		expect(res.status).toBe(201);
		const { conversation } = (await res.json()) as { conversation: { id: string } };
		const seen = (await (await api(token, 'GET', `/v3/conversations/${conversation.id}`)).json()) as {
			contact: Contact;
		};
		expect(seen.contact.customFields).toEqual({ seats: 5 });
	});

	it('refuses identify custom data for an undefined key, changing nothing', async () => {
		const { workspaceId } = await seedWorkspace();
		await seedCustomFields(workspaceId, { plan: ['free', 'pro'] });
		const visitor = await startVisitor(workspaceId);
		const identify = (body: unknown) => widgetApi('POST', `/widget/${workspaceId}/identify`, body, visitor.session);
		const { message } = await expectError(
			await identify({ name: 'Bo', customData: { plan: 'pro', colour: 'red' } }),
			422,
		);
		expect(message).toContain('json.customData.colour');
		const named = await env.DB.prepare('SELECT count(*) AS n FROM contacts WHERE workspace_id = ? AND name IS NOT NULL')
			.bind(workspaceId)
			.first<{ n: number }>();
		expect(named?.n).toBe(0);
		const res = await identify({ name: 'Bo', customData: { plan: 'pro' } });
		expect(((await res.json()) as { contact: Contact }).contact.customFields).toEqual({ plan: 'pro' });
	});
});

describe('the migration that introduced definitions', () => {
	it('defines the keys contacts and pre-chat forms already used, typed by their values', async () => {
		const { workspaceId } = await seedWorkspace();
		const now = Date.now();
		const values: Array<Record<string, string | number | boolean>> = [
			{ seats: 3, trial: true, plan: 'pro' },
			{ seats: 4.5, trial: false, plan: 2, topic: 'Sales' },
		];
		const rows = values.map((customFields) => ({
			id: newId('ctc', now),
			workspaceId,
			customFields,
			createdAt: now,
			updatedAt: now,
		}));
		await db.insert(contacts).values(rows);
		await env.DB.prepare('INSERT INTO widget_settings (workspace_id, settings, updated_at) VALUES (?, ?, ?)')
			.bind(
				workspaceId,
				JSON.stringify({
					customFields: [{ name: 'topic', label: 'Topic', type: 'select', options: ['Sales'], required: true }],
				}),
				now,
			)
			.run();
		// The migration's backfill statements, run again over this workspace's legacy data.
		const backfill = migration.split('--> statement-breakpoint').filter((s) => s.includes('INSERT OR IGNORE'));
		expect(backfill).toHaveLength(2);
		for (const statement of backfill) await env.DB.prepare(statement).run();
		const defined = await db.select().from(customFields).where(eqWorkspace(workspaceId));
		expect(Object.fromEntries(defined.map((d) => [d.key, [d.type, d.options]]))).toEqual({
			plan: ['text', null],
			seats: ['number', null],
			trial: ['boolean', null],
			topic: ['select', ['Sales']],
		});
		expect(defined.every((d) => /^cf_[0-9A-Z]{26}$/.test(d.id))).toBe(true);
	});
});
