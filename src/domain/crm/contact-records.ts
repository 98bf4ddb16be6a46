/**
 * The contact database: one function per operation (create, read, list, change, upsert), used by
 * the /v3/contacts routes and, later, by bots, scenarios and rules, so every caller gets the same checks and
 * the same events. Every write commits with its event in one D1 batch (`commit`), and an update's event
 * says each field's value before and after it, exactly: the update only applies while the row still holds
 * the values it was computed from. Deleting and merging contacts are in contact-removal.ts.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { type Database, violatesUnique } from '../../db/client';
import { contacts } from '../../db/schema';
import { commit, IF_CHANGED, release } from '../../events/commit';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../lib/cursor';
import { Conflict, NotFound } from '../../lib/errors';
import { assertVersion, type ExpectedVersion, expectsVersion } from '../../lib/expected-version';
import { newId } from '../../lib/ids';
import { given, keyedRecord, present, type SchemaRule, schemaRules, when } from '../../lib/schema-rules';
import type { Actor } from '../../model/actor';
import { customFieldKey } from '../../model/custom-fields';
import { emailAddress } from '../../model/email-address';
import { changesOf, newEvent } from '../../model/events';
import { phoneNumber } from '../widget/settings';
import { type ContactFilters, contactsMatching, criteriaOfQuery, QUERY_SOURCE } from './contact-filters';
import { contactEventView, contactSchema, contactView, normalizePhone } from './contacts';
import {
	type CheckedCustomValues,
	checkedCustomValues,
	customChangeEntries,
	customFieldsUnchanged,
	customFieldsWrite,
	customValueChanges,
	definitionGone,
	definitionsGuard,
} from './custom-values';

/** A contact as /v3/contacts shows it: the record with its tags and its open deals counted. */
export const contactRecordSchema = contactSchema
	.extend({
		tags: z.array(z.string()).openapi({ description: 'The tags applied to the contact, by name.' }),
		openDealCount: z.number().int().openapi({ description: 'How many of its deals are open.' }),
	})
	.openapi('ContactRecord');

export type ContactRecord = z.infer<typeof contactRecordSchema>;

const email = emailAddress()
	.transform((value) => value.toLowerCase())
	.openapi({ description: 'E-mail address (stored lower-cased); unique in the workspace.' });
const phone = phoneNumber
	.transform(normalizePhone)
	.openapi({ description: 'Phone number with the country code (stored as + and digits); unique in the workspace.' });
const name = z.string().trim().min(1).max(200).openapi({ description: 'Full name.' });

const customValues = keyedRecord(customFieldKey, z.union([z.string(), z.number(), z.boolean(), z.null()])).openapi({
	description:
		'Values by custom field key, each checked against its definition (`/v3/custom-fields`): an undefined key is refused. Keys left out stay; null clears one.',
	example: { plan: 'pro' },
});

/** The fields an integrator writes; each may be cleared with null. */
const contactFields = z
	.strictObject({
		name: name.nullable().optional(),
		email: email.nullable().optional(),
		phone: phone.nullable().optional(),
		customFields: customValues.optional(),
		optedOut: z.boolean().optional().openapi({
			description: 'True opts the contact out of campaigns (they never send to it); false opts it back in.',
		}),
		optedOutSource: z.string().trim().min(1).max(100).optional().openapi({
			description: 'With `optedOut: true`: how it opted out (an unsubscribe link, a form); `api` when left out.',
			example: 'unsubscribe-link',
		}),
	})
	.refine((b) => b.optedOutSource === undefined || b.optedOut === true, {
		message: 'is only given with optedOut: true',
		path: ['optedOutSource'],
	});

export type ContactFields = z.infer<typeof contactFields>;

/** `optedOutSource` only beside `optedOut: true`, as the refinement of `contactFields` says. */
const sourceWithOptOut: SchemaRule = when(present('optedOutSource'), {
	required: ['optedOut'],
	properties: { optedOut: { const: true } },
});

export const newContactSchema = contactFields
	.refine((b) => b.name != null || b.email != null || b.phone != null, 'give at least one of name, email, phone')
	// The refinements are invisible to the generator: the document states them for clients that validate.
	.openapi(
		'NewContact',
		schemaRules({
			...sourceWithOptOut,
			description: 'A new contact: a name, an e-mail or a phone at least (not null).',
			anyOf: [
				given('name', 'string', 'Given: the contact has a name.'),
				given('email', 'string', 'Given: the contact has an e-mail.'),
				given('phone', 'string', 'Given: the contact has a phone.'),
			],
		}),
	);

export const contactChangesSchema = contactFields
	.refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
	.openapi('ContactChanges', schemaRules({ ...sourceWithOptOut, minProperties: 1 }));

/** The body of an upsert by e-mail or phone: the other fields (the key may be repeated, with the same value). */
export const contactUpsertSchema = contactFields.openapi('ContactUpsert', schemaRules(sourceWithOptOut));

// The outer row is named by its table, as drizzle leaves a bare column name in a select list, which the
// subquery would take for one of its own.
export const tagNamesOfContact = sql<
	string | null
>`(SELECT json_group_array(t.name) FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.workspace_id = contacts.workspace_id AND ct.contact_id = contacts.id)`;
const openDealCount = sql<number>`(SELECT count(*) FROM deals d WHERE d.workspace_id = contacts.workspace_id AND d.contact_id = contacts.id AND d.status = 'open')`;
const recordColumns = { contact: contacts, tags: tagNamesOfContact, openDeals: openDealCount };

export type ContactRow = typeof contacts.$inferSelect;

function recordView(row: { contact: ContactRow; tags: string | null; openDeals: number }): ContactRecord {
	return {
		...contactView(row.contact),
		tags: (JSON.parse(row.tags ?? '[]') as string[]).sort(),
		openDealCount: row.openDeals,
	};
}

/** The condition that names one contact of the workspace. */
export const inWorkspace = (workspaceId: string, id: string) =>
	and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id));

/** One contact with its tags and open deal count, in one statement; NotFound outside the workspace. */
export async function getContact(db: Database, workspaceId: string, id: string): Promise<ContactRecord> {
	const row = await db.select(recordColumns).from(contacts).where(inWorkspace(workspaceId, id)).get();
	if (!row) throw new NotFound(`Contact ${id} not found.`);
	return recordView(row);
}

/**
 * One page of the workspace's contacts, newest first, in a single statement (two with a custom field filter,
 * which reads the field's definition first). Keyset pagination on
 * (created_at, id) walks the `contacts_workspace_created` index: a contact created while a client pages
 * lands before its cursor, so pages neither shift nor repeat.
 */
export async function listContacts(
	db: Database,
	workspaceId: string,
	filters: ContactFilters,
	after: NewestFirstCursor | null,
	limit: number,
) {
	const c = contacts;
	const where = and(
		await contactsMatching(db, workspaceId, criteriaOfQuery(filters), QUERY_SOURCE),
		eq(c.workspaceId, workspaceId),
		afterNewestFirst(c.createdAt, c.id, after),
	);
	const rows = await db
		.select(recordColumns)
		.from(c)
		.where(where)
		.orderBy(desc(c.createdAt), desc(c.id))
		.limit(limit + 1);
	return pageOf(rows, limit, recordView, (r) => ({ at: r.contact.createdAt, id: r.contact.id }));
}

/** Which unique field a failed write collided on, as a 409 naming it; other errors are rethrown. */
export function uniqueConflict(error: unknown): never {
	for (const field of ['email', 'phone', 'external_id'] as const) {
		if (violatesUnique(error, `contacts.${field}`)) {
			const label = field === 'external_id' ? 'external id' : field === 'email' ? 'e-mail' : 'phone';
			throw new Conflict(`Another contact of this workspace already has this ${label}.`, { cause: error });
		}
	}
	throw error;
}

/** The new row a create or an upsert inserts. */
function newRow(workspaceId: string, fields: ContactFields, custom: CheckedCustomValues, now: number): ContactRow {
	const id = newId('ctc', now);
	return {
		id,
		// Generated by D1 (the column is virtual); written here so the row returned is the row stored.
		shortId: id.slice(-5),
		workspaceId,
		name: fields.name ?? null,
		email: fields.email ?? null,
		phone: fields.phone ?? null,
		customFields: Object.fromEntries(Object.entries(custom).filter(([, value]) => value !== null)),
		firstOrigin: null,
		lastOrigin: null,
		externalId: null,
		verifiedAt: null,
		claimedEmail: null,
		claimedPhone: null,
		optedOutAt: fields.optedOut ? now : null,
		optedOutSource: fields.optedOut ? (fields.optedOutSource ?? 'api') : null,
		emailFailingAt: null,
		emailFailure: null,
		continuationOptOutAt: null,
		whatsappId: null,
		createdAt: now,
		updatedAt: now,
	};
}

/**
 * Creates a contact with its `contact.created` event; a 409 when its e-mail or phone is another's, a 422 when
 * a custom value breaks its definition or a required one is missing.
 */
export async function createContact(
	env: Env,
	db: Database,
	workspaceId: string,
	fields: ContactFields,
	actor: Actor,
	now = Date.now(),
): Promise<string> {
	const custom = await checkedCustomValues(db, workspaceId, 'contact', fields.customFields ?? {}, { creating: true });
	const row = newRow(workspaceId, fields, custom, now);
	const event = newEvent('contact.created', workspaceId, actor, { contact: contactEventView(row) }, now);
	const guard = definitionsGuard(workspaceId, 'contact', custom);
	const statements = [...(guard ? [guard] : []), db.insert(contacts).values(row)];
	const committed = await commit(db, { statements, events: [event] }, definitionGone(uniqueConflict));
	await release(env, committed.events);
	return row.id;
}

const EDITABLE = ['name', 'email', 'phone'] as const;
/** How many times an update is recomputed when the row changed between its read and its write. */
const UPDATE_ATTEMPTS = 8;

/**
 * Applies `fields` to the contact with a `contact.updated` event listing each field that moved, from and to
 * (a custom value as `customFields.<key>`); nothing (and no event) when every value is the one it already has.
 * Custom values are checked against their definitions first, and each is written on its own key. The write only applies while the row
 * still holds the values read: a concurrent change makes it read again, so the event never states a
 * `from` that was not there. NotFound outside the workspace; 409 when an e-mail or phone is another's.
 */
export async function updateContact(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	fields: ContactFields,
	actor: Actor,
	/**
	 * The version the change was computed from (If-Match): applied only while it is current, else a 412. The
	 * write then also guards on the version, so a concurrent change to any field refuses it (read again: 412).
	 */
	expected?: ExpectedVersion,
	now = Date.now(),
): Promise<void> {
	const custom = await checkedCustomValues(db, workspaceId, 'contact', fields.customFields ?? {});
	for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
		const current = await db.select().from(contacts).where(inWorkspace(workspaceId, id)).get();
		if (!current) throw new NotFound(`Contact ${id} not found.`);
		assertVersion(expected, current.updatedAt, `Contact ${id}`);
		const moved: Record<string, { from: string | null; to: string | null }> = {};
		for (const key of EDITABLE) {
			const to = fields[key];
			if (to !== undefined && to !== current[key]) moved[key] = { from: current[key], to };
		}
		const keys = Object.keys(moved) as Array<(typeof EDITABLE)[number]>;
		const movedCustom = customValueChanges(current.customFields, custom);
		const wasOptedOut = current.optedOutAt !== null;
		const optedOut = fields.optedOut === undefined || fields.optedOut === wasOptedOut ? undefined : fields.optedOut;
		if (keys.length === 0 && movedCustom.size === 0 && optedOut === undefined) return;
		const consent =
			optedOut === undefined
				? {}
				: { optedOutAt: optedOut ? now : null, optedOutSource: optedOut ? (fields.optedOutSource ?? 'api') : null };
		const values = Object.fromEntries(keys.map((key) => [key, moved[key]?.to ?? null]));
		const unchangedSinceRead = keys.map((key) => {
			const from = moved[key]?.from ?? null;
			return from === null ? isNull(contacts[key]) : eq(contacts[key], from);
		});
		const update = db
			.update(contacts)
			.set({
				...values,
				...(movedCustom.size > 0 ? { customFields: customFieldsWrite(contacts.customFields, movedCustom) } : {}),
				...consent,
				updatedAt: Math.max(now, current.updatedAt + 1),
			})
			.where(
				and(
					inWorkspace(workspaceId, id),
					expectsVersion(expected) ? eq(contacts.updatedAt, current.updatedAt) : undefined,
					...unchangedSinceRead,
					...customFieldsUnchanged(contacts.customFields, movedCustom),
					optedOut === undefined
						? undefined
						: wasOptedOut
							? eq(contacts.optedOutAt, current.optedOutAt ?? 0)
							: isNull(contacts.optedOutAt),
				),
			);
		const event = newEvent(
			'contact.updated',
			workspaceId,
			actor,
			{
				contact: contactEventView({ ...current, ...values }),
				...changesOf({
					...moved,
					...(optedOut === undefined ? {} : { optedOut: { from: wasOptedOut, to: optedOut } }),
					...customChangeEntries(movedCustom),
				}),
			},
			now,
		);
		const guard = definitionsGuard(workspaceId, 'contact', custom);
		const committed = await commit(
			db,
			{ statements: [...(guard ? [guard] : []), update], events: [{ event, onlyIf: IF_CHANGED }] },
			definitionGone(uniqueConflict),
		);
		if ((committed.results.at(-1)?.meta.changes ?? 0) > 0) {
			await release(env, committed.events);
			return;
		}
	}
	throw new Conflict(`Contact ${id} kept changing while this update was applied; retry.`);
}

export type ContactKey = { field: 'email'; value: string } | { field: 'phone'; value: string };

/**
 * Finds the contact with this e-mail or phone and applies `fields` to it, or creates it: safe under
 * concurrent identical calls, because the unique index decides (an insert that collides inserts nothing and
 * the call updates what the winner created). Returns the id and whether this call created it.
 */
export async function upsertContact(
	env: Env,
	db: Database,
	workspaceId: string,
	key: ContactKey,
	fields: ContactFields,
	actor: Actor,
	now = Date.now(),
): Promise<{ id: string; created: boolean }> {
	const column = contacts[key.field];
	const holder = () =>
		db
			.select({ id: contacts.id })
			.from(contacts)
			.where(and(eq(contacts.workspaceId, workspaceId), eq(column, key.value)))
			.get();
	const found = await holder();
	if (!found) {
		const custom = await checkedCustomValues(db, workspaceId, 'contact', fields.customFields ?? {}, {
			creating: true,
		});
		const row = newRow(workspaceId, { ...fields, [key.field]: key.value }, custom, now);
		const event = newEvent('contact.created', workspaceId, actor, { contact: contactEventView(row) }, now);
		const insert = db.insert(contacts).values(row).onConflictDoNothing();
		const guard = definitionsGuard(workspaceId, 'contact', custom);
		const committed = await commit(
			db,
			{ statements: [...(guard ? [guard] : []), insert], events: [{ event, onlyIf: IF_CHANGED }] },
			definitionGone(),
		);
		if ((committed.results.at(-1)?.meta.changes ?? 0) > 0) {
			await release(env, committed.events);
			return { id: row.id, created: true };
		}
	}
	// Found, or created by a concurrent call since the read above; with neither, the insert collided on the
	// other unique field.
	const existing = found ?? (await holder());
	if (!existing) {
		const other = key.field === 'email' ? 'phone' : 'e-mail';
		throw new Conflict(`Another contact of this workspace already has this ${other}.`);
	}
	await updateContact(env, db, workspaceId, existing.id, fields, actor, undefined, now);
	return { id: existing.id, created: false };
}
