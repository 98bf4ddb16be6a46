/**
 * The edge's translation of domain errors (src/lib/errors.ts): an HTTP status and the spec's error body for
 * the API and the widget endpoints, the same body in a socket's `error` frame. The domain names a bad field
 * in its own terms; here it gets the prefix of where the client put it (`json.text`, `query.cursor`,
 * `frame.text`), so a client reads one convention whatever checked the field.
 */
import type { AppError, ErrorKind, InputSource } from './errors';

const HTTP_STATUS: Record<ErrorKind, number> = {
	malformed: 400,
	unauthenticated: 401,
	forbidden: 403,
	not_found: 404,
	conflict: 409,
	precondition_failed: 412,
	too_large: 413,
	unsupported_media: 415,
	invalid: 422,
	upgrade_required: 426,
	rate_limited: 429,
	loop_detected: 508,
	unavailable: 503,
};

const STATUS_NAMES: Record<number, string> = {
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	405: 'Method Not Allowed',
	409: 'Conflict',
	412: 'Precondition Failed',
	413: 'Payload Too Large',
	415: 'Unsupported Media Type',
	422: 'Unprocessable Entity',
	426: 'Upgrade Required',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
	503: 'Service Unavailable',
	508: 'Loop Detected',
};

/** The spec's error body. */
export interface ErrorBody {
	error: string;
	message: string;
	statusCode: number;
}

export function httpStatus(error: AppError): number {
	return HTTP_STATUS[error.kind];
}

export function errorBody(statusCode: number, message: string): ErrorBody {
	return { error: STATUS_NAMES[statusCode] ?? 'Error', message, statusCode };
}

/**
 * What the client is told: the message, or each field problem as `<source>.<path>: <what is wrong>`.
 * `source`: where this edge's input came from when a problem does not say (a route's body, a socket's frame).
 */
export function clientMessage(error: AppError, source: InputSource): string {
	if (error.problems.length === 0) return error.message;
	return error.problems.map((p) => `${[p.source ?? source, ...p.path].join('.')}: ${p.message}`).join('; ');
}

/** The error body of a domain error at an edge whose input is `source`. */
export function bodyOf(error: AppError, source: InputSource): ErrorBody {
	return errorBody(httpStatus(error), clientMessage(error, source));
}
