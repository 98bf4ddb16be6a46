import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app-env';
import { Forbidden } from '../lib/errors';

/**
 * The spec: "Requests must use HTTPS". Outside local development (a loopback host name, or `HTTPS_ONLY`
 * "off", which `npm run dev` sets for a phone on the LAN) a request that arrived over plain HTTP is
 * refused (the API and the widget endpoints, whose requests carry a token or a visitor session) or, for a
 * page a person opens (GET or HEAD of anything else: /demo, the static pages), redirected to https.
 *
 * The API is refused rather than redirected: the credential has already crossed the network in clear, and a
 * redirect that HTTP clients follow silently would keep sending it that way on every call. A refusal makes
 * the mistake visible on the first call. It runs before the database and the token check, so a refused
 * request costs nothing and reads nothing.
 */
export const httpsOnly = createMiddleware<AppEnv>(async function httpsOnly(c, next) {
	const url = new URL(c.req.url);
	if (url.protocol !== 'http:' || isLocalDevelopment(url.hostname) || c.env.HTTPS_ONLY === 'off') return next();
	url.protocol = 'https:';
	if (plainHttpAnswer(c.req.method, url.pathname) === 301) return c.redirect(url.toString(), 301);
	throw new Forbidden(httpsRefusal(url.origin, url.pathname));
});

/**
 * What a deployment answers a request that came over plain HTTP: 301 to the same URL on https for a page a
 * person opens (GET or HEAD, upper case as a request has it, outside the API and the widget's endpoints), else
 * 403. The API document states the same of each operation, from this function (src/http/openapi-document.ts).
 */
export function plainHttpAnswer(method: string, pathname: string): 301 | 403 {
	const isPage = (method === 'GET' || method === 'HEAD') && !carriesCredentials(pathname);
	return isPage ? 301 : 403;
}

/** The 403's message, naming the https address (without the query) to call instead. */
export function httpsRefusal(secureOrigin: string, pathname: string): string {
	return `Requests must use HTTPS: call ${secureOrigin}${pathname}. This one was sent in clear text; if it carried a token, regenerate it (POST /v3/tokens/regenerate).`;
}

/** Paths whose requests carry an API token or a visitor session: refused over HTTP, never redirected. */
function carriesCredentials(pathname: string): boolean {
	return pathname === '/v3' || pathname.startsWith('/v3/') || pathname.startsWith('/widget/');
}

/**
 * Local development: `wrangler dev` (localhost, 127.0.0.1) and the names that can only reach this machine.
 * `*.localhost` resolves to loopback (RFC 6761); an IPv6 loopback arrives bracketed in a URL.
 */
export function isLocalDevelopment(hostname: string): boolean {
	const host = hostname.toLowerCase();
	return (
		host === 'localhost' || host.endsWith('.localhost') || host === '127.0.0.1' || host === '[::1]' || host === '::1'
	);
}
