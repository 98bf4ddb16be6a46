/**
 * Errors the domain throws. They say what went wrong (a kind) and, for bad input, which field (a path in the
 * command's own terms, such as `assigneeId` or `interactive.buttons.0.label`), and nothing about the transport:
 * the HTTP error handler and the socket frames translate them at the edge (src/lib/error-status.ts), where the
 * field path gets the prefix of wherever the input came from (`json.`, `query.`, `frame.`).
 */
import type { z } from '@hono/zod-openapi';

export type ErrorKind =
	| 'malformed'
	| 'unauthenticated'
	| 'forbidden'
	| 'not_found'
	| 'conflict'
	| 'precondition_failed'
	| 'too_large'
	| 'unsupported_media'
	| 'invalid'
	| 'upgrade_required'
	| 'rate_limited'
	| 'loop_detected'
	| 'unavailable';

/** Where a field of the input was: the request body unless the edge that checked it says otherwise. */
export type InputSource = 'json' | 'query' | 'param' | 'header' | 'cookie' | 'form' | 'frame';

/** One thing wrong with one field of the input. */
export interface FieldProblem {
	/** The field, in the command's terms: `['assigneeId']`, `['interactive', 'buttons', 0, 'label']`. */
	path: readonly (string | number)[];
	message: string;
	/** Set by an edge that checked a part other than the body (a cursor in the query). */
	source?: InputSource;
}

export class AppError extends Error {
	/** The fields at fault, for an `invalid` error; empty for the others. */
	readonly problems: readonly FieldProblem[];

	constructor(
		readonly kind: ErrorKind,
		message: string,
		options?: { cause?: unknown; problems?: readonly FieldProblem[] },
	) {
		super(message, options);
		this.name = new.target.name;
		this.problems = options?.problems ?? [];
	}
}

/** Input that cannot even be read (not JSON, say); `Invalid` is for input read and found wrong. */
export class Malformed extends AppError {
	constructor(message: string) {
		super('malformed', message);
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
		super('unauthenticated', message);
	}
}

export class Forbidden extends AppError {
	constructor(message: string) {
		super('forbidden', message);
	}
}

export class NotFound extends AppError {
	constructor(message: string) {
		super('not_found', message);
	}
}

export class Conflict extends AppError {
	constructor(message: string, options?: { cause?: unknown }) {
		super('conflict', message, options);
	}
}

/**
 * A write that named the version it was computed from (an `If-Match` at the edge) while the thing has
 * changed since: nothing was written, and the caller should read it again rather than retry blindly.
 */
export class PreconditionFailed extends AppError {
	constructor(message: string) {
		super('precondition_failed', message);
	}
}

export class PayloadTooLarge extends AppError {
	constructor(message: string) {
		super('too_large', message);
	}
}

/** A body of a kind the endpoint does not take (an upload that is no accepted file). */
export class UnsupportedMediaType extends AppError {
	constructor(message: string) {
		super('unsupported_media', message);
	}
}

/**
 * Well-formed input whose values break a rule. Name the field when there is one:
 * `new Invalid('no operator op_1 in this workspace', { field: ['assigneeId'] })`.
 */
export class Invalid extends AppError {
	constructor(
		message: string,
		options?: {
			cause?: unknown;
			field?: readonly (string | number)[];
			source?: InputSource;
			problems?: readonly FieldProblem[];
		},
	) {
		const field = options?.field;
		const problems = options?.problems ?? (field ? [{ path: field, message, source: options?.source }] : []);
		super('invalid', message, { cause: options?.cause, problems });
	}

	/** Every problem zod found (ten at most), each with its field. */
	static fromIssues(issues: readonly z.core.$ZodIssue[], source?: InputSource): Invalid {
		return Invalid.fromProblems(problemsOf(issues, source));
	}

	/** Every problem, each with its field, as one error: `actions.0.text: …; condition: …`. */
	static fromProblems(problems: readonly FieldProblem[]): Invalid {
		return new Invalid(problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; '), { problems });
	}
}

/** A WebSocket endpoint reached by a plain HTTP request. */
export class UpgradeRequired extends AppError {
	constructor(message = 'This endpoint is a WebSocket: send "Upgrade: websocket".') {
		super('upgrade_required', message);
	}
}

export class TooManyRequests extends AppError {
	constructor(
		message: string,
		readonly retryAfterSeconds: number,
	) {
		super('rate_limited', message);
	}
}

/**
 * A call that came round again: an inbound call whose `Parley-Hops` says it is the latest of too many calls
 * Parley made to itself (src/lib/parley-hops.ts). Trying again cannot help.
 */
export class LoopDetected extends AppError {
	constructor(message: string) {
		super('loop_detected', message);
	}
}

export class ServiceUnavailable extends AppError {
	constructor(message: string, options?: { cause?: unknown }) {
		super('unavailable', message, options);
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

/** zod's issues as field problems: ten at most, each with its path. */
export function problemsOf(issues: readonly z.core.$ZodIssue[], source?: InputSource): FieldProblem[] {
	return issues.slice(0, 10).map((issue) => ({
		path: issue.path.map((p) => (typeof p === 'number' ? p : String(p))),
		message: issue.message,
		source,
	}));
}
