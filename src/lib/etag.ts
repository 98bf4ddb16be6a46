/**
 * `ETag` and `If-Match` (RFC 9110 §8.8.3, §13.1.1) for the documents people edit, so that two editors cannot
 * silently overwrite each other: a single read and every write answer carry the version as a strong ETag; a
 * PATCH, PUT or DELETE with `If-Match` applies only while that version is current (a 412 otherwise, nothing
 * changed). `If-Match` is optional: without it a write behaves as it always did. The version is the row's
 * `updated_at` (src/lib/expected-version.ts); the domain checks it, this module only speaks HTTP.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ExpectedVersion } from './expected-version';

/** `*`, or a comma-separated list of entity tags, each in double quotes (`W/` marks a weak one). */
const IF_MATCH = /^\s*(?:\*|(?:W\/)?"[\x21\x23-\x7e]*"(?:\s*,\s*(?:W\/)?"[\x21\x23-\x7e]*")*)\s*$/;

/** The `If-Match` request header, for a route's `request.headers`. */
export const ifMatchHeaders = z.object({
	'if-match': z
		.string()
		.max(1024)
		.regex(IF_MATCH, 'must be * or entity tags in double quotes, as the ETag header gave them')
		.optional()
		.openapi({
			description:
				'The `ETag` you read (recommended): the change applies only while it is still current, else `412` and nothing changes. `*` matches any version.',
			example: '"1767225600123"',
		}),
});

/** The `ETag` response header, for a route's response entry: `{ ...jsonResponse(…), headers: etagHeader }`. */
export const etagHeader = {
	ETag: {
		description: 'Its version (a strong entity tag). Send it back as `If-Match` with a change.',
		schema: { type: 'string' as const, example: '"1767225600123"' },
	},
};

/** The strong entity tag of a version. */
export function etagOf(version: number): string {
	return `"${version}"`;
}

/**
 * What an `If-Match` asks of the version: none (no header), any (`*`), or one of the strong tags it lists.
 * Weak tags and tags that name no version of ours match nothing (If-Match compares strongly), so they fail.
 */
export function expectedVersion(header: string | undefined): ExpectedVersion | undefined {
	if (header === undefined) return undefined;
	if (header.trim() === '*') return 'any';
	const versions: number[] = [];
	for (const [, weak, tag] of header.matchAll(/(W\/)?"([^"]*)"/g)) {
		if (!weak && tag !== undefined && /^\d{1,16}$/.test(tag)) versions.push(Number(tag));
	}
	return versions;
}

/** The version a request's `If-Match` expects (the header as the route validated it). */
export function ifMatch(c: Context): ExpectedVersion | undefined {
	return expectedVersion(c.req.header('If-Match'));
}

/** Sets the answer's `ETag` to `version`'s and returns `body`: `c.json(withETag(c, row.updatedAt, view), 200)`. */
export function withETag<T>(c: Context, version: number, body: T): T {
	c.header('ETag', etagOf(version));
	return body;
}

/** Sets the answer's `ETag` from a view's own `updatedAt` (ISO 8601, to the millisecond) and returns it. */
export function tagged<T extends { updatedAt: string }>(c: Context, view: T): T {
	return withETag(c, Date.parse(view.updatedAt), view);
}

/** A route's response entry with the `ETag` header documented: `200: etagged(jsonResponse(…))`. */
export function etagged<T extends object>(response: T): T & { headers: typeof etagHeader } {
	return { ...response, headers: etagHeader };
}
