/**
 * Which contacts a filter selects: the contact list's query filters (`GET /v3/contacts`) and a campaign's
 * saved audience are the same criteria, turned into one SQL condition here, so a marketer can list exactly
 * the contacts a campaign will go to before sending it.
 */
import { z } from '@hono/zod-openapi';
import { and, gte, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Database } from '../../db/client';
import { contacts } from '../../db/schema';
import { type InputSource, Invalid } from '../../lib/errors';
import { booleanParam, tagNameSchema } from '../conversations/conversations';
import { checkCustomValues, customValueEquals, definitionsOf } from './custom-values';

/** Which origin the campaign filters look at: the first visit, the latest, or either. */
export const touchSchema = z.enum(['first', 'last', 'any']);

/** What a filter selects, whichever way it was written. Each criterion given narrows the selection. */
export interface ContactCriteria {
	q?: string;
	/** Carrying every one of these tags. */
	tags?: readonly string[];
	/** Custom values by key, as given (checked against the definitions, as a write would be). */
	customFields?: Readonly<Record<string, unknown>>;
	utmSource?: string;
	utmMedium?: string;
	utmCampaign?: string;
	hasGclid?: boolean;
	hasFbclid?: boolean;
	touch: z.infer<typeof touchSchema>;
	createdSince?: number;
	updatedSince?: number;
}

/** Where a criterion came from, for the 422 a bad custom value gets: a query parameter or a body's field. */
export interface CriteriaSource {
	source: InputSource;
	/** The path of the custom values, before the key (`['audience', 'customFields']`); the key is appended. */
	customFieldsAt: readonly (string | number)[];
	/** Where the key goes: appended to the path (a body) or left out (the query's single `customField`). */
	keyInPath: boolean;
}

const since = (what: string) =>
	z.iso
		.datetime({ offset: true })
		.transform((at) => Date.parse(at))
		.optional()
		.openapi({ description: `Only contacts ${what} at or after this instant.`, example: '2026-11-01T00:00:00Z' });

const origin = {
	utmSource: z.string().max(255).optional().openapi({ description: 'Only this campaign source (utm_source).' }),
	utmMedium: z.string().max(255).optional().openapi({ description: 'Only this campaign medium (utm_medium).' }),
	utmCampaign: z.string().max(255).optional().openapi({ description: 'Only this campaign (utm_campaign).' }),
};

/** Filters of the contact list. Strict: a misspelt filter is refused rather than silently ignored. */
export const contactFiltersSchema = z.strictObject({
	q: z
		.string()
		.trim()
		.min(1)
		.max(200)
		.optional()
		.openapi({ description: 'Only contacts whose name, e-mail or phone contains this text (any case).' }),
	tag: tagNameSchema.optional().openapi({ description: 'Only contacts carrying this tag.' }),
	...origin,
	hasGclid: booleanParam
		.optional()
		.openapi({ description: 'Only contacts that came (or did not come) from a search-ad click.' }),
	hasFbclid: booleanParam
		.optional()
		.openapi({ description: 'Only contacts that came (or did not come) from a social-ad click.' }),
	touch: touchSchema.default('any').openapi({
		description: 'Which origin the campaign filters look at: the first visit, the latest, or either (the default).',
	}),
	customField: z
		.string()
		.regex(/^[A-Za-z][A-Za-z0-9_]{0,39}:.+$/, 'must be key:value')
		.max(1100)
		.optional()
		.openapi({
			description:
				'Only contacts whose custom field `key` holds `value` (as its definition reads it: `plan:pro`, `seats:10`, `trial:true`).',
			example: 'plan:pro',
		}),
	createdSince: since('created'),
	updatedSince: since('updated'),
});

export type ContactFilters = z.infer<typeof contactFiltersSchema>;

/** The list's query filters as criteria. */
export function criteriaOfQuery(filters: ContactFilters): ContactCriteria {
	const { tag, customField, ...rest } = filters;
	const split = customField?.indexOf(':') ?? -1;
	return {
		...rest,
		tags: tag === undefined ? undefined : [tag],
		customFields:
			customField === undefined ? undefined : { [customField.slice(0, split)]: customField.slice(split + 1) },
	};
}

export const QUERY_SOURCE: CriteriaSource = { source: 'query', customFieldsAt: ['customField'], keyInPath: false };

/** A value of an origin column (JSON), for the campaign filters. */
function originValue(column: AnySQLiteColumn, key: string): SQL {
	return sql`json_extract(${column}, ${`$.${key}`})`;
}

/** A campaign filter on the touch asked for: the first origin, the latest, or either. */
function onTouch(touch: ContactCriteria['touch'], test: (column: AnySQLiteColumn) => SQL): SQL {
	if (touch === 'first') return test(contacts.firstOrigin);
	if (touch === 'last') return test(contacts.lastOrigin);
	return sql`(${test(contacts.firstOrigin)} OR ${test(contacts.lastOrigin)})`;
}

/**
 * `LIKE` text matching `text` anywhere, with its own `%`, `_` and `\` taken literally. SQLite's `LIKE` ignores
 * the case of ASCII letters only (D1 has no ICU): "ângela" does not find "Ângela", "angela" does not either.
 */
function containing(text: string): string {
	return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The conditions of custom values: each value read as its key's definition reads a written one, so `seats:10`
 * finds the number 10 and `trial:true` the boolean. An undefined key or a value its field could never hold
 * is a 422 on the field it came from.
 */
async function customFieldConditions(
	db: Database,
	workspaceId: string,
	values: Readonly<Record<string, unknown>>,
	from: CriteriaSource,
): Promise<SQL[]> {
	try {
		const checked = checkCustomValues(await definitionsOf(db, workspaceId, 'contact'), 'contact', values);
		return Object.keys(values).map((key) => customValueEquals(contacts.customFields, key, checked[key] ?? ''));
	} catch (error) {
		if (!(error instanceof Invalid)) throw error;
		const problems = error.problems.map((problem) => {
			const key = String(problem.path.at(-1));
			return {
				path: from.keyInPath ? [...from.customFieldsAt, key] : [...from.customFieldsAt],
				message: from.keyInPath ? problem.message : `${key} ${problem.message}`,
				source: from.source,
			};
		});
		throw Invalid.fromProblems(problems);
	}
}

/**
 * The SQL condition on `contacts` (besides its workspace) that selects what `criteria` describe; one D1 read
 * for the custom field definitions when custom values are given, none otherwise.
 */
export async function contactsMatching(
	db: Database,
	workspaceId: string,
	criteria: ContactCriteria,
	from: CriteriaSource,
): Promise<SQL | undefined> {
	const c = contacts;
	const campaign = (key: string, value: string | undefined) =>
		value === undefined ? undefined : onTouch(criteria.touch, (column) => sql`${originValue(column, key)} = ${value}`);
	const click = (key: string, wanted: boolean | undefined) => {
		if (wanted === undefined) return undefined;
		const came = onTouch(
			criteria.touch,
			(column) => sql`(${originValue(column, key)} IS NOT NULL AND ${originValue(column, key)} != '')`,
		);
		return wanted ? came : sql`NOT ${came}`;
	};
	const pattern = criteria.q === undefined ? undefined : containing(criteria.q);
	const custom =
		criteria.customFields === undefined || Object.keys(criteria.customFields).length === 0
			? []
			: await customFieldConditions(db, workspaceId, criteria.customFields, from);
	return and(
		...custom,
		pattern === undefined
			? undefined
			: sql`(${c.name} LIKE ${pattern} ESCAPE '\\' OR ${c.email} LIKE ${pattern} ESCAPE '\\' OR ${c.phone} LIKE ${pattern} ESCAPE '\\')`,
		...(criteria.tags ?? []).map(
			(tag) =>
				sql`EXISTS (SELECT 1 FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.contact_id = ${c.id} AND t.workspace_id = ${workspaceId} AND t.name = ${tag})`,
		),
		campaign('utmSource', criteria.utmSource),
		campaign('utmMedium', criteria.utmMedium),
		campaign('utmCampaign', criteria.utmCampaign),
		click('gclid', criteria.hasGclid),
		click('fbclid', criteria.hasFbclid),
		criteria.createdSince === undefined ? undefined : gte(c.createdAt, criteria.createdSince),
		criteria.updatedSince === undefined ? undefined : gte(c.updatedAt, criteria.updatedSince),
	);
}
