import type { z } from '@hono/zod-openapi';

/**
 * Errors the domain throws. They know nothing about HTTP beyond the status they map to; the app's one
 * `onError` turns them into the spec's error body `{ error, message, statusCode }`.
 */
export class AppError extends Error {
	constructor(
		readonly statusCode: number,
		message: string,
		options?: { cause?: unknown },
	) {
		super(message, options);
		this.name = new.target.name;
	}
}

export class Unauthorized extends AppError {
	/**
	 * @param credentialOffered whether a credential of the expected kind came with the request (a Bearer token,
	 * a visitor session) and failed, as opposed to none at all: clients are told which (RFC 6750 §3.1).
	 */
	constructor(
		message = 'Missing or invalid API token.',
		readonly credentialOffered = true,
	) {
		super(401, message);
	}
}

export class Forbidden extends AppError {
	constructor(message: string) {
		super(403, message);
	}
}

export class NotFound extends AppError {
	constructor(message: string) {
		super(404, message);
	}
}

export class Conflict extends AppError {
	constructor(message: string, options?: { cause?: unknown }) {
		super(409, message, options);
	}
}

export class PayloadTooLarge extends AppError {
	constructor(message: string) {
		super(413, message);
	}
}

/** Well-formed input whose values break a rule (zod validation failures end here). */
export class Invalid extends AppError {
	constructor(message: string, options?: { cause?: unknown }) {
		super(422, message, options);
	}
}

/** A WebSocket endpoint reached by a plain HTTP request. */
export class UpgradeRequired extends AppError {
	constructor(message = 'This endpoint is a WebSocket: send "Upgrade: websocket".') {
		super(426, message);
	}
}

export class TooManyRequests extends AppError {
	constructor(
		message: string,
		readonly retryAfterSeconds: number,
	) {
		super(429, message);
	}
}

export class ServiceUnavailable extends AppError {
	constructor(message: string, options?: { cause?: unknown }) {
		super(503, message, options);
	}
}

/**
 * A deployment mistake (a missing or weak secret): not the caller's fault and nothing they can fix, so it is
 * answered with the generic 500 while its message, meant for whoever runs the Worker, goes to the log.
 */
export class ConfigurationError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'ConfigurationError';
	}
}

const STATUS_NAMES: Record<number, string> = {
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	405: 'Method Not Allowed',
	409: 'Conflict',
	413: 'Payload Too Large',
	415: 'Unsupported Media Type',
	422: 'Unprocessable Entity',
	426: 'Upgrade Required',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
	503: 'Service Unavailable',
};

/** The spec's error body. */
export interface ErrorBody {
	error: string;
	message: string;
	statusCode: number;
}

export function errorBody(statusCode: number, message: string): ErrorBody {
	return { error: STATUS_NAMES[statusCode] ?? 'Error', message, statusCode };
}

/** Turns zod issues into one human sentence naming each field and what is wrong with it. */
export function describeIssues(target: string, issues: readonly z.core.$ZodIssue[]): string {
	return issues
		.slice(0, 10)
		.map((issue) => {
			const path = [target, ...issue.path.map(String)].join('.');
			return `${path}: ${issue.message}`;
		})
		.join('; ');
}
