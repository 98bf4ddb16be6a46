/**
 * Custom fields: the workspace's definitions of the extra values its contacts and deals hold (key, label,
 * type, options, required), one function per operation for the /v3/custom-fields routes. Deleting a definition
 * removes its values everywhere (and moves those records' `updated_at`). The values themselves, checked
 * against these definitions on every write, are in custom-values.ts.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, or, sql } from 'drizzle-orm';
import { brokeVersionGuard, type Database, type Statement, versionGuard, violatesUnique } from '../../db/client';
import { CUSTOM_FIELD_ENTITIES, CUSTOM_FIELD_TYPES, customFields } from '../../db/schema';
import { commit, IF_CHANGED, release } from '../../events/commit';
import { pageOf } from '../../lib/cursor';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { assertVersion, changedSince, type ExpectedVersion, expectsVersion } from '../../lib/expected-version';
import { iso, newId } from '../../lib/ids';
import { present, schemaRules, when } from '../../lib/schema-rules';
import type { Actor } from '../../model/actor';
import { customFieldKey } from '../../model/custom-fields';
import { changesOf, newEvent } from '../../model/events';

export type CustomFieldEntity = (typeof CUSTOM_FIELD_ENTITIES)[number];
export type DefinitionRow = typeof customFields.$inferSelect;

/** Definitions a workspace may have per entity (Intercom allows a few hundred; forms show far fewer). */
export const MAX_DEFINITIONS = 100;

const option = z.string().trim().min(1).max(80);
const options = z
	.array(option)
	.min(1)
	.max(100)
	.refine((list) => new Set(list).size === list.length, 'options must be unique')
	.openapi({ uniqueItems: true });

export const customFieldDefinitionSchema = z
	.object({
		id: z.string().openapi({ description: 'The definition id.', example: 'cf_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		entity: z.enum(CUSTOM_FIELD_ENTITIES).openapi({ description: 'What holds the values: contacts or deals.' }),
		key: z.string().openapi({ description: 'The name values are stored under (in `customFields`).' }),
		label: z.string().openapi({ description: 'What people see.' }),
		type: z.enum(CUSTOM_FIELD_TYPES).openapi({ description: 'What a value must be.' }),
		options: z.array(z.string()).nullable().openapi({ description: 'The choices of a `select` field; else null.' }),
		required: z.boolean().openapi({
			description: 'A contact or deal created through the API must have a value, and no write may clear it.',
		}),
		createdAt: z.string().openapi({ description: 'When it was defined (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When it last changed (ISO 8601).' }),
	})
	.openapi('CustomFieldDefinition');

export type CustomFieldDefinition = z.infer<typeof customFieldDefinitionSchema>;

export const newCustomFieldSchema = z
	.strictObject({
		entity: z.enum(CUSTOM_FIELD_ENTITIES).openapi({ description: 'Contacts or deals.' }),
		key: customFieldKey.openapi({
			description: 'Unique per entity in the workspace; fixed once created.',
			example: 'plan',
		}),
		label: z.string().trim().min(1).max(80).openapi({ description: 'What people see.', example: 'Plan' }),
		type: z.enum(CUSTOM_FIELD_TYPES).openapi({
			description:
				'`text` (up to 1000 characters), `number`, `date` (YYYY-MM-DD or an ISO 8601 date-time), `boolean`, or `select` (one of `options`). Fixed once created.',
		}),
		options: options.optional().openapi({ description: 'The choices of a `select` field (and only of one).' }),
		required: z.boolean().default(false).openapi({ description: 'See the definition.' }),
	})
	.refine((f) => (f.type === 'select') === (f.options !== undefined), {
		message: 'a select field needs its options, and only a select field has options',
		path: ['options'],
	})
	// The refinement above is invisible to the generator: the document states it for clients that validate.
	.openapi(
		'NewCustomField',
		schemaRules(
			when({ required: ['type'], properties: { type: { const: 'select' } } }, present('options'), {
				not: present('options'),
			}),
		),
	);

export const customFieldChangesSchema = z
	.strictObject({
		label: z.string().trim().min(1).max(80).optional().openapi({ description: 'What people see.' }),
		options: options.optional().openapi({
			description:
				'The new choices of a `select` field (refused on the other types). Values already stored keep their option until next written.',
		}),
		required: z.boolean().optional().openapi({ description: 'See the definition.' }),
	})
	.refine((f) => Object.keys(f).length > 0, 'give at least one of label, options, required')
	.openapi('CustomFieldChanges', { minProperties: 1 });

export const customFieldFiltersSchema = z.strictObject({
	entity: z.enum(CUSTOM_FIELD_ENTITIES).optional().openapi({ description: 'Only the fields of contacts, or deals.' }),
});

/** Position in the definition list: by entity, then key. */
export const customFieldCursor = z.object({ entity: z.enum(CUSTOM_FIELD_ENTITIES), key: z.string() });

function definitionView(row: DefinitionRow): CustomFieldDefinition {
	return {
		id: row.id,
		entity: row.entity,
		key: row.key,
		label: row.label,
		type: row.type,
		options: row.options,
		required: row.required,
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
	};
}

const summary = (row: DefinitionRow) => ({ id: row.id, entity: row.entity, key: row.key });
/** The records of an entity, as a message names them. */
export const plural = (entity: CustomFieldEntity) => (entity === 'contact' ? 'contacts' : 'deals');

/** One page of the workspace's definitions, by entity then key, in one statement. */
export async function listCustomFields(
	db: Database,
	workspaceId: string,
	entity: CustomFieldEntity | undefined,
	after: z.infer<typeof customFieldCursor> | null,
	limit: number,
) {
	const c = customFields;
	const rows = await db
		.select()
		.from(c)
		.where(
			and(
				eq(c.workspaceId, workspaceId),
				entity === undefined ? undefined : eq(c.entity, entity),
				after === null
					? undefined
					: or(gt(c.entity, after.entity), and(eq(c.entity, after.entity), gt(c.key, after.key))),
			),
		)
		.orderBy(asc(c.entity), asc(c.key))
		.limit(limit + 1);
	return pageOf(rows, limit, definitionView, (row) => ({ entity: row.entity, key: row.key }));
}

async function definitionById(db: Database, workspaceId: string, id: string): Promise<DefinitionRow> {
	const row = await db
		.select()
		.from(customFields)
		.where(and(eq(customFields.workspaceId, workspaceId), eq(customFields.id, id)))
		.get();
	if (!row) throw new NotFound(`Custom field ${id} not found.`);
	return row;
}

export async function getCustomField(db: Database, workspaceId: string, id: string): Promise<CustomFieldDefinition> {
	return definitionView(await definitionById(db, workspaceId, id));
}

/**
 * Defines a field, with its `custom_field.created` event. A key the entity already has is a 409, as is a
 * definition past the workspace's limit: the insert itself counts, so concurrent creates cannot pass it.
 */
export async function createCustomField(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newCustomFieldSchema>,
	actor: Actor,
	now = Date.now(),
): Promise<CustomFieldDefinition> {
	const row: DefinitionRow = {
		id: newId('cf', now),
		workspaceId,
		entity: input.entity,
		key: input.key,
		label: input.label,
		type: input.type,
		options: input.options ?? null,
		required: input.required,
		createdAt: now,
		updatedAt: now,
	};
	const insert = sql`INSERT INTO custom_fields (id, workspace_id, entity, key, label, type, options, required, created_at, updated_at)
		SELECT ${row.id}, ${workspaceId}, ${row.entity}, ${row.key}, ${row.label}, ${row.type},
			${row.options === null ? null : JSON.stringify(row.options)}, ${row.required ? 1 : 0}, ${now}, ${now}
		WHERE (SELECT count(*) FROM custom_fields WHERE workspace_id = ${workspaceId} AND entity = ${row.entity}) < ${MAX_DEFINITIONS}`;
	const event = newEvent('custom_field.created', workspaceId, actor, { customField: summary(row) }, now);
	const committed = await commit(db, { statements: [insert], events: [{ event, onlyIf: IF_CHANGED }] }, (error) => {
		if (violatesUnique(error, 'custom_fields.')) {
			throw new Conflict(`The ${plural(row.entity)} of this workspace already have a field "${row.key}".`, {
				cause: error,
			});
		}
		throw error;
	});
	if ((committed.results[0]?.meta.changes ?? 0) === 0) {
		throw new Conflict(
			`The workspace has ${MAX_DEFINITIONS} custom fields for ${plural(row.entity)}, the most it may have: delete one first.`,
		);
	}
	await release(env, committed.events);
	return definitionView(row);
}

/**
 * Changes a definition's label, options or required flag, with a `custom_field.updated` event saying each
 * from and to; nothing when nothing moves. Options belong to select fields only. The write applies only while
 * the row is as read (its `updated_at`), else a 409.
 */
export async function updateCustomField(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	input: z.infer<typeof customFieldChangesSchema>,
	actor: Actor,
	/** Why the definition cannot become `after` (the pre-chat form offers an option it would refuse), or null. */
	refuse: (after: CustomFieldDefinition) => Promise<string | null> = async () => null,
	/** The version the change was computed from (If-Match): applied only while it is current, else a 412. */
	expected?: ExpectedVersion,
	now = Date.now(),
): Promise<CustomFieldDefinition> {
	const current = await definitionById(db, workspaceId, id);
	assertVersion(expected, current.updatedAt, `Custom field ${id}`);
	if (input.options !== undefined && current.type !== 'select') {
		throw new Invalid(`only a select field has options; this one is ${current.type}`, { field: ['options'] });
	}
	const moved: Partial<Record<'label' | 'options' | 'required', { from: unknown; to: unknown }>> = {};
	if (input.label !== undefined && input.label !== current.label)
		moved.label = { from: current.label, to: input.label };
	if (input.required !== undefined && input.required !== current.required) {
		moved.required = { from: current.required, to: input.required };
	}
	if (input.options !== undefined && JSON.stringify(input.options) !== JSON.stringify(current.options)) {
		moved.options = { from: current.options, to: input.options };
	}
	if (Object.keys(moved).length === 0) return definitionView(current);
	const updated: DefinitionRow = {
		...current,
		label: input.label ?? current.label,
		required: input.required ?? current.required,
		options: input.options ?? current.options,
		updatedAt: Math.max(now, current.updatedAt + 1),
	};
	const reason = await refuse(definitionView(updated));
	if (reason !== null) throw new Conflict(reason);
	const update = db
		.update(customFields)
		.set({ label: updated.label, required: updated.required, options: updated.options, updatedAt: updated.updatedAt })
		.where(
			and(
				eq(customFields.workspaceId, workspaceId),
				eq(customFields.id, id),
				eq(customFields.updatedAt, current.updatedAt),
			),
		);
	const payload = { customField: summary(current), ...changesOf(moved) };
	const event = newEvent('custom_field.updated', workspaceId, actor, payload, now);
	const committed = await commit(db, { statements: [update], events: [{ event, onlyIf: IF_CHANGED }] });
	if ((committed.results[0]?.meta.changes ?? 0) === 0) {
		if (expectsVersion(expected)) throw changedSince(`Custom field ${id}`);
		throw new Conflict(`Custom field ${id} changed while this update was applied; retry.`);
	}
	await release(env, committed.events);
	return definitionView(updated);
}

/**
 * Deletes a definition and its values from every contact or deal of the workspace, in one batch, with a
 * `custom_field.deleted` event (no `contact.updated` for each record, as a tag's deletion). `inUse` may refuse
 * first, with the reason (the widget's pre-chat form asking for the field).
 */
export async function deleteCustomField(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	actor: Actor,
	inUse: (definition: CustomFieldDefinition) => Promise<string | null>,
	/** The version the caller read (If-Match): deleted only while it is current, else a 412. */
	expected?: ExpectedVersion,
	now = Date.now(),
): Promise<void> {
	const current = await definitionById(db, workspaceId, id);
	assertVersion(expected, current.updatedAt, `Custom field ${id}`);
	const reason = await inUse(definitionView(current));
	if (reason !== null) throw new Conflict(reason);
	const path = `$.${current.key}`;
	const table = current.entity === 'contact' ? sql`contacts` : sql`deals`;
	const mine = and(eq(customFields.workspaceId, workspaceId), eq(customFields.id, id));
	const atVersion = sql`EXISTS (SELECT 1 FROM ${customFields} WHERE ${and(mine, eq(customFields.updatedAt, current.updatedAt))})`;
	const statements: Statement[] = [
		...(expectsVersion(expected) ? [versionGuard(atVersion)] : []),
		// updated_at moves too: a write computed from the record before (a merge, a deal update) is refused by
		// its compare-and-set rather than writing the value back.
		sql`UPDATE ${table} SET custom_fields = json_remove(custom_fields, ${path}), updated_at = max(updated_at + 1, ${now})
			WHERE workspace_id = ${workspaceId} AND json_type(custom_fields, ${path}) IS NOT NULL`,
		db.delete(customFields).where(and(eq(customFields.workspaceId, workspaceId), eq(customFields.id, id))),
	];
	const event = newEvent('custom_field.deleted', workspaceId, actor, { customField: summary(current) }, now);
	const committed = await commit(db, { statements, events: [{ event, onlyIf: IF_CHANGED }] }, (error) => {
		if (brokeVersionGuard(error)) throw changedSince(`Custom field ${id}`);
		throw error;
	});
	await release(env, committed.events);
}
