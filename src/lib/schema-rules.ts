/**
 * Rules between a body's fields, in JSON Schema 2020-12's own keywords, for a schema's `.openapi()`: what a
 * refinement checks (this field only with that one, that one required when this one is given, at least one of
 * these), stated in the API document for the clients that validate before they send. The generator copies
 * every keyword it is given into the document, but its metadata type (OpenAPI's Schema Object as openapi3-ts
 * writes it) lists only some of them (no `dependentRequired`, `if`, `then`): this is the one typed way past it.
 *
 * @example
 * z.strictObject({ ... }).refine(...).openapi('NewDeal', schemaRules({ dependentRequired: { value: ['currency'] } }))
 */
import { z } from '@hono/zod-openapi';

/** The JSON Schema keywords a rule is written with. */
export interface SchemaRule {
	type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';
	description?: string;
	const?: string | number | boolean | null;
	enum?: readonly (string | number | boolean | null)[];
	required?: readonly string[];
	properties?: Record<string, SchemaRule>;
	additionalProperties?: SchemaRule;
	minProperties?: number;
	maxProperties?: number;
	propertyNames?: SchemaRule;
	minItems?: number;
	uniqueItems?: boolean;
	dependentRequired?: Record<string, readonly string[]>;
	allOf?: readonly SchemaRule[];
	anyOf?: readonly SchemaRule[];
	oneOf?: readonly SchemaRule[];
	not?: SchemaRule;
	if?: SchemaRule;
	then?: SchemaRule;
	else?: SchemaRule;
	pattern?: string;
	minLength?: number;
	maxLength?: number;
}

/** What `.openapi()` takes, without the keys typed by the schema's own values (examples, defaults). */
type RuleMetadata = Omit<
	NonNullable<Parameters<z.ZodType['openapi']>[1]>,
	'example' | 'examples' | 'default' | 'param'
>;

/** The rule as `.openapi()` metadata: the keywords go into the document as they are written. */
export function schemaRules(rule: SchemaRule): RuleMetadata {
	// The keywords its type does not list are still copied as they are: the cast only widens the type.
	return rule as unknown as RuleMetadata;
}

/**
 * The rule "when `condition` holds, so must `consequence` (else `otherwise`)": JSON Schema's `if`, `then` and
 * `else`. A generated client ignores them, where `anyOf` and `oneOf` would change the types it writes.
 */
export function when(condition: SchemaRule, consequence: SchemaRule, otherwise?: SchemaRule): SchemaRule {
	return {
		if: condition,
		// biome-ignore lint/suspicious/noThenProperty: JSON Schema's keyword; its value is a schema, never called.
		then: branch(consequence),
		...(otherwise === undefined ? {} : { else: branch(otherwise) }),
	};
}

/**
 * A `then` or `else` with what it says of the fields' values moved into an `allOf` (the same meaning): the
 * example check of Redocly's recommended rules takes any other schema with `properties` as closed to the
 * fields it names, and would refuse a valid example for its other fields. Give such a branch a `required` too,
 * or the `allOf` stands alone, which the same rules take for a mistake.
 */
function branch(rule: SchemaRule): SchemaRule {
	const { properties, ...rest } = rule;
	return properties === undefined ? rule : { ...rest, allOf: [{ properties }] };
}

/**
 * A branch of a rule that holds when every one of `fields` is there, whatever its value. Each is named in
 * `properties` as well, as Redocly's recommended rules ask of every name in a `required`.
 */
export function present(...fields: string[]): SchemaRule {
	return { required: fields, properties: Object.fromEntries(fields.map((field) => [field, {}])) };
}

/** A branch of a rule that holds when one at least of `fields` is there. */
export function anyPresent(fields: readonly string[]): SchemaRule {
	return { anyOf: fields.map((field) => present(field)) };
}

/**
 * A branch of a rule that holds when `field` is present with a value of `type` (not null), and what that
 * means: the type keeps a generated client typing the field as it is, where a bare `{ required }` makes
 * openapi-typescript type it `unknown`. An object is open to any fields here (the field's own schema says
 * which), or openapi-typescript would type it as an object with none.
 */
export function given(field: string, type: NonNullable<SchemaRule['type']>, description: string): SchemaRule {
	const value: SchemaRule = type === 'object' ? { type, additionalProperties: {}, description } : { type, description };
	return { type: 'object', required: [field], properties: { [field]: value } };
}

/**
 * A trial run's body rule: a saved flow (`idField`, maybe a `version` of it) or an unsaved `definition`, exactly
 * one, as the bot simulation and the scenario test both take it (`what` names the flow: "bot", "scenario").
 */
export function savedOrUnsaved(idField: string, what: string): RuleMetadata {
	return schemaRules({
		description: `A saved ${what} (\`${idField}\`, maybe a \`version\`) or an unsaved \`definition\`: one of the two.`,
		oneOf: [
			given(idField, 'string', `Given: the saved ${what} runs (its draft, or \`version\`).`),
			given('definition', 'object', 'Given: this unsaved definition runs.'),
		],
		dependentRequired: { version: [idField] },
	});
}

/**
 * A named schema described for one of its uses (`draft: describedUse(botDefinitionSchema, 'The definition being
 * edited.')`). `.openapi({ description })` on the named schema itself would become the shared schema's own
 * description whenever this use is the first the generator meets; behind `z.lazy` the use is a `$ref` with its
 * own description beside it, and the shared schema keeps its own.
 */
export function describedUse<T extends z.ZodType>(schema: T, description: string) {
	return z.lazy(() => schema).openapi({ description });
}

/**
 * A record whose keys follow `key` (a custom field's name, a header's): zod checks each key, but the generator
 * writes only the values' schema (`additionalProperties`), so the keys' own schema, as zod itself converts it,
 * goes in as `propertyNames`.
 */
export function keyedRecord<K extends z.core.$ZodRecordKey, V extends z.ZodType>(key: K, value: V) {
	const { $schema: _, ...names } = z.toJSONSchema(key, { io: 'input' });
	return z.record(key, value).openapi(schemaRules({ propertyNames: names as SchemaRule }));
}
