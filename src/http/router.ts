import { OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi';
import type { AppEnv } from '../app-env';
import { type FieldProblem, type InputSource, Invalid, problemsOf } from '../lib/errors';

/**
 * A sub-app whose routes validate with zod and feed the OpenAPI document. A validation failure becomes a
 * 422 in the spec's error body, naming the field and the reason.
 *
 * Every route's query is strict, including a route that declares none (an empty query): a parameter the
 * route does not declare is refused with a 422 that names it, never ignored. A misspelt filter that were
 * ignored would list, or bulk-change, far more than the caller meant; the document says so once
 * (src/http/openapi-document.ts).
 */
export function createRouter() {
	const router = new OpenAPIHono<AppEnv>({
		defaultHook: (result) => {
			if (!result.success) throw Invalid.fromProblems(fieldProblems(result.error.issues, result.target as InputSource));
		},
	});
	const declare = router.openapi;
	router.openapi = ((route, handler, hook) => declare(withStrictQuery(route), handler, hook)) as typeof declare;
	return router;
}

/** The route with its query made strict (an empty strict one when it declares none). */
function withStrictQuery<R extends RouteConfig>(route: R): R {
	const query = route.request?.query ?? z.object({});
	if (!(query instanceof z.ZodObject)) {
		// A transformed query could not be made strict here: refuse it at start-up rather than let it through.
		throw new Error(`${route.method.toUpperCase()} ${route.path}: a query schema must be a plain z.object`);
	}
	// `.strict()` rather than a new strict object of the same shape: the query's own refinements stay.
	return { ...route, request: { ...route.request, query: query.strict() } };
}

/**
 * zod's issues as field problems (ten at most). Each unknown query parameter becomes a problem of its own, named
 * in its path (`query.stauts: …`) as every other bad field is, where zod reports them together at the query's root.
 */
function fieldProblems(issues: readonly z.core.$ZodIssue[], source: InputSource): FieldProblem[] {
	return issues
		.flatMap((issue) =>
			source === 'query' && issue.code === 'unrecognized_keys'
				? issue.keys.map((key) => ({ path: [key], message: 'not a parameter this operation takes', source }))
				: problemsOf([issue], source),
		)
		.slice(0, 10);
}
