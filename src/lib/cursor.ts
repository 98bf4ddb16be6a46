import type { z } from '@hono/zod-openapi';

/** Opaque cursors: the API promises nothing about their content, so clients cannot depend on it. */
export function encodeCursor(value: unknown): string {
	return btoa(JSON.stringify(value)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

export function decodeCursor<T>(cursor: string, schema: z.ZodType<T>): T | null {
	try {
		const json = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'));
		const parsed = schema.safeParse(JSON.parse(json));
		return parsed.success ? parsed.data : null;
	} catch {
		return null;
	}
}
