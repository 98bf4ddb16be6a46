/**
 * The statuses the served document promises, checked against the server operation by operation. Nothing here
 * lists operations: each check walks every path and method of `GET /v3/openapi.json` and sends what the
 * document itself describes (its path parameters, credential, declared query parameters and example body), so
 * a new operation is checked the day it is added. A failure names the operation and what it answered.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ERROR_DESCRIPTIONS } from '../src/http/openapi';
import {
	api,
	CONSOLE_ORIGIN,
	type ConsoleSignIn,
	consoleSignIn,
	randomIp,
	seededEmail,
	seedOperator,
	seedPassword,
	seedWorkspace,
	startVisitor,
} from './factories';

interface Schema {
	type?: string | string[];
	maxLength?: number;
	enum?: unknown[];
	default?: unknown;
	example?: unknown;
}
interface Parameter {
	name: string;
	in: string;
	required?: boolean;
	schema?: Schema;
	example?: unknown;
}
interface Operation {
	security?: Record<string, string[]>[];
	'x-required-permission'?: string;
	parameters?: Parameter[];
	requestBody?: { content: Record<string, { example?: unknown }> };
	responses: Record<string, { description?: string } | undefined>;
}
interface Document {
	paths: Record<string, Record<string, Operation>>;
}

/** One operation of the document: its method (upper case), its path template and its description. */
interface Call {
	name: string;
	method: string;
	path: string;
	operation: Operation;
}

/** What a request may change of the one the document describes. */
interface Variation {
	/** A path parameter's value in place of a valid-looking one. */
	param?: { name: string; value: string };
	query?: URLSearchParams;
	/** Without the operation's credential (the headers below bring another). */
	anonymous?: boolean;
	/** Where the request is sent instead of `https://parley.test` (a scheme and a host). */
	origin?: string;
	headers?: Record<string, string>;
}

/** Who calls: the seeded workspace, an admin token (fresh every 30 calls) and a visitor's session. */
interface Caller {
	workspaceId: string;
	token: () => Promise<string>;
	visitorSession: string;
}

/** The unknown query parameter sent to every operation, and what the 422 says of such a parameter. */
const UNDECLARED = 'parleyUndeclared';
const NOT_TAKEN = 'not a parameter this operation takes';

/**
 * Operations whose query cannot be reached generically, and why: what answers first needs a real resource the
 * document cannot name. They are still sent the unknown parameter, and must answer a status they document.
 */
const QUERY_UNREACHABLE: Record<string, string> = {
	'POST /v3/workflows/webhook/{webhook_id}':
		'its credential check (the webhook’s secret, signature or openness) looks the webhook up before any input is validated, so a made-up id answers 404 first',
};

async function servedDocument(): Promise<Document> {
	const res = await api(null, 'GET', '/v3/openapi.json');
	expect(res.status).toBe(200);
	return (await res.json()) as Document;
}

function everyOperation(doc: Document): Call[] {
	return Object.entries(doc.paths).flatMap(([path, item]) =>
		Object.entries(item).map(([method, operation]) => ({
			name: `${method.toUpperCase()} ${path}`,
			method: method.toUpperCase(),
			path,
			operation,
		})),
	);
}

const accepts = (operation: Operation, scheme: string) => operation.security?.some((r) => scheme in r) ?? false;
const parametersIn = (operation: Operation, place: string) =>
	(operation.parameters ?? []).filter((p) => p.in === place);

async function newCaller(): Promise<Caller> {
	const { workspaceId } = await seedWorkspace();
	const visitor = await startVisitor(workspaceId);
	let token = '';
	let calls = 0;
	return {
		workspaceId,
		// A fresh admin every 30 calls: the suite's rate limit (40 a minute) counts per operator.
		token: async () => {
			if (calls++ % 30 === 0) ({ token } = await seedOperator(workspaceId, ['admin']));
			return token;
		},
		visitorSession: visitor.session,
	};
}

/** A value the document gives a parameter (its example, first allowed value or default), or a plain one. */
function sampleValue(parameter: Parameter): string {
	const { schema } = parameter;
	const value = parameter.example ?? schema?.example ?? schema?.enum?.[0] ?? schema?.default;
	if (value !== undefined) return String(value);
	return schema?.type === 'integer' || schema?.type === 'number' ? '1' : 'x1234567';
}

/**
 * The request the document describes for `call`: path parameters from their examples (the seeded workspace for a
 * `workspaceId`), the credential the operation takes, its example body, and whatever `variation` changes.
 */
async function send(caller: Caller, { method, path, operation }: Call, variation: Variation = {}): Promise<Response> {
	const url = path.replaceAll(/\{([^}]+)\}/g, (_, name: string) => {
		if (variation.param?.name === name) return encodeURIComponent(variation.param.value);
		if (name === 'workspaceId') return caller.workspaceId;
		const parameter = parametersIn(operation, 'path').find((p) => p.name === name);
		return encodeURIComponent(parameter ? sampleValue(parameter) : 'x1234567');
	});
	// A fresh address per call: the widget's per-address flood limits stay out of the way.
	const headers: Record<string, string> = { 'CF-Connecting-IP': randomIp() };
	if (!variation.anonymous) {
		if (accepts(operation, 'TokenV3')) headers.Authorization = `Bearer ${await caller.token()}`;
		if (accepts(operation, 'ParleySession')) headers['Parley-Session'] = caller.visitorSession;
	}
	const [mediaType, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
	// A redirect is an answer to check, not one to follow.
	const init: RequestInit = { method, headers: { ...headers, ...variation.headers }, redirect: 'manual' };
	if (mediaType !== undefined && media?.example !== undefined) {
		(init.headers as Record<string, string>)['Content-Type'] = mediaType;
		init.body = mediaType === 'application/json' ? JSON.stringify(media.example) : String(media.example);
	}
	const query = variation.query?.size ? `?${variation.query}` : '';
	// Not `api`: it sends JSON bodies only, and an upload's example is the file's bytes.
	return exports.default.fetch(new Request(`${variation.origin ?? 'https://parley.test'}${url}${query}`, init));
}

/** A console session of a new admin of the workspace. */
async function signedInConsole(workspaceId: string): Promise<ConsoleSignIn> {
	const admin = await seedOperator(workspaceId, ['admin']);
	await seedPassword(workspaceId, admin.operatorId, 'correct horse battery');
	return consoleSignIn(seededEmail(admin.operatorId), 'correct horse battery', workspaceId);
}

/** A host name no local development has: plain HTTP to it is a deployment's to refuse or redirect. */
const DEPLOYED_HOST = 'parley.example.com';

/**
 * Whether an answer to plain HTTP sends the caller to https: a 301 to the same address there (the operation's
 * path, its parameters filled in), or a 403 in the spec's error body that says so.
 */
function sendsToHttps(call: Call, status: number, location: string | null, text: string): boolean {
	if (status === 301) {
		const to = new URL(location ?? '', 'http://invalid');
		const path = new RegExp(`^${call.path.replaceAll(/\{[^}]+\}/g, '[^/]+')}$`);
		return to.origin === `https://${DEPLOYED_HOST}` && path.test(to.pathname);
	}
	if (status !== 403) return false;
	const body = JSON.parse(text) as Record<string, unknown>;
	const keys = Object.keys(body).sort().join();
	return (
		keys === 'error,message,statusCode' &&
		body.error === 'Forbidden' &&
		body.statusCode === 403 &&
		String(body.message).startsWith('Requests must use HTTPS')
	);
}

/** What is wrong with `res` as the documented 403 whose message says `reason` (nothing when it is one). */
async function refusal(call: Call, res: Response, reason: string): Promise<string[]> {
	const { message } = (await res.json()) as { message: string };
	if (res.status === 403 && '403' in call.operation.responses && message.includes(reason)) return [];
	return [`${call.name}: ${res.status} ${message}`];
}

describe('every status the server answers is documented', () => {
	it('refuses an over-long path parameter with a status the operation documents, a 422 naming it param.<name>', async () => {
		const caller = await newCaller();
		const answers: string[] = [];
		let checked = 0;
		for (const call of everyOperation(await servedDocument())) {
			for (const parameter of parametersIn(call.operation, 'path')) {
				const maxLength = parameter.schema?.maxLength;
				if (maxLength === undefined) continue;
				const param = { name: parameter.name, value: 'a'.repeat(maxLength + 1) };
				// With the query the operation requires, so that what is refused is the parameter and nothing else.
				const required = parametersIn(call.operation, 'query').filter((p) => p.required);
				const query = new URLSearchParams(required.map((p) => [p.name, sampleValue(p)]));
				const res = await send(caller, call, { param, query });
				checked++;
				const text = await res.text();
				// Refused (never served as if the value were fine), and with a status the operation documents; a
				// validation refusal names the parameter where it was, as the body's fields are named `json.<field>`.
				const documented = res.status >= 400 && res.status < 500 && String(res.status) in call.operation.responses;
				const named = res.status !== 422 || text.includes(`param.${parameter.name}: `);
				if (!documented || !named) answers.push(`${call.name} {${parameter.name}}: ${res.status} ${text}`);
			}
		}
		expect(answers).toEqual([]);
		expect(checked).toBeGreaterThan(100);
	});

	it("refuses the console's cookie from another origin, and without its CSRF token on a change, with a documented 403", async () => {
		const caller = await newCaller();
		const session = await signedInConsole(caller.workspaceId);
		const answers: string[] = [];
		let checked = 0;
		for (const call of everyOperation(await servedDocument())) {
			if (!accepts(call.operation, 'ConsoleSession')) continue;
			checked++;
			// No Origin and no Sec-Fetch-Site: not the console's page (curl, another site's server).
			const foreign = await send(caller, call, { anonymous: true, headers: { Cookie: session.cookie } });
			answers.push(...(await refusal(call, foreign, 'only accepted from the console')));
			if (['GET', 'HEAD'].includes(call.method)) continue;
			const headers = { Cookie: session.cookie, Origin: CONSOLE_ORIGIN };
			const withoutCsrf = await send(caller, call, { anonymous: true, headers });
			answers.push(...(await refusal(call, withoutCsrf, 'X-CSRF-Token')));
		}
		expect(answers).toEqual([]);
		expect(checked).toBeGreaterThan(100);
	});

	it('answers plain HTTP to a deployed host with a documented 301 to https or 403 in the error body', async () => {
		const caller = await newCaller();
		const answers: string[] = [];
		const calls = everyOperation(await servedDocument());
		for (const call of calls) {
			const res = await send(caller, call, { origin: `http://${DEPLOYED_HOST}` });
			const location = res.headers.get('Location');
			const text = await res.text();
			if (!(String(res.status) in call.operation.responses) || !sendsToHttps(call, res.status, location, text)) {
				answers.push(`${call.name}: ${res.status} ${location ?? text}`);
			}
		}
		expect(answers).toEqual([]);
		expect(calls.length).toBeGreaterThan(200);
	});

	it("refuses an operator without an operation's permission with its 403, which claims that refusal where one is named", async () => {
		const caller = await newCaller();
		const answers: string[] = [];
		let checked = 0;
		for (const call of everyOperation(await servedDocument())) {
			const permission = call.operation['x-required-permission'] ?? 'none';
			const claims = call.operation.responses['403']?.description?.includes(ERROR_DESCRIPTIONS[403] ?? '') ?? false;
			if (claims !== (permission !== 'none')) {
				answers.push(`${call.name}: takes ${permission}, and its 403 ${claims ? 'says' : 'does not say'} so`);
			}
			if (!accepts(call.operation, 'TokenV3')) continue;
			checked++;
			// A new operator each time: an operation any token may call can change its caller (a regenerated token).
			const { token } = await seedOperator(caller.workspaceId, []);
			const res = await send(caller, call, { anonymous: true, headers: { Authorization: `Bearer ${token}` } });
			const text = await res.text();
			const message = res.status === 403 ? (JSON.parse(text) as { message: string }).message : '';
			const refusedForIt = message.includes(`lacks the "${permission}" permission`);
			const documented = String(res.status) in call.operation.responses;
			const forPermission = message.includes('permission');
			if (permission !== 'none' ? !refusedForIt || !documented : !documented || forPermission) {
				answers.push(`${call.name} (${permission}): ${res.status} ${text.slice(0, 200)}`);
			}
		}
		expect(answers).toEqual([]);
		expect(checked).toBeGreaterThan(150);
	});

	it('refuses an undeclared query parameter with a documented 422 naming it, never a declared one', async () => {
		const caller = await newCaller();
		const answers: string[] = [];
		const calls = everyOperation(await servedDocument());
		for (const call of calls) {
			// Every declared parameter with a value, then one the operation does not declare. The WebSocket
			// operations are checked like the others: the query is refused before the upgrade is looked at.
			const declared = parametersIn(call.operation, 'query');
			const query = new URLSearchParams(declared.map((p) => [p.name, sampleValue(p)]));
			query.set(UNDECLARED, '1');
			const res = await send(caller, call, { query });
			const { message } = (await res.json()) as { message: string };
			const answer = `${call.name}: ${res.status} ${message}`;
			if (call.name in QUERY_UNREACHABLE) {
				if (!(String(res.status) in call.operation.responses)) answers.push(answer);
				continue;
			}
			const namesIt = message.includes(`query.${UNDECLARED}: ${NOT_TAKEN}`);
			const refusesDeclared = declared.some((p) => message.includes(`query.${p.name}: ${NOT_TAKEN}`));
			if (res.status !== 422 || !('422' in call.operation.responses) || !namesIt || refusesDeclared) {
				answers.push(answer);
			}
		}
		expect(answers).toEqual([]);
		expect(calls.length).toBeGreaterThan(200);
		// An exception outlives its operation only by mistake.
		expect(calls.map((call) => call.name)).toEqual(expect.arrayContaining(Object.keys(QUERY_UNREACHABLE)));
	});
});
