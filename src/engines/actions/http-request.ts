/**
 * HTTP request: a bot's Integration step, a scenario's HTTP Request, a Data Entry's outside validation. Method,
 * URL, headers, authentication (bearer, basic, an API key header) and body are templates, or a built-in
 * integration's preset builds them. What is checked before a definition is saved lives here; the call itself
 * is src/domain/automation/core/actions/http-request.ts.
 */
import { z } from '@hono/zod-openapi';
import { anyPresent, keyedRecord, present, schemaRules, when } from '../../lib/schema-rules';
import { template, variableName } from './fields';
import { presetProblems, presetSchema } from './presets';

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
	headers: keyedRecord(z.string().max(100), template(2000))
		.optional()
		.openapi({ description: 'Request headers, each value a template.' }),
	auth: httpAuthSchema.optional(),
	body: template(20_000).optional().openapi({
		description:
			'Sent with POST and PUT; JSON unless a Content-Type header says otherwise. In a JSON body each variable is written with the `json` filter and no quotes around it (`{"email": {{ email | json }}}`), so that a value cannot change the JSON.',
	}),
	preset: presetSchema.optional().openapi({
		description: 'A built-in integration (HubSpot, RD Station, Salesforce, Pipedrive) instead of a request.',
	}),
	/** Variables set from the JSON answer: `{ "order_status": "order.status" }`. */
	response: keyedRecord(variableName, z.string().max(200))
		.optional()
		.openapi({ description: 'Variables set from the JSON answer, each from a dotted path: `order.status`.' }),
};

/**
 * A preset, or a method and a URL, never both: what `httpRequestProblems` checks with the whole document,
 * stated for the document on each schema that spreads `httpRequestFields`.
 */
export const presetOrRequest = schemaRules(
	when(present('preset'), { not: anyPresent(['method', 'url', 'headers', 'auth', 'body']) }, present('method', 'url')),
);

export const integrationAction = z
	.strictObject({
		type: z.literal('integration').openapi({ description: 'Integration: an HTTP call.' }),
		...httpRequestFields,
	})
	.openapi(presetOrRequest);
export type IntegrationAction = z.infer<typeof integrationAction>;
/** A request's fields, whichever step carries them. */
export type HttpRequest = Omit<IntegrationAction, 'type'>;

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
