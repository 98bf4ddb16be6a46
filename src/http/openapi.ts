/**
 * Shared pieces of the route definitions that feed the OpenAPI document: error answers, bodies with examples,
 * security and the permission each operation needs. What is the same for every operation (response headers,
 * 405/500, tags) is added once in src/http/openapi-document.ts instead of in each route.
 */
import { z } from '@hono/zod-openapi';
import { requirePermission } from '../auth/middleware';
import type { Permission } from '../auth/permissions';
import { errorBody } from '../lib/error-status';

export const errorBodySchema = z
	.object({
		error: z.string().openapi({ description: 'The HTTP status name.', example: 'Unauthorized' }),
		message: z
			.string()
			.openapi({ description: 'What went wrong, for a person.', example: 'Invalid API token: unknown or revoked.' }),
		statusCode: z.number().int().openapi({ description: 'The HTTP status, repeated.', example: 401 }),
	})
	.openapi('Error', { description: 'Every error answer has this body.' });

export const ERROR_DESCRIPTIONS: Record<number, string> = {
	400: 'The request could not be read (malformed JSON, for example).',
	401: 'Missing, malformed, unknown or revoked credential.',
	403: "The token's operator lacks the permission this route needs.",
	404: 'No such resource in this workspace.',
	405: 'This path does not serve the method; `Allow` lists those it does.',
	409: 'The request conflicts with the current state.',
	412: 'The `If-Match` names a version that is no longer current: someone changed it since. Nothing was written; read it again.',
	413: 'The body is too large.',
	415: 'The body is not JSON.',
	422: 'A parameter or a field failed validation, or the query holds a parameter this operation does not take; the message names it.',
	426: 'A WebSocket endpoint called without "Upgrade: websocket".',
	429: 'Rate limit exceeded; see Retry-After and the RateLimit headers.',
	500: 'An unexpected failure, logged on our side (the message reveals nothing of it).',
	503: 'A dependency was briefly unavailable; nothing half-done was kept. Retry.',
	508: 'The call is the latest of too many calls Parley made to itself (`Parley-Hops`); nothing was recorded.',
};

const ERROR_EXAMPLES: Record<number, string> = {
	400: 'Malformed JSON in request body',
	401: 'Invalid API token: unknown or revoked.',
	403: 'This token\'s operator lacks the "admin" permission.',
	404: 'Conversation conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T not found.',
	405: 'DELETE is not allowed on /v3/conversations; use GET, POST.',
	409: 'The widget settings changed while this update was applied; retry it.',
	412: 'Bot bot_01JD3Q8Z6Y2V7K1N4M5P6R7S8T has changed since the version you sent (If-Match): read it again and reapply your change.',
	413: 'A request body may be at most 1 MiB.',
	415: 'Unsupported Media Type: send the body as JSON with "Content-Type: application/json".',
	422: 'json.text: Too small: expected string to have >=1 characters',
	426: 'This endpoint is a WebSocket: send "Upgrade: websocket".',
	429: 'Rate limit of 120 requests per 60 s exceeded for this token; retry in 12 s.',
	500: 'Something went wrong on our side. It has been logged; please retry later.',
	503: 'The settings were saved but the widget cannot see them yet; repeat the same request.',
	508: 'Parley-Hops is 5: this call is the 5th Parley made in a row to itself, the most it follows. Nothing was recorded.',
};

/** One error answer in the spec's body, with a typical example. */
function errorResponse(
	status: number,
	description = ERROR_DESCRIPTIONS[status] ?? 'Error',
	example = ERROR_EXAMPLES[status] ?? description,
) {
	return {
		description,
		content: { 'application/json': { schema: errorBodySchema, example: errorBody(status, example) } },
	};
}

/**
 * An error answer as the generated document holds it (the body a `$ref` to `Error`), for the answers
 * src/http/openapi-document.ts adds to every operation they apply to.
 */
export function documentedErrorResponse(
	status: number,
	description = ERROR_DESCRIPTIONS[status] ?? 'Error',
	example = ERROR_EXAMPLES[status] ?? description,
) {
	return {
		description,
		content: {
			// Spread into a plain object type, which the document's JSON type accepts (the `ErrorBody` interface is not).
			'application/json': {
				schema: { $ref: '#/components/schemas/Error' },
				example: { ...errorBody(status, example) },
			},
		},
	};
}

/** OpenAPI response entries in the spec's error body, for the given statuses plus 401, 405, 429 and 500. */
export function errorResponses(...statuses: number[]) {
	const all = [...new Set([401, 405, 429, 500, ...statuses])].sort();
	return Object.fromEntries(all.map((status) => [status, errorResponse(status)]));
}

/**
 * The 403 of a route that refuses for a reason of its own (an owner's rule, an origin check), with the message
 * it answers. The refusals every route shares (the permission the route names, the console's cookie, plain
 * HTTP) are added to its description by src/http/openapi-document.ts, which joins them with "Or" and sets the
 * case of each first letter; `errorResponses(403)` states none of its own.
 */
export function forbiddenResponse(reason: string, example: string) {
	return { 403: errorResponse(403, reason, example) };
}

/** A required JSON request body, with an example (type-checked against what the schema accepts). */
export function jsonBody<T extends z.ZodType>(schema: T, example?: z.input<T>) {
	return {
		required: true,
		content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
	} as const;
}

/** A request body that is a file's bytes (an upload), whatever its Content-Type says. */
export const fileBytesBody = {
	content: {
		'application/octet-stream': {
			schema: z.string().openapi({ format: 'binary' }),
			example: '%PDF-1.7 … (the file’s bytes)',
		},
	},
	description: 'The file’s bytes.',
	required: true,
};

/** A JSON response entry, with an example (type-checked against the schema). */
export function jsonResponse<T extends z.ZodType>(description: string, schema: T, example?: z.input<T>) {
	return {
		description,
		content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
	} as const;
}

/** A Token V3, or the operator console's session cookie (src/auth/middleware.ts accepts either on /v3). */
export const bearerSecurity: Array<Record<string, string[]>> = [{ TokenV3: [] }, { ConsoleSession: [] }];

/**
 * A route for Token V3 callers whose operator holds `permission` (or `admin`): the guard, the security
 * requirement and the `x-required-permission` extension, from one argument so the document cannot disagree
 * with the guard. Spread it into `createRoute`.
 */
export function requires(permission: Permission) {
	return {
		security: bearerSecurity,
		middleware: [requirePermission(permission)],
		'x-required-permission': permission,
	};
}

/** A route any valid Token V3 may call, whatever its operator's permissions. */
export const anyToken = { security: bearerSecurity, 'x-required-permission': 'none' } as const;

/** A public widget route proven by the visitor's `Parley-Session` header. */
export const visitorSession = { security: [{ ParleySession: [] }] };

/** The visitor's WebSocket: the session in the `session` query parameter or a subprotocol, never a header. */
export const visitorSocketSession = { security: [{ ParleySessionQuery: [] }] };

/** A public widget route where a session is optional, but one that is sent must be valid. */
export const optionalSession: { security: Record<string, string[]>[] } = { security: [{}, { ParleySession: [] }] };

/** A public widget route that needs no session (an empty requirement list: anyone may call it). */
export const noCredential = { security: [] };

export const idParam = (name: string, example: string, description: string) =>
	z
		.string()
		.min(1)
		.max(64)
		.openapi({ param: { name, in: 'path', description }, example });

/** The `Idempotency-Key` request header: a retry with the same key returns the first result. */
export const idempotencyHeaders = z.object({
	'idempotency-key': z
		.string()
		.regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters')
		.optional()
		.openapi({
			description:
				'A retry with the same key (per operator) returns the first result instead of a duplicate, marked `Idempotent-Replayed: true`.',
			example: 'order-1042-welcome',
		}),
});
