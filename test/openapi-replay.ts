/**
 * Replaying the API document's request examples against the Worker (test/openapi-bodies.test.ts): the document
 * as a test reads it, what its presence rules admit, and a fresh workspace per operation in which an example
 * can be sent as it is written, with real ids in place of the example's.
 */
import { api, randomIp, seedOperator, seedWorkspace, startVisitor } from './factories';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Body = { [key: string]: Json };

export interface Schema {
	$ref?: string;
	type?: string | string[];
	properties?: Record<string, Schema>;
	additionalProperties?: Schema | boolean;
	items?: Schema;
	required?: string[];
	minProperties?: number;
	dependentRequired?: Record<string, string[]>;
	anyOf?: Schema[];
	oneOf?: Schema[];
	allOf?: Schema[];
	not?: Schema;
	if?: Schema;
	then?: Schema;
	else?: Schema;
	const?: Json;
	enum?: Json[];
	maxLength?: number;
	minLength?: number;
	maximum?: number;
	minimum?: number;
	exclusiveMaximum?: number;
	exclusiveMinimum?: number;
	pattern?: string;
	format?: string;
}
interface Operation {
	security?: Record<string, string[]>[];
	parameters?: { name: string; in: string; example?: Json; schema: Schema & { example?: Json } }[];
	requestBody?: { content: Record<string, { schema: Schema; example?: Json }> };
	responses: Record<string, { content?: Record<string, { example?: Json }> }>;
}
export interface OpenApiDocument {
	paths: Record<string, Record<string, Operation>>;
	components: { schemas: Record<string, Schema> };
}

/** An operation with a JSON request body, as the document describes it. */
export interface BodyOperation {
	/** `POST /v3/contacts` */
	name: string;
	method: string;
	path: string;
	operation: Operation;
	schema: Schema;
	example: Body;
}

/** The served document, read for its request bodies. */
export class ApiDocument {
	readonly bodyOperations: BodyOperation[];

	constructor(private readonly doc: OpenApiDocument) {
		this.bodyOperations = Object.entries(doc.paths).flatMap(([path, item]) =>
			Object.entries(item).flatMap(([method, operation]) => {
				const media = operation.requestBody?.content['application/json'];
				if (media === undefined) return [];
				const name = `${method.toUpperCase()} ${path}`;
				const example = media.example;
				if (typeof example !== 'object' || example === null || Array.isArray(example)) {
					throw new Error(`${name}: a JSON body needs an object example to be checked`);
				}
				return [{ name, method: method.toUpperCase(), path, operation, schema: media.schema, example }];
			}),
		);
	}

	/** A schema with its `$ref` followed, and a lone `$ref` in `allOf` (how one use of a shared schema is described). */
	resolved(schema: Schema): Schema {
		if (schema.$ref !== undefined) {
			const target = this.doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
			if (target === undefined) throw new Error(`no schema ${schema.$ref}`);
			return this.resolved({ ...target, ...without(schema, '$ref') });
		}
		const parts = schema.allOf ?? [];
		const refs = parts.filter((part) => part.$ref !== undefined);
		if (refs.length === 1 && refs[0]) {
			return this.resolved({ ...refs[0], ...Object.assign({}, ...parts.filter((p) => p !== refs[0])) });
		}
		return schema;
	}

	/**
	 * Whether the document admits a body as far as which fields it has goes: `required`, `minProperties`,
	 * `dependentRequired`, and the `anyOf`, `oneOf`, `allOf`, `not` and `if` rules made of them (whose branches
	 * may say a field's `const`, `enum` or `type` too). The values themselves are the other checks' business.
	 */
	admits(schema: Schema, body: Body, top = true): boolean {
		const s = this.resolved(schema);
		if (s.required?.some((key) => !(key in body))) return false;
		if (s.minProperties !== undefined && Object.keys(body).length < s.minProperties) return false;
		for (const [key, needs] of Object.entries(s.dependentRequired ?? {})) {
			if (key in body && needs.some((need) => !(need in body))) return false;
		}
		// A body's own properties describe its values in full; a rule's branch says what it expects of a value.
		if (!top) {
			for (const [key, property] of Object.entries(s.properties ?? {})) {
				const value = body[key];
				if (value !== undefined && !this.fits(property, value)) return false;
			}
		}
		if (s.allOf && !s.allOf.every((branch) => this.admits(branch, body, false))) return false;
		if (s.anyOf && !s.anyOf.some((branch) => this.admits(branch, body, false))) return false;
		if (s.oneOf && s.oneOf.filter((branch) => this.admits(branch, body, false)).length !== 1) return false;
		if (s.not && this.admits(s.not, body, false)) return false;
		if (s.if) {
			const branch = this.admits(s.if, body, false) ? s.then : s.else;
			if (branch && !this.admits(branch, body, false)) return false;
		}
		return true;
	}

	/** Whether a value fits what a rule's branch says of it: its `const`, `enum`, `type`, `not` or `anyOf`. */
	private fits(schema: Schema, value: Json): boolean {
		const s = this.resolved(schema);
		if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value)) return false;
		if (s.enum && !s.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) return false;
		if (s.type !== undefined) {
			const types = ([] as string[]).concat(s.type);
			const type = jsonType(value);
			if (!types.includes(type) && !(type === 'integer' && types.includes('number'))) return false;
		}
		if (s.not && this.fits(s.not, value)) return false;
		if (s.anyOf && !s.anyOf.some((branch) => this.fits(branch, value))) return false;
		return true;
	}

	/**
	 * The object schema a value is checked against: the schema itself when it is typed or has properties, else
	 * the one alternative the value fits (a rule's action by its `type`); undefined when none or several do.
	 */
	branchFor(schema: Schema, value: Body): Schema | undefined {
		const s = this.resolved(schema);
		if (s.type !== undefined || s.properties !== undefined) return s;
		const fitting = (s.anyOf ?? s.oneOf ?? [])
			.map((branch) => this.resolved(branch))
			.filter((branch) => this.fits(branch, value) && this.admits(branch, value, false));
		return fitting.length === 1 ? fitting[0] : undefined;
	}

	/**
	 * The schema of a body field's value: its own, or its only alternative besides null; undefined when it has
	 * several (a logo's https URL or uploaded path), of which a value must break each to be refused.
	 */
	valueSchema(property: Schema): Schema | undefined {
		const s = this.resolved(property);
		// A typed schema's `anyOf` is a rule over its own fields (a contact by id, e-mail or phone), not alternatives.
		if (s.type !== undefined) return s;
		const alternatives = (s.anyOf ?? s.oneOf)?.filter((branch) => this.resolved(branch).type !== 'null');
		if (alternatives === undefined) return s;
		const [only] = alternatives;
		return alternatives.length === 1 && only ? this.resolved(only) : undefined;
	}

	/**
	 * The operation that makes an id of `kind`: the POST at `parent` (a stage of this funnel), else the POST,
	 * with the fewest path parameters, whose answer's example has such an id (at its top, then anywhere).
	 */
	creatorOf(kind: string, parent?: string): BodyOperation | undefined {
		const posts = this.bodyOperations.filter((o) => o.method === 'POST');
		const template = parent === undefined ? undefined : this.templateOf(parent);
		const atParent = posts.find((o) => o.path === template);
		if (atParent) return atParent;
		const id = new RegExp(`"${kind}_[0-9A-Z]{26}"`);
		const shows = (o: BodyOperation, anywhere: boolean) =>
			Object.entries(o.operation.responses).some(([status, response]) => {
				const example = response.content?.['application/json']?.example;
				if (!status.startsWith('2') || typeof example !== 'object' || example === null) return false;
				return id.test(JSON.stringify(anywhere ? example : ((example as { id?: Json }).id ?? null)));
			});
		const parameters = (o: BodyOperation) => o.path.split('{').length;
		const byParameters = (a: BodyOperation, b: BodyOperation) => parameters(a) - parameters(b);
		return (
			posts.filter((o) => shows(o, false)).sort(byParameters)[0] ??
			posts.filter((o) => shows(o, true)).sort(byParameters)[0]
		);
	}

	/** The path template a real path came from (`/v3/funnels/fnl_…/stages` is `/v3/funnels/{id}/stages`). */
	private templateOf(path: string): string | undefined {
		const segments = path.split('/');
		return Object.keys(this.doc.paths).find((template) => {
			const parts = template.split('/');
			return parts.length === segments.length && parts.every((part, i) => part.startsWith('{') || part === segments[i]);
		});
	}
}

export function without(body: Body, key: string): Body;
export function without(schema: Schema, key: string): Schema;
export function without(value: object, key: string): object {
	return Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));
}

function jsonType(value: Json): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
	return typeof value;
}

/**
 * Operations whose example names something by name that another operation's example creates: that one is
 * replayed first. (Ids need no such help: see `Workspace.realId`.)
 */
const CREATED_FIRST: Record<string, string[]> = {
	// The deal's funnel and stage are given by name ("Sales", "Proposal"), which the funnel example creates.
	'POST /v3/deals': ['POST /v3/funnels'],
};

/** An id as the examples write them: its kind's prefix, then a ULID. */
const EXAMPLE_ID = /^([a-z]+)_[0-9A-Z]{26}$/;
/** An id as answers carry them: a prefix, then a ULID or a visitor's base62. */
const ANSWER_ID = /^([a-z]+)_[0-9A-Za-z]{20,}$/;

/**
 * A fresh workspace for one operation, and the calls into it as the document says they are made: a token
 * (renewed before the suite's limit of 40 calls a minute per operator bites), a visitor session for the
 * widget's routes, and real ids for the example's, each made by replaying the example of an operation that
 * creates one of its kind.
 */
export class Workspace {
	private calls = 0;
	private token = '';
	/** Each example id, and the real one that stands for it. */
	private readonly real = new Map<string, string>();
	/** Every id seen in an answer so far, by kind. */
	private readonly seen = new Map<string, string[]>();
	private readonly creating = new Set<string>();
	private readonly prepared = new Set<string>();

	private constructor(
		private readonly document: ApiDocument,
		readonly workspaceId: string,
		private readonly session: string,
	) {}

	static async create(document: ApiDocument): Promise<Workspace> {
		const { workspaceId, operatorId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const workspace = new Workspace(document, workspaceId, visitor.session);
		// The workspace's own operator stands for the examples' operators: a member's example names a group,
		// whose example names a member.
		workspace.seen.set('op', [operatorId]);
		return workspace;
	}

	/** Sends a body to an operation's real path, with the credential the operation asks for. */
	async send(operation: BodyOperation, path: string, body: Body): Promise<Response> {
		const security = operation.operation.security ?? [];
		const headers: Record<string, string> = { 'CF-Connecting-IP': randomIp() };
		if (security.some((scheme) => 'ParleySession' in scheme)) headers['Parley-Session'] = this.session;
		// The widget's routes answer a page of the site; the console's sign-in a request with no Origin (curl).
		if (path.startsWith('/widget/')) headers.Origin = 'https://shop.example';
		const byToken = security.some((scheme) => 'TokenV3' in scheme);
		if (byToken && this.calls++ % 30 === 0) ({ token: this.token } = await seedOperator(this.workspaceId, ['admin']));
		return api(byToken ? this.token : null, operation.method, path, body, headers);
	}

	/** The operation's path with real values: the workspace, and real ids for the examples'. */
	async pathOf(operation: BodyOperation): Promise<string> {
		let path = '';
		for (const segment of operation.path.split('/').slice(1)) {
			const name = /^\{(.+)\}$/.exec(segment)?.[1];
			const parameter = operation.operation.parameters?.find((p) => p.name === name && p.in === 'path');
			const example = parameter?.schema.example ?? parameter?.example;
			if (name === undefined) path += `/${segment}`;
			else if (name === 'workspaceId') path += `/${this.workspaceId}`;
			else if (typeof example === 'string') path += `/${encodeURIComponent(await this.realId(example, path))}`;
			else path += `/${String(example)}`;
		}
		return path;
	}

	/** The operation's example with real ids in place of the example's. */
	async bodyOf(operation: BodyOperation): Promise<Body> {
		for (const first of CREATED_FIRST[operation.name] ?? []) {
			if (this.prepared.has(first)) continue;
			this.prepared.add(first);
			await this.replay(first);
		}
		// One id at a time: two made at once could take the same answer's id, or the same fresh token.
		const replaced = async (value: Json): Promise<Json> => {
			if (typeof value === 'string') return this.realId(value);
			if (value === null || typeof value !== 'object') return value;
			const entries: [string, Json][] = [];
			for (const [key, item] of Object.entries(value)) entries.push([key, await replaced(item)]);
			return Array.isArray(value) ? entries.map(([, item]) => item) : Object.fromEntries(entries);
		};
		return (await replaced(operation.example)) as Body;
	}

	/**
	 * A real id for an example's id (other strings are returned as they are): one an answer held and no other
	 * example id stands for, else one made by the operation that creates its kind (`creatorOf`). The example's
	 * own id when none can be made: the server then answers 404, which is no validation refusal.
	 */
	private async realId(value: string, parent?: string): Promise<string> {
		const kind = EXAMPLE_ID.exec(value)?.[1];
		if (kind === undefined) return value;
		if (kind === 'ws') return this.workspaceId;
		const known = this.real.get(value);
		if (known !== undefined) return known;
		const unused = () => this.seen.get(kind)?.find((id) => ![...this.real.values()].includes(id));
		// An example that needs its own kind to be created (a group naming a group) keeps the example's id.
		if (unused() === undefined && !this.creating.has(kind)) {
			this.creating.add(kind);
			const creator = this.document.creatorOf(kind, parent);
			if (creator) await this.replay(creator);
			this.creating.delete(kind);
		}
		const id = unused();
		if (id === undefined) return value;
		this.real.set(value, id);
		return id;
	}

	/** Replays an operation's example (with real ids), keeping every id its answer holds. */
	private async replay(operation: BodyOperation | string): Promise<void> {
		const replayed =
			typeof operation === 'string' ? this.document.bodyOperations.find((o) => o.name === operation) : operation;
		if (replayed === undefined) throw new Error(`no operation ${operation}`);
		const res = await this.send(replayed, await this.pathOf(replayed), await this.bodyOf(replayed));
		if (res.ok) this.keepIds(await res.json());
	}

	private keepIds(value: unknown): void {
		if (typeof value === 'string') {
			const kind = ANSWER_ID.exec(value)?.[1];
			const ids = kind === undefined ? [] : (this.seen.get(kind) ?? []);
			if (kind !== undefined && !ids.includes(value)) this.seen.set(kind, [...ids, value]);
		} else if (Array.isArray(value)) {
			for (const item of value) this.keepIds(item);
		} else if (value !== null && typeof value === 'object') {
			for (const item of Object.values(value)) this.keepIds(item);
		}
	}
}
