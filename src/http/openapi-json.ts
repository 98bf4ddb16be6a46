/**
 * The API document as plain JSON, the way src/http/openapi-document.ts and src/http/openapi-refusals.ts polish
 * the generated one: a value, an object, and the few moves they make in it.
 */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: Json | undefined): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object under `key`, made (empty) when there is none yet. */
export function child(parent: JsonObject, key: string): JsonObject {
	const existing = parent[key];
	if (isObject(existing)) return existing;
	const created: JsonObject = {};
	parent[key] = created;
	return created;
}

/** A response header as a reference to the document's one description of it (`components.headers`). */
export function headerRef(name: string): JsonObject {
	return { $ref: `#/components/headers/${name}` };
}
