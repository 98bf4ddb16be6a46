/**
 * HTTP request: a bot's Integration step (and, later, a scenario's HTTP Request). Method, URL, headers,
 * authentication (bearer, basic, an API key header) and body are templates; the call goes through the one
 * guarded fetch (https only, public addresses only, redirects checked hop by hop, 10 s, 1 MiB). A JSON answer
 * is parsed, so a step maps its fields into variables; a refused call, a timeout or a 4xx/5xx answer is the
 * step's error, with the answer kept in its log.
 */
import { z } from '@hono/zod-openapi';
import { encodeBase64 } from '../auth/secrets';
import { guardedFetch } from '../lib/guarded-fetch';
import { type ActionContext, type ActionResult, given, refused, refusedOn } from './context';
import { template, variableName } from './fields';
import { presetProblems, presetRequest, presetSchema } from './presets';

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

const httpAuthSchema = z
	.discriminatedUnion('kind', [
		z.strictObject({
			kind: z.literal('bearer').openapi({ description: '`Authorization: Bearer <token>`.' }),
			token: template(2000).openapi({ description: 'The token.' }),
		}),
		z.strictObject({
			kind: z.literal('basic').openapi({ description: '`Authorization: Basic …`.' }),
			username: template(200).openapi({ description: 'The user name.' }),
			password: template(2000).openapi({ description: 'The password.' }),
		}),
		z.strictObject({
			kind: z.literal('api_key').openapi({ description: 'An API key in a header of its own.' }),
			header: z.string().max(100).openapi({ description: 'The header’s name.', example: 'X-Api-Key' }),
			value: template(2000).openapi({ description: 'The key.' }),
		}),
	])
	.openapi({ description: 'Authentication: a bearer token, basic credentials, or an API key header.' });

/** The request's fields, for every action that calls out. */
export const httpRequestFields = {
	method: z.enum(HTTP_METHODS).optional().openapi({ description: 'The HTTP method (unless `preset`).' }),
	url: template(2000).optional().openapi({ description: 'An https URL; may hold variables (unless `preset`).' }),
	headers: z
		.record(z.string().max(100), template(2000))
		.optional()
		.openapi({ description: 'Request headers, each value a template.' }),
	auth: httpAuthSchema.optional(),
	body: template(20_000)
		.optional()
		.openapi({ description: 'Sent with POST and PUT; JSON unless a Content-Type header says otherwise.' }),
	preset: presetSchema.optional().openapi({
		description: 'A built-in integration (HubSpot, RD Station, Salesforce, Pipedrive) instead of a request.',
	}),
	/** Variables set from the JSON answer: `{ "order_status": "order.status" }`. */
	response: z
		.record(variableName, z.string().max(200))
		.optional()
		.openapi({ description: 'Variables set from the JSON answer, each from a dotted path: `order.status`.' }),
};

export const integrationAction = z.strictObject({
	type: z.literal('integration').openapi({ description: 'Integration: an HTTP call.' }),
	...httpRequestFields,
});
export type IntegrationAction = z.infer<typeof integrationAction>;
type HttpRequest = Omit<IntegrationAction, 'type'>;

const USER_AGENT = 'Parley-Automation/1 (+https://github.com/parley)';

/**
 * Why a JSON body template is unsafe: a value not written with the `json` filter, which an answer holding a
 * quote could turn into more JSON (`", "admin": true`). Null for a body that is no JSON, or is safe.
 */
function jsonBodyProblem(body: string): string | null {
	if (!/^\s*[[{]/.test(body)) return null;
	for (const [, expression] of body.matchAll(/\{\{-?([\s\S]*?)-?\}\}/g)) {
		if (!/\|\s*json\s*$/.test(expression ?? '')) {
			return `in a JSON body, write each value with the json filter and no quotes around it ({{${expression}| json }}), so an answer cannot change the JSON`;
		}
	}
	return null;
}

/** Whether a URL's path climbs (a `.` or `..` segment, encoded or not): a value must not reach another resource. */
export function climbs(url: string): boolean {
	const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0] ?? '';
	return path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
}

/** What is wrong with the request's shape: a preset, or a method and URL, never both; each with its field. */
export function httpRequestProblems(request: HttpRequest): Array<{ path: string[]; message: string }> {
	const body = request.body === undefined ? null : jsonBodyProblem(request.body);
	if (body) return [{ path: ['body'], message: body }];
	if (request.preset) {
		const extra = (['method', 'url', 'headers', 'auth', 'body'] as const).filter((key) => request[key] !== undefined);
		return [
			...extra.map((key) => ({ path: [key], message: 'a preset builds the request: leave this out' })),
			...presetProblems(request.preset).map((p) => ({ path: ['preset', ...p.path], message: p.message })),
		];
	}
	return [
		...(request.method === undefined ? [{ path: ['method'], message: 'required (or a preset)' }] : []),
		...(request.url === undefined ? [{ path: ['url'], message: 'required (or a preset)' }] : []),
	];
}

/** The request headers: the step's, then its authentication, then JSON defaults where it set none. */
function requestHeaders(request: HttpRequest): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(request.headers ?? {})) {
		if (given(value) !== undefined) headers[name] = value.trim();
	}
	const auth = request.auth;
	if (auth?.kind === 'bearer') headers.Authorization = `Bearer ${auth.token.trim()}`;
	if (auth?.kind === 'basic')
		headers.Authorization = `Basic ${encodeBase64(new TextEncoder().encode(`${auth.username}:${auth.password}`))}`;
	if (auth?.kind === 'api_key') headers[auth.header] = auth.value.trim();
	const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
	if (!has('accept')) headers.Accept = 'application/json';
	if (!has('user-agent')) headers['User-Agent'] = USER_AGENT;
	if (request.body !== undefined && request.method !== 'GET' && !has('content-type'))
		headers['Content-Type'] = 'application/json';
	return headers;
}

/** A preset's request with the headers every call carries. */
function withDefaults<R extends { headers: Record<string, string> }>(request: R): R {
	return { ...request, headers: { Accept: 'application/json', 'User-Agent': USER_AGENT, ...request.headers } };
}

/** A response body as data: parsed when it is JSON, the text otherwise. */
function responseData(body: string, contentType: string | undefined): unknown {
	const looksJson = /\bjson\b/i.test(contentType ?? '') || /^\s*[[{]/.test(body);
	if (!looksJson) return body;
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

export function performHttpRequest(ctx: ActionContext, request: HttpRequest): Promise<ActionResult> {
	return refusedOn(async () => {
		const outbound = request.preset
			? withDefaults(presetRequest(request.preset))
			: {
					url: given(request.url) ?? '',
					method: request.method ?? 'GET',
					headers: requestHeaders(request),
					...(request.body !== undefined && request.method !== 'GET' ? { body: request.body } : {}),
				};
		if (outbound.url === '') return refused('url: rendered empty');
		if (climbs(outbound.url))
			return refused(`url: ${outbound.url} has a . or .. segment (encode values with url_encode)`);
		const response = await guardedFetch(ctx.env, outbound, {
			...(ctx.transport ? { transport: ctx.transport } : {}),
			...(ctx.hops === undefined ? {} : { hops: ctx.hops }),
		});
		const data = responseData(response.body, response.headers['content-type']);
		if (response.status >= 400) {
			const failed = refused(`the answer was HTTP ${response.status}`, { status: response.status, body: data });
			// A server error or a rate limit may pass; a 4xx says the request itself is wrong, and a 508 (Loop
			// Detected) that the call went round in a loop, which another try would only go round again.
			const passing = (response.status >= 500 && response.status !== 508) || response.status === 429;
			return passing ? { ...failed, retryable: true } : failed;
		}
		return { ok: true, data };
	});
}
