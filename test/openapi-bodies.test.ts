/**
 * The request bodies the API document describes, replayed against the server as a client generated from the
 * document would send them: each operation's own example, then that example changed one field at a time, at
 * every depth the example has (a nested object's fields, an array's object items: `json.steps.0.id`).
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
 * The changes and what the document says of each are test/openapi-probes.ts's.
 */
import { describe, expect, it } from 'vitest';
import { EMAIL_ADDRESS } from '../src/model/email-address';
import { api } from './factories';
import { disagreement, probes, UNDELIVERABLE } from './openapi-probes';
import { ApiDocument, type Body, type OpenApiDocument, type Schema, Workspace } from './openapi-replay';

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

		for (const probe of probes(doc, operation.schema, example)) {
			const answer = await send(probe.value);
			const wrong = disagreement(probe, { refused: answer.status === 422, fields: answer.fields });
			if (wrong) problems.push(`${probe.field} ${probe.change}: ${wrong} (${answer.text.slice(0, 160)})`);
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
