/**
 * The builders read the API's own JSON Schemas (`virtual:step-schemas`, cut from docs/openapi.json at build
 * time): which step types a bot or a scenario has, each type's fields with their descriptions, which fields
 * are links to other steps, and what a new step of a type needs to be valid. One source of truth: the form of
 * a field the API adds appears without a console change.
 */
import schemas from 'virtual:step-schemas';
import { LINK_FIELDS, LINK_LISTS } from '../../../../src/model/step-links';
import { t } from '../../i18n';
import { en } from '../../words/builder';

export interface JsonSchema {
	type?: string | string[];
	properties?: Record<string, JsonSchema>;
	required?: string[];
	additionalProperties?: boolean | JsonSchema;
	items?: JsonSchema;
	enum?: unknown[];
	oneOf?: JsonSchema[];
	anyOf?: JsonSchema[];
	allOf?: JsonSchema[];
	$ref?: string;
	description?: string;
	default?: unknown;
	example?: unknown;
	pattern?: string;
	minimum?: number;
	maximum?: number;
	minLength?: number;
	maxLength?: number;
	minItems?: number;
	maxItems?: number;
	/** The values sibling fields must have for this one to mean anything (`{ input: ['rating'] }`). */
	'x-applies-when'?: Record<string, unknown[]>;
}

export type DocumentKind = 'bot' | 'scenario';

export interface Step {
	id: string;
	type: string;
	title?: string;
	[field: string]: unknown;
}

export interface Definition {
	start: string;
	steps: Step[];
}

/** A schema with its `$ref` (and a single `allOf` wrapper) followed. */
export function resolve(schema: JsonSchema): JsonSchema {
	let current = schema;
	for (let i = 0; i < 10; i++) {
		if (current.$ref) {
			const name = current.$ref.split('/').pop() ?? '';
			current = { ...schemas[name], description: current.description ?? schemas[name]?.description };
		} else if (current.allOf) {
			// `allOf: [{ $ref }, { description }]`: the API's way to describe one use of a shared schema.
			const parts = current.allOf.map(resolve);
			const description = current.description ?? [...parts].reverse().find((part) => part.description)?.description;
			current = { ...Object.assign({}, ...parts), description };
		} else return current;
	}
	return current;
}

export function named(name: string): JsonSchema {
	return schemas[name] ?? {};
}

const documents: Record<DocumentKind, string> = { bot: 'BotDefinition', scenario: 'ScenarioDefinition' };

export interface StepType {
	type: string;
	/** The API's description of the type: "Send Message.", "Data Entry: asks, checks and keeps an answer." */
	description: string;
	schema: JsonSchema;
}

/** The step types of a document, in the API's order (the spec's table's). */
export function stepTypes(kind: DocumentKind): StepType[] {
	const steps = named(documents[kind]).properties?.steps?.items?.oneOf ?? [];
	return steps.map((schema) => {
		const type = schema.properties?.type;
		return { type: String(type?.enum?.[0]), description: type?.description ?? '', schema };
	});
}

export function stepType(kind: DocumentKind, type: string): StepType | undefined {
	return stepTypes(kind).find((t) => t.type === type);
}

/** The name of a type ("Data entry"); a type the console has no words for yet: its description's first words. */
export function typeLabel(kind: DocumentKind, type: string): string {
	const key = `builder.type.${type}`;
	if (key in en) return t(key as keyof typeof en);
	const description = stepType(kind, type)?.description ?? type;
	return description.split(/[:.,(]/)[0]?.trim() || type;
}

/** One way out of a step: a handle on its node, and where in the step the link is kept. */
export interface Outlet {
	handle: string;
	path: (string | number)[];
	/** What the outlet means: `next`, `choices.0` (its label shown), `branches.1`, `onError`… */
	label: string;
	required: boolean;
	target: string | undefined;
}

/** The outlets of a step: every link field its type has, and one per button choice or decision branch. */
export function outlets(kind: DocumentKind, step: Step): Outlet[] {
	const schema = stepType(kind, step.type)?.schema;
	const properties = schema?.properties ?? {};
	const required = new Set(schema?.required ?? []);
	const found: Outlet[] = [];
	for (const list of LINK_LISTS) {
		const items = step[list];
		const linked = properties[list] && linkedItem(resolve(properties[list]).items);
		// A list whose items cannot link (a scenario message's buttons are labels only) has no outlets.
		if (!linked || !Array.isArray(items)) continue;
		const itemRequired = linked.required?.includes('next') ?? false;
		items.forEach((entry: string | { next?: string; label?: string }, i) => {
			const item = listItem(entry);
			found.push({
				handle: `${list}.${i}.next`,
				path: [list, i, 'next'],
				label: list === 'branches' ? `#${i + 1}` : String(item.label ?? i + 1),
				required: itemRequired,
				target: item.next,
			});
		});
	}
	for (const field of LINK_FIELDS) {
		if (!properties[field]) continue;
		const target = step[field];
		found.push({
			handle: field,
			path: [field],
			label: field,
			required: required.has(field),
			target: typeof target === 'string' ? target : undefined,
		});
	}
	return found;
}

/**
 * Whether the field `property` of an object means anything with the object's other values as they are (the
 * API's `x-applies-when`; a sibling not given counts as its default): a rating's reason prompt on a rating only.
 */
export function applies(object: JsonSchema, property: JsonSchema, value: Record<string, unknown>): boolean {
	const when = property['x-applies-when'];
	if (!when) return true;
	return Object.entries(when).every(([sibling, allowed]) =>
		allowed.includes(value[sibling] ?? resolve(object.properties?.[sibling] ?? {}).default),
	);
}

/** The object form of a list's items when it has a `next` (a choice, a branch, a button written in full). */
function linkedItem(items: JsonSchema | undefined): JsonSchema | undefined {
	if (!items) return undefined;
	const item = resolve(items);
	if (item.properties?.next) return item;
	return (item.anyOf ?? item.oneOf)?.map(resolve).find((variant) => variant.properties?.next);
}

/** A list item as an object: a button written as its label alone is `{ label }` (it links nowhere of its own). */
export function listItem<T extends object>(item: string | T): T | { label: string; next?: undefined } {
	return typeof item === 'string' ? { label: item } : item;
}

/** Whether a field of a step is a link (drawn as an edge, picked in the form among the steps). */
export function isLinkField(key: string): boolean {
	return LINK_FIELDS.includes(key);
}

/**
 * A value that satisfies `schema`'s required fields, for a new step or list item: the default, the first
 * enum value, an empty string or list, a required nested object filled the same way. The API still judges it;
 * empty texts come back as problems on the node, which is where the builder should look next.
 */
export function blank(schema: JsonSchema): unknown {
	const s = resolve(schema);
	if (s.default !== undefined) return structuredClone(s.default);
	if (s.enum) return s.enum[0];
	if (s.oneOf?.[0]) return blank(s.oneOf[0]);
	if (s.anyOf?.[0]) return blank(s.anyOf[0]);
	const type = Array.isArray(s.type) ? s.type[0] : s.type;
	switch (type) {
		case 'object': {
			const value: Record<string, unknown> = {};
			for (const key of s.required ?? []) {
				const property = s.properties?.[key];
				if (property && !isLinkField(key)) value[key] = blank(property);
			}
			return value;
		}
		case 'array':
			return s.minItems && s.items ? Array.from({ length: s.minItems }, () => blank(s.items as JsonSchema)) : [];
		case 'number':
		case 'integer':
			return s.minimum ?? 0;
		case 'boolean':
			return false;
		case 'null':
			return null;
		default:
			return '';
	}
}

/** A new step of `type` with an id no other step has (`ask-email`, `send_message-2`). */
export function newStep(kind: DocumentKind, type: string, taken: Set<string>): Step {
	const schema = stepType(kind, type)?.schema ?? {};
	const base = type.replace(/_/g, '-');
	let id = base;
	for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
	return { ...(blank(schema) as object), id, type } as Step;
}

/** A copy of `value` with `path` set to `next` (removed when `next` is undefined). */
export function setIn<T>(value: T, path: readonly (string | number)[], next: unknown): T {
	if (path.length === 0) return next as T;
	const [key, ...rest] = path as [string | number, ...(string | number)[]];
	const copy: Record<string | number, unknown> | unknown[] = Array.isArray(value)
		? [...value]
		: { ...(value as object) };
	const child = (copy as Record<string | number, unknown>)[key];
	const updated = rest.length === 0 ? next : setIn(child ?? (typeof rest[0] === 'number' ? [] : {}), rest, next);
	if (updated === undefined && !Array.isArray(copy)) delete (copy as Record<string | number, unknown>)[key];
	else (copy as Record<string | number, unknown>)[key] = updated;
	return copy as T;
}
