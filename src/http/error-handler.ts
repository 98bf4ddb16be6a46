import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from '../app-env';
import { bodyOf, errorBody, httpStatus } from '../lib/error-status';
import { AppError, TooManyRequests, Unauthorized } from '../lib/errors';

const FRIENDLIER: Record<number, string> = {
	415: 'Unsupported Media Type: send the body as JSON with "Content-Type: application/json".',
};

/**
 * The app's one error handler: domain errors (translated by error-status.ts, their fields named as body
 * fields unless they say otherwise) and Hono's own exceptions become the spec's error body; anything else is
 * logged and answered with a generic 500 that leaks no stack or internal message.
 */
export function onError(error: Error, c: Context<AppEnv>): Response {
	if (error instanceof AppError) {
		if (error instanceof TooManyRequests) c.header('Retry-After', String(error.retryAfterSeconds));
		if (error instanceof Unauthorized) c.header('WWW-Authenticate', challenge(c.req.path, error));
		return c.json(bodyOf(error, 'json'), httpStatus(error) as ContentfulStatusCode);
	}
	if (error instanceof HTTPException && error.status < 500) {
		const message = FRIENDLIER[error.status] ?? error.message;
		return c.json(errorBody(error.status, message), error.status);
	}
	// Logged by the request log (src/http/request-log.ts), with its name, message and stack, as one JSON line.
	return c.json(errorBody(500, 'Something went wrong on our side. It has been logged; please retry later.'), 500);
}

/**
 * The `WWW-Authenticate` challenge every 401 carries (RFC 9110 §11.6.1). The API's is RFC 6750's Bearer,
 * with `error="invalid_token"` when a token was offered and failed (unknown, revoked, malformed); the public
 * widget endpoints authenticate with the `Parley-Session` header instead, and their challenge names it.
 */
function challenge(path: string, error: Unauthorized): string {
	if (path.startsWith('/widget/')) return 'Parley-Session realm="parley"';
	return error.credentialOffered ? 'Bearer realm="parley", error="invalid_token"' : 'Bearer realm="parley"';
}

/** Unknown paths: 404 in the spec's error body. */
export function notFound(c: Context<AppEnv>): Response {
	return c.json(errorBody(404, `No route for ${c.req.method} ${c.req.path}.`), 404);
}
