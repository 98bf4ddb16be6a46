/**
 * What the API document says of a value, turned into changes of it that a server must judge as the document
 * does (test/openapi-bodies.test.ts sends them as request bodies; test/openapi-definitions.test.ts hands bot
 * and scenario definitions to the checks that save them). The walk goes down every field the document
 * describes, into nested objects and the object items of arrays, as far as the value has them:
 * - a field left out: refused when the document refuses the object without it (`required`, a presence rule),
 *   else no refusal may name it;
 * - a value just past each bound the document puts on a field (lengths, range, pattern, `format: uri` or
 *   `email`): refused, naming the field;
 * - an e-mail field holding the address `format: email` alone admits: refused, naming the field, exactly when
 *   the field's `pattern` (the server's rule) refuses it.
 */
import { type ApiDocument, type Body, type Json, type Schema, without } from './openapi-replay';

/** One change to a value, and what the document says of it. */
export interface Probe {
	/** The field changed, from the value's root: `definition.steps.3.seconds`. */
	field: string;
	/** What was done to it: `left out`, `past its maximum (604801)`. */
	change: string;
	/** The whole value, with that one change. */
	value: Body;
	/** `refused`: refused at all (a presence rule may name another field); `refused here`: naming the field; `allowed`: no refusal names it. */
	expected: 'refused' | 'refused here' | 'allowed';
}

/** How a server judged a value: whether it refused it, and the fields its refusal names (`steps.3.seconds`). */
export interface Verdict {
	refused: boolean;
	fields: string[];
}

/** What `format: email` admits and no mail reaches: a domain without a dot. */
export const UNDELIVERABLE = '0@com';

/**
 * Every change the document has something to say of, for the value `root` of `schema`. With `farOut`, also a
 * count or a text far past anything reasonable in each field the document bounds in no way: allowed, since the
 * document states no bound there (a bound the server keeps unstated shows as its refusal).
 */
export function probes(doc: ApiDocument, schema: Schema, root: Body, farOut = false): Probe[] {
	const found: Probe[] = [];
	const visitObject = (s: Schema, node: Body, path: (string | number)[]) => {
		for (const key of Object.keys(node)) {
			const described = describedField(s, key);
			// An open object's other fields (a step's, described by its `type` elsewhere): nothing is said of them here.
			if (described === undefined) continue;
			const at = [...path, key];
			const field = at.join('.');
			const rest = without(node, key);
			const expected = doc.admits(s, rest) ? 'allowed' : 'refused';
			found.push({ field, change: 'left out', value: replaced(root, path, rest), expected });
			visitValue(described, node[key], at);
			// A field of several bounded alternatives (a logo: an https URL, or an uploaded logo's path) is not
			// derived: a value past one alternative's bound can be another's, and past them all needs each rule read.
			const value = doc.valueSchema(described);
			if (value === undefined) continue;
			for (const past of valuesPast(value, node[key])) {
				const sent = JSON.stringify(past.value).slice(0, 40);
				const change = `past its ${past.bound} (${sent})`;
				found.push({ field, change, value: replaced(root, at, past.value), expected: 'refused here' });
			}
			if (value.format === 'email') {
				const admitted = value.pattern === undefined || new RegExp(value.pattern, 'u').test(UNDELIVERABLE);
				const change = `${UNDELIVERABLE}, which its pattern ${admitted ? 'admits' : 'refuses'}`;
				const verdict = admitted ? 'allowed' : 'refused here';
				found.push({ field, change, value: replaced(root, at, UNDELIVERABLE), expected: verdict });
			}
			const far = farOut ? unbounded(value) : undefined;
			if (far !== undefined) {
				const change = `far out (${JSON.stringify(far).slice(0, 20)}…), where no bound is stated`;
				found.push({ field, change, value: replaced(root, at, far), expected: 'allowed' });
			}
		}
	};
	const visitValue = (s: Schema, value: Json | undefined, path: (string | number)[]) => {
		if (isBody(value)) {
			const branch = doc.branchFor(s, value);
			if (branch) visitObject(branch, value, path);
		} else if (Array.isArray(value) && s.items) {
			const items = s.items;
			value.forEach((item, i) => {
				visitValue(items, item, [...path, i]);
			});
		}
	};
	visitObject(doc.resolved(schema), root, []);
	return found;
}

/** Why `verdict` is not what the document says of `probe`, or undefined when it is. */
export function disagreement(probe: Probe, verdict: Verdict): string | undefined {
	const named = verdict.fields.some((f) => f === probe.field || f.startsWith(`${probe.field}.`));
	if (probe.expected === 'refused' && !verdict.refused) return 'the document refuses it, the server does not';
	if (probe.expected === 'refused here' && !(verdict.refused && named)) {
		return 'the document refuses it, the server does not name it';
	}
	if (probe.expected === 'allowed' && verdict.refused && named) return 'the document allows it, the server refuses it';
	return undefined;
}

/**
 * A value far past anything reasonable for a field the document bounds in no way: a whole number without a
 * `maximum`, a text without a length, pattern, format or list of values. Undefined for any other field (a
 * number that may be a fraction can be bounded by a sibling, `min` by `max`, which only prose can state).
 */
function unbounded(s: Schema): Json | undefined {
	const types = ([] as string[]).concat(s.type ?? []);
	if (types.includes('integer') && s.maximum === undefined && s.exclusiveMaximum === undefined) {
		return Number.MAX_SAFE_INTEGER;
	}
	const free = s.maxLength === undefined && s.pattern === undefined && s.format === undefined && s.enum === undefined;
	if (types.includes('string') && free && !('const' in s)) return 'a'.repeat(100_000);
	return undefined;
}

/** The schema of an object's field `key`: its property's, or a record's values' (an object with no properties). */
function describedField(s: Schema, key: string): Schema | undefined {
	const property = s.properties?.[key];
	if (property !== undefined) return property;
	const values = s.additionalProperties;
	if (s.properties !== undefined || typeof values !== 'object' || Object.keys(values).length === 0) return undefined;
	return values;
}

function isBody(value: Json | undefined): value is Body {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `root` with the value at `path` replaced (a copy: `root` is left as it is). */
function replaced(root: Body, path: (string | number)[], value: Json): Body {
	if (path.length === 0) return value as Body;
	const copy = structuredClone(root) as Json;
	let node = copy;
	for (const step of path.slice(0, -1)) node = (node as Record<string | number, Json>)[step] as Json;
	(node as Record<string | number, Json>)[path[path.length - 1] as string | number] = value;
	return copy as Body;
}

/**
 * A string of exactly `length` characters made of `base` repeated, so it keeps the example's alphabet, without
 * white space: a server that trims would count a trailing space out.
 */
function stretched(base: string, length: number): string {
	const seed = base.replace(/\s/g, '') || 'a';
	return seed.repeat(Math.ceil(length / seed.length)).slice(0, length);
}

/** An address of exactly `length` characters (10 to 318) that keeps every other rule of an address. */
function addressOfLength(length: number): string {
	const local = 'a'.repeat(Math.min(64, length - 9));
	const labels: string[] = [];
	let room = length - local.length - '@'.length - '.com'.length;
	while (room > 0) {
		// A label of 63 at most, leaving no room, or room for a dot and another label of one character at least.
		const size = room - Math.min(63, room) === 1 ? Math.min(63, room) - 1 : Math.min(63, room);
		labels.push('b'.repeat(size));
		room -= size + 1;
	}
	return `${local}@${labels.join('.')}.com`;
}

/** A string the pattern refuses, one the field's other bounds allow when there is one. */
function notMatching(s: Schema, base: string): string | undefined {
	const pattern = new RegExp(s.pattern ?? '', 'u');
	const candidates = [`${base}!`, `!${base}`, `${base} ${base}`, ' ', '-', '0', 'a', ''];
	const refused = candidates.filter((value) => !pattern.test(value));
	const bounded = (value: string) => value.length <= (s.maxLength ?? Infinity) && value.length >= (s.minLength ?? 0);
	return refused.find(bounded) ?? refused[0];
}

/** For each bound the document puts on a value, a value just past it. */
function valuesPast(s: Schema, current: Json | undefined): { bound: string; value: Json }[] {
	const base = typeof current === 'string' ? current : '';
	const step = ([] as string[]).concat(s.type ?? []).includes('integer') ? 1 : 0.5;
	const past: { bound: string; value: Json | undefined }[] = [
		{
			bound: 'maxLength',
			value:
				s.maxLength === undefined
					? undefined
					: s.format === 'email'
						? addressOfLength(s.maxLength + 1)
						: stretched(base, s.maxLength + 1),
		},
		{ bound: 'minLength', value: s.minLength ? stretched(base, s.minLength - 1) : undefined },
		{ bound: 'maximum', value: s.maximum === undefined ? undefined : s.maximum + step },
		{ bound: 'minimum', value: s.minimum === undefined ? undefined : s.minimum - step },
		{ bound: 'exclusiveMaximum', value: s.exclusiveMaximum },
		{ bound: 'exclusiveMinimum', value: s.exclusiveMinimum },
		{ bound: 'pattern', value: s.pattern === undefined ? undefined : notMatching(s, base) },
		{ bound: 'format: uri', value: s.format === 'uri' ? 'not a uri' : undefined },
		{ bound: 'format: email', value: s.format === 'email' ? 'not-an-address' : undefined },
	];
	return past.filter((p): p is { bound: string; value: Json } => p.value !== undefined);
}
