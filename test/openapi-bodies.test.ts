/**
 * The request bodies the API document describes, replayed against the server as a client generated from the
 * document would send them: each operation's own example, then that example changed one field at a time.
 * Nothing here lists operations or fields: they come from the served document (test/openapi-replay.ts), so a
 * route is checked as soon as it is documented (issue 38). For each body:
 * - the example itself is no validation refusal (with real ids in place of the example's);
 * - (a) a field the document lets a client leave out may be left out: no 422 names it;
 * - (b) each bound the document puts on a field (`maxLength`, `minLength`, `maximum`, `minimum`, `pattern`,
 *   `format: uri` or `email`) is the server's: a value just past it is refused with a 422 naming the field;
 * - (c) what the document refuses is refused: the example without a `required` field, or without a field a
 *   presence rule needs (`minProperties`, `anyOf`, `oneOf`, `dependentRequired`, `if`/`then`), answers 422;
 * - (d) the e-mail rule the document states is the server's, at the address `format: email` alone admits; and
 *   it is one rule, stated alike on every e-mail field of the document.
 */
import { describe, expect, it } from 'vitest';
import { EMAIL_ADDRESS } from '../src/model/email-address';
import { api } from './factories';
import {
	ApiDocument,
	type Body,
	type Json,
	type OpenApiDocument,
	type Schema,
	Workspace,
	without,
} from './openapi-replay';

const served = (await (await api(null, 'GET', '/v3/openapi.json')).json()) as OpenApiDocument;
const doc = new ApiDocument(served);

/**
 * Examples that name what no test workspace can have, with the one field whose check refuses them there (named
 * as the 422 names it, where it was: `json.token`, `param.id`): the example's 422 must be about that field
 * alone, and every other check still runs.
 */
const UNREPLAYABLE: Record<string, { field: string; why: string }> = {
	'POST /v3/auth/set-password': { field: 'json.token', why: 'a password link is a secret mailed to its operator' },
	'PUT /v3/auth/password': { field: 'json.currentPassword', why: 'the calling operator has no password to know' },
	'POST /v3/whatsapp/conversations/{id}/template': {
		field: 'param.id',
		why: 'a conversation on a connected WhatsApp number needs an inbound message from the fake Graph API',
	},
};

/** What `format: email` admits and no mail reaches: a domain without a dot. */
const UNDELIVERABLE = '0@com';

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

/** Every field a 422 names, with where it was (`json.name: …; param.id: …` names `json.name` and `param.id`). */
function problemsNamed(message: string): string[] {
	return message
		.split('; ')
		.map((problem) => /^([a-z]+\.[^:]+):/.exec(problem)?.[1])
		.filter((field): field is string => field !== undefined);
}

/** The body fields a 422 names (`json.name: …; json.phone: …`), without the `json.` of where they were. */
function fieldsNamed(message: string): string[] {
	return problemsNamed(message)
		.filter((field) => field.startsWith('json.'))
		.map((field) => field.slice('json.'.length));
}

const names = (fields: string[], key: string) => fields.some((field) => field === key || field.startsWith(`${key}.`));

describe('the request bodies of GET /v3/openapi.json', () => {
	it.each(doc.bodyOperations)('$name: the document says what the server checks', async (operation) => {
		const workspace = await Workspace.create(doc);
		const path = await workspace.pathOf(operation);
		const example = await workspace.bodyOf(operation);
		const schema = doc.resolved(operation.schema);
		const send = async (body: Body) => {
			const res = await workspace.send(operation, path, body);
			const text = await res.text();
			const message = res.status === 422 ? (JSON.parse(text) as { message: string }).message : '';
			return { status: res.status, message, named: problemsNamed(message), fields: fieldsNamed(message), text };
		};
		const problems: string[] = [];

		const replayed = await send(example);
		const unreplayable = UNREPLAYABLE[operation.name];
		if (replayed.status === 422 && (replayed.named.length !== 1 || replayed.named[0] !== unreplayable?.field)) {
			const expected = unreplayable ? ` (only ${unreplayable.field} may be: ${unreplayable.why})` : '';
			problems.push(`the example is refused${expected}: ${replayed.message}`);
		}
		for (const key of schema.required ?? []) {
			if (!(key in example)) problems.push(`the example lacks ${key}, which the document requires`);
		}

		for (const key of Object.keys(example)) {
			const rest = without(example, key);
			const answer = await send(rest);
			if (!doc.admits(schema, rest)) {
				// (c) The document refuses the body without this field (required, or a rule needs it).
				if (answer.status !== 422) {
					problems.push(`without ${key}: the document refuses it, the server answers ${answer.status}`);
				}
			} else if (answer.status === 422 && names(answer.fields, key)) {
				// (a) The document lets the field be left out: no refusal may be about it.
				problems.push(`without ${key} (which the document lets go): ${answer.message}`);
			}
		}

		for (const [key, property] of Object.entries(schema.properties ?? {})) {
			const value = doc.valueSchema(property);
			// Not derived here: a field of several bounded alternatives (a logo: an https URL, or an uploaded logo's
			// path), whose value past one alternative's bound can be another's, and past them all needs each rule read.
			if (value === undefined) continue;
			for (const past of valuesPast(value, example[key])) {
				const answer = await send({ ...example, [key]: past.value });
				if (answer.status !== 422 || !names(answer.fields, key)) {
					const sent = JSON.stringify(past.value).slice(0, 40);
					problems.push(`${key} past its ${past.bound} (${sent}): ${answer.status} ${answer.text.slice(0, 160)}`);
				}
			}
			if (value.format === 'email') {
				// (d) `format: email` alone admits it; the server's rule, stated as the field's `pattern`, does not.
				const admitted = value.pattern === undefined || new RegExp(value.pattern, 'u').test(UNDELIVERABLE);
				const answer = await send({ ...example, [key]: UNDELIVERABLE });
				const refused = answer.status === 422 && names(answer.fields, key);
				if (admitted === refused) {
					const verdict = (no: boolean) => (no ? 'refuses' : 'admits');
					problems.push(
						`${key}: the document ${verdict(!admitted)} ${UNDELIVERABLE}, the server ${verdict(refused)} it`,
					);
				}
			}
		}
		expect(problems).toEqual([]);
	});

	it('states one e-mail rule on every e-mail field, the rule the server applies', () => {
		const patterns: unknown[] = [];
		const visit = (node: unknown): void => {
			if (Array.isArray(node)) for (const item of node) visit(item);
			else if (node !== null && typeof node === 'object') {
				const schema = node as Schema;
				if (schema.format === 'email') patterns.push(schema.pattern);
				for (const value of Object.values(node)) visit(value);
			}
		};
		visit(served.paths);
		visit(served.components);
		expect(patterns.length).toBeGreaterThan(5);
		expect(new Set(patterns)).toEqual(new Set([EMAIL_ADDRESS.source]));
		// Valid ECMA-262 as JSON Schema validators compile it, with the Unicode flag or without.
		for (const flags of ['', 'u']) {
			const pattern = new RegExp(EMAIL_ADDRESS.source, flags);
			for (const address of ['ana@example.com', "o'neil+news@mail.example.co"]) {
				expect(pattern.test(address), address).toBe(true);
			}
			for (const address of [UNDELIVERABLE, 'ana@localhost', '.ana@example.com', 'ana@example.c']) {
				expect(pattern.test(address), address).toBe(false);
			}
		}
	});
});
