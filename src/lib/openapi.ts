import { z } from '@hono/zod-openapi';

export const errorBodySchema = z
	.object({
		error: z.string().openapi({ example: 'Unauthorized' }),
		message: z.string().openapi({ example: 'Invalid API token: unknown or revoked.' }),
		statusCode: z.number().int().openapi({ example: 401 }),
	})
	.openapi('Error');

const ERROR_DESCRIPTIONS: Record<number, string> = {
	400: 'The request could not be read (malformed JSON, for example).',
	401: 'Missing, malformed, unknown or revoked token.',
	403: "The token's operator lacks the permission this route needs.",
	404: 'No such resource in this workspace.',
	409: 'The request conflicts with the current state.',
	413: 'The body is too large.',
	415: 'The body is not JSON.',
	422: 'A field failed validation; the message names it.',
	426: 'A WebSocket endpoint called without "Upgrade: websocket".',
	429: 'Rate limit exceeded; see Retry-After and the RateLimit headers.',
	503: 'A dependency was briefly unavailable; nothing half-done was kept. Retry.',
};

/** OpenAPI response entries in the spec's error body, for the given statuses plus 401 and 429. */
export function errorResponses(...statuses: number[]) {
	const all = [...new Set([401, 429, ...statuses])].sort();
	return Object.fromEntries(
		all.map((status) => [
			status,
			{
				description: ERROR_DESCRIPTIONS[status] ?? 'Error',
				content: { 'application/json': { schema: errorBodySchema } },
			},
		]),
	);
}

/** A required JSON request body. */
export function jsonBody<T extends z.ZodType>(schema: T) {
	return { required: true, content: { 'application/json': { schema } } } as const;
}

/** A JSON response entry. */
export function jsonResponse<T extends z.ZodType>(description: string, schema: T) {
	return { description, content: { 'application/json': { schema } } } as const;
}

export const bearerSecurity = [{ TokenV3: [] }];

export const idParam = (name: string, example: string) =>
	z
		.string()
		.min(1)
		.max(64)
		.openapi({ param: { name, in: 'path' }, example });

/** The `Idempotency-Key` request header: a retry with the same key returns the first result. */
export const idempotencyHeaders = z.object({
	'idempotency-key': z
		.string()
		.regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters')
		.optional()
		.openapi({ description: 'A retry with the same key returns the first result instead of a duplicate.' }),
});
