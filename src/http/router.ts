import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../app-env';
import { type InputSource, Invalid } from '../lib/errors';

/**
 * A sub-app whose routes validate with zod and feed the OpenAPI document. A validation failure becomes a
 * 422 in the spec's error body, naming the field and the reason.
 */
export function createRouter() {
	return new OpenAPIHono<AppEnv>({
		defaultHook: (result) => {
			if (!result.success) throw Invalid.fromIssues(result.error.issues, result.target as InputSource);
		},
	});
}
