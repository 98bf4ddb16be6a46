import { OpenAPIHono, type z } from '@hono/zod-openapi';
import type { AppEnv } from '../app-env';
import { Invalid } from './errors';

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

/**
 * A sub-app whose routes validate with zod and feed the OpenAPI document. A validation failure becomes a
 * 422 in the spec's error body, naming the field and the reason.
 */
export function createRouter() {
	return new OpenAPIHono<AppEnv>({
		defaultHook: (result) => {
			if (!result.success) throw new Invalid(describeIssues(result.target, result.error.issues));
		},
	});
}
