import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { batchGuard, brokeGuard, type Database } from '../../db/client';
import { customFields } from '../../db/schema';
import { Conflict, type FieldProblem, Invalid } from '../../lib/errors';
import type { CustomValue } from '../../model/custom-fields';
import { type CustomFieldEntity, type DefinitionRow, plural } from './custom-fields';

const MAX_TEXT = 1000;

/** The workspace's definitions for one entity, by key: what a write of custom values is checked against. */
export async function definitionsOf(
	db: Database,
	workspaceId: string,
	entity: CustomFieldEntity,
): Promise<Map<string, DefinitionRow>> {
	const rows = await db
		.select()
		.from(customFields)
		.where(and(eq(customFields.workspaceId, workspaceId), eq(customFields.entity, entity)));
	return new Map(rows.map((row) => [row.key, row]));
}

declare const checked: unique symbol;

/**
 * Custom values that passed `checkCustomValues`: normalised to their type, null to clear. Domain functions
 * that write values take this type, so an unchecked value cannot reach a record.
 */
export type CheckedCustomValues = Readonly<Record<string, CustomValue | null>> & { readonly [checked]: true };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** A date as given when it is a real day (YYYY-MM-DD), a date-time as ISO 8601 UTC; null when neither. */
function dateValue(raw: string): string | null {
	const day = DATE.exec(raw.slice(0, 10));
	// A real day only: Date.parse would roll 2026-02-30 over into March.
	if (!day) return null;
	const midnight = new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])));
	if (!midnight.toISOString().startsWith(raw.slice(0, 10))) return null;
	if (raw.length === 10) return raw;
	if (!DATE_TIME.test(raw)) return null;
	const at = Date.parse(raw);
	return Number.isNaN(at) ? null : new Date(at).toISOString();
}

/**
 * One value normalised to its definition's type, or why it cannot be. Forms send everything as text, so a
 * number, a boolean or a date may come as its text ("42", "true", "2026-11-23"); a text field takes a number or
 * a boolean as its text.
 */
function normalise(definition: DefinitionRow, raw: unknown): { value: CustomValue } | { problem: string } {
	switch (definition.type) {
		case 'text': {
			// A page's scalar (identify's `seats: 3`) is kept as its text rather than refused.
			const value = typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : raw;
			return typeof value === 'string' && value.trim().length >= 1 && value.length <= MAX_TEXT
				? { value }
				: { problem: `must be text of 1 to ${MAX_TEXT} characters` };
		}
		case 'number': {
			const value = typeof raw === 'string' && NUMBER.test(raw.trim()) ? Number(raw.trim()) : raw;
			return typeof value === 'number' && Number.isFinite(value) ? { value } : { problem: 'must be a number' };
		}
		case 'boolean': {
			const value = raw === 'true' ? true : raw === 'false' ? false : raw;
			return typeof value === 'boolean' ? { value } : { problem: 'must be true or false' };
		}
		case 'date': {
			const value = typeof raw === 'string' ? dateValue(raw.trim()) : null;
			return value === null
				? { problem: 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time with its offset' }
				: { value };
		}
		case 'select':
			return typeof raw === 'string' && definition.options?.includes(raw)
				? { value: raw }
				: { problem: `must be one of ${definition.options?.join(', ')}` };
	}
}

/**
 * Checks custom values against the definitions: every key defined, every value of its type (null clears,
 * unless the field is required), and with `creating`, every required field given. Throws one Invalid naming
 * each bad key under `at` (the field the caller's input holds them in: `customFields`, `customData`).
 */
export function checkCustomValues(
	definitions: Map<string, DefinitionRow>,
	entity: CustomFieldEntity,
	values: Readonly<Record<string, unknown>>,
	options: { at?: string; creating?: boolean } = {},
): CheckedCustomValues {
	const at = options.at ?? 'customFields';
	const problems: FieldProblem[] = [];
	const result: Record<string, CustomValue | null> = {};
	for (const [key, raw] of Object.entries(values)) {
		const definition = definitions.get(key);
		if (!definition) {
			problems.push({
				path: [at, key],
				message: `no custom field "${key}" is defined for ${plural(entity)} (define it at /v3/custom-fields)`,
			});
		} else if (raw === null) {
			if (definition.required) problems.push({ path: [at, key], message: 'is required: it cannot be cleared' });
			else result[key] = null;
		} else {
			const outcome = normalise(definition, raw);
			if ('problem' in outcome) problems.push({ path: [at, key], message: outcome.problem });
			else result[key] = outcome.value;
		}
	}
	if (options.creating) {
		for (const definition of definitions.values()) {
			if (definition.required && values[definition.key] === undefined) {
				problems.push({ path: [at, definition.key], message: 'is required' });
			}
		}
	}
	if (problems.length > 0) {
		throw Invalid.fromProblems(problems);
	}
	return result as CheckedCustomValues;
}

/** Reads the entity's definitions and checks `values` against them (one D1 read; none for no values). */
export async function checkedCustomValues(
	db: Database,
	workspaceId: string,
	entity: CustomFieldEntity,
	values: Readonly<Record<string, unknown>>,
	options: { at?: string; creating?: boolean } = {},
): Promise<CheckedCustomValues> {
	if (Object.keys(values).length === 0 && !options.creating) return {} as CheckedCustomValues;
	return checkCustomValues(await definitionsOf(db, workspaceId, entity), entity, values, options);
}

/**
 * The batch guard that the definitions of the keys a write sets are still there when it runs (a definition
 * deleted since the check would otherwise get a value back under a key nobody defined); null for no key.
 */
export function definitionsGuard(workspaceId: string, entity: CustomFieldEntity, values: CheckedCustomValues) {
	const keys = Object.entries(values)
		.filter(([, value]) => value !== null)
		.map(([key]) => key);
	if (keys.length === 0) return null;
	return batchGuard(sql`(SELECT count(*) FROM custom_fields WHERE workspace_id = ${workspaceId} AND entity = ${entity}
		AND key IN (${sql.join(
			keys.map((key) => sql`${key}`),
			sql`, `,
		)})) = ${keys.length}`);
}

/** The 409 of a batch whose `definitionsGuard` failed; other errors go to `otherwise`. */
export function definitionGone(otherwise?: (error: unknown) => never) {
	return (error: unknown): never => {
		if (brokeGuard(error)) {
			throw new Conflict('A custom field of this write was deleted or changed at the same moment; retry.', {
				cause: error,
			});
		}
		if (otherwise) return otherwise(error);
		throw error;
	};
}

/** The JSON text of a stored value, for SQL that compares or writes it through `json()`. */
function jsonText(value: CustomValue | null): string {
	return JSON.stringify(value);
}

/** The values that differ from what the record holds, each from and to (a missing key holds null). */
export function customValueChanges(
	current: Readonly<Record<string, CustomValue | null>>,
	values: CheckedCustomValues,
): Map<string, { from: CustomValue | null; to: CustomValue | null }> {
	const moved = new Map<string, { from: CustomValue | null; to: CustomValue | null }>();
	for (const [key, to] of Object.entries(values)) {
		const from = current[key] ?? null;
		if (from !== to) moved.set(key, { from, to });
	}
	return moved;
}

/** The event changes of moved custom values, named `customFields.<key>`. */
export function customChangeEntries(moved: Map<string, { from: CustomValue | null; to: CustomValue | null }>) {
	return Object.fromEntries([...moved].map(([key, change]) => [`customFields.${key}`, change]));
}

/**
 * The new `custom_fields` of a record: each moved key set (or removed, for null) on its own, so values of
 * other keys written concurrently stay.
 */
export function customFieldsWrite(
	column: AnySQLiteColumn,
	moved: Map<string, { from: CustomValue | null; to: CustomValue | null }>,
): SQL {
	let expression: SQL = sql`${column}`;
	for (const [key, { to }] of moved) {
		expression =
			to === null
				? sql`json_remove(${expression}, ${`$.${key}`})`
				: sql`json_set(${expression}, ${`$.${key}`}, json(${jsonText(to)}))`;
	}
	return expression;
}

/** Conditions that hold while the record still has each moved key's `from` value (compare-and-set). */
export function customFieldsUnchanged(
	column: AnySQLiteColumn,
	moved: Map<string, { from: CustomValue | null; to: CustomValue | null }>,
): SQL[] {
	return [...moved].map(
		([key, { from }]) => sql`json_extract(${column}, ${`$.${key}`}) IS json_extract(${jsonText(from)}, '$')`,
	);
}

/** A condition on a record's custom value: equal to `value` (normalised by its definition). */
export function customValueEquals(column: AnySQLiteColumn, key: string, value: CustomValue): SQL {
	return sql`json_extract(${column}, ${`$.${key}`}) IS json_extract(${jsonText(value)}, '$')`;
}
