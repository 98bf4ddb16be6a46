/**
 * A part of polishing the API document (src/http/openapi-document.ts): each operation states every status the
 * server can answer it, those of the middleware every route shares included.
 */
import { changesState } from '../auth/console-session';
import { httpsRefusal, plainHttpAnswer } from './https-only';
import { documentedErrorResponse, ERROR_DESCRIPTIONS } from './openapi';
import { child, headerRef, isObject, type Json, type JsonObject } from './openapi-json';

/**
 * The refusals that come from what every route shares rather than from the route itself, documented on every
 * operation they apply to: a 422 everywhere (the router refuses a query parameter the route does not take,
 * src/http/router.ts, and a path parameter that breaks its constraint); what a deployment answers plain HTTP
 * (`httpsOnly`: a 301 to https for a page, a 403 for the rest); and one 403 that names every reason it is
 * answered for: the permission the operation names, the route's own (the 403 it declares), the console's
 * cookie from another origin or, on a change, without its CSRF token (`sessionAuth`), and plain HTTP.
 */
export function documentRefusals(path: string, operation: JsonObject, method: string, security: Json[]): void {
	const responses = child(operation, 'responses');
	responses['422'] ??= documentedErrorResponse(422);
	const overHttp = plainHttpAnswer(method.toUpperCase(), path);
	if (overHttp === 301) responses['301'] = redirectedToHttps();
	const declared = isObject(responses['403']) ? responses['403'] : undefined;
	const permission = operation['x-required-permission'];
	const byConsole = security.some((r) => isObject(r) && 'ConsoleSession' in r);
	const csrf = changesState(method) ? ', or without its `X-CSRF-Token` header' : '';
	const reasons = [
		typeof permission === 'string' && permission !== 'none' ? ERROR_DESCRIPTIONS[403] : undefined,
		declared?.description,
		byConsole
			? `the console's session cookie came from another origin than the console's own (integrations send a Token V3)${csrf}.`
			: undefined,
		overHttp === 403 ? REFUSED_OVER_HTTP : undefined,
	].filter((reason, i, all): reason is string => typeof reason === 'string' && all.indexOf(reason) === i);
	const [first, ...others] = reasons;
	if (first === undefined) return;
	const description = [sentence(first), ...others.map((reason) => `Or ${clause(reason)}`)].join(' ');
	if (declared) {
		declared.description = description;
		return;
	}
	const example = byConsole ? CONSOLE_ORIGIN_REFUSAL : httpsRefusal('https://parley.example.com', path);
	responses['403'] = documentedErrorResponse(403, description, example);
}

/** What `sessionAuth` (src/auth/middleware.ts) answers a console cookie from another origin. */
const CONSOLE_ORIGIN_REFUSAL =
	'The console session is only accepted from the console itself; integrations send a Bearer token.';

/** Why `httpsOnly` refuses rather than redirects, for the operations it refuses over plain HTTP. */
const REFUSED_OVER_HTTP =
	'the request came over plain HTTP to a deployment (outside local development): call the same address on https. It is refused, not redirected, so that a credential sent in clear shows at once.';

/** The 301 `httpsOnly` answers a page (a link in a mail, a webhook's check) asked for over plain HTTP. */
function redirectedToHttps(): JsonObject {
	return {
		description:
			'The request came over plain HTTP to a deployment (outside local development): `Location` is the same address on https.',
		headers: { Location: headerRef('Location') },
	};
}

const sentence = (reason: string) => `${reason.charAt(0).toUpperCase()}${reason.slice(1)}`;
const clause = (reason: string) => `${reason.charAt(0).toLowerCase()}${reason.slice(1)}`;
