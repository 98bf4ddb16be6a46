import type { Hono } from 'hono';
import type { AppEnv } from '../app-env';
import { errorBody } from '../lib/error-status';

/**
 * For every path the app serves, answers the methods it does not serve with 405 and an Allow header,
 * instead of a misleading 404. Call after every route is mounted: handlers registered earlier win.
 */
export function answerMethodNotAllowed(app: Hono<AppEnv>): void {
	const methodsByPath = new Map<string, Set<string>>();
	for (const route of app.routes) {
		if (route.method === 'ALL') continue;
		const methods = methodsByPath.get(route.path) ?? new Set<string>();
		methods.add(route.method);
		methodsByPath.set(route.path, methods);
	}
	for (const [path, methods] of methodsByPath) {
		const allow = [...methods].sort().join(', ');
		app.all(path, function methodNotAllowed(c) {
			c.header('Allow', allow);
			return c.json(errorBody(405, `${c.req.method} is not allowed on ${c.req.path}; use ${allow}.`), 405);
		});
	}
}
