/**
 * The operator console's session, as the browser holds it: a random value in an HttpOnly cookie (D1 keeps its
 * SHA-256, see `consoleSessions`), plus the defences a cookie needs that a Bearer token does not:
 * - the cookie is `__Host-` prefixed (Secure, Path=/, no Domain: no sibling sub-domain can set or read it) and
 *   SameSite=Lax, so a cross-site form post does not carry it;
 * - a request that presents it must come from the console's own origin (`Origin`, or `Sec-Fetch-Site`), so
 *   another site's script, or a WebSocket opened from another site, cannot use it;
 * - every state-changing request carries `X-CSRF-Token`, an HMAC of the session's hash under a key derived from
 *   PARLEY_SECRET: a value another origin cannot read or compute.
 */
import { deploymentSecret, deriveKey, encodeBase64url } from './secrets';
import { digestsEqual, randomBase62, sha256Hex } from './token';

/** The cookie on HTTPS (and on localhost, which browsers treat as secure). */
export const SESSION_COOKIE = '__Host-parley_session';
/**
 * The cookie over plain HTTP to another host, which only `npm run dev -- --ip 0.0.0.0` allows (HTTPS_ONLY off):
 * a browser drops a Secure cookie there, so this one has no Secure flag and no prefix. Never read otherwise.
 */
export const PLAIN_HTTP_SESSION_COOKIE = 'parley_session';
export const CSRF_HEADER = 'X-CSRF-Token';
/** How long a sign-in lasts: then the console asks for the password again. */
export const SESSION_DAYS = 30;
const SESSION_PREFIX = 'pses_';
const SESSION_PATTERN = /^pses_[0-9A-Za-z]{43}$/;

/** A new session value (256 random bits) for the cookie; store `sha256Hex(value)`. */
export function newSessionValue(): string {
	return `${SESSION_PREFIX}${randomBase62(43)}`;
}

export function isWellFormedSession(value: string): boolean {
	return SESSION_PATTERN.test(value);
}

export const hashSession = sha256Hex;

/** Whether the browser keeps Secure cookies for this URL: HTTPS, or a loopback host. */
function secureContext(url: URL): boolean {
	return url.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

/** The cookie's name for this request's URL (see PLAIN_HTTP_SESSION_COOKIE). */
export function sessionCookieName(url: URL, env: Pick<Env, 'HTTPS_ONLY'>): string {
	return secureContext(url) || env.HTTPS_ONLY !== 'off' ? SESSION_COOKIE : PLAIN_HTTP_SESSION_COOKIE;
}

/** The `Set-Cookie` value that stores `value` (or, with `value` null, clears the cookie). */
export function sessionCookie(url: URL, env: Pick<Env, 'HTTPS_ONLY'>, value: string | null): string {
	const name = sessionCookieName(url, env);
	const maxAge = value === null ? 0 : SESSION_DAYS * 24 * 60 * 60;
	const secure = name === SESSION_COOKIE ? '; Secure' : '';
	return `${name}=${value ?? ''}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

/** The CSRF token of a session: HMAC-SHA256 of the session's hash under the deployment's `console-csrf` key. */
export async function csrfToken(env: Pick<Env, 'PARLEY_SECRET'>, sessionHash: string): Promise<string> {
	const key = await deriveKey(deploymentSecret(env), 'console-csrf');
	const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(sessionHash));
	return encodeBase64url(new Uint8Array(mac));
}

/** Whether `presented` is the session's CSRF token (constant time). */
export async function csrfMatches(env: Pick<Env, 'PARLEY_SECRET'>, sessionHash: string, presented: string) {
	return digestsEqual(await csrfToken(env, sessionHash), presented);
}

/**
 * Whether the request comes from a page of this same origin: its `Origin` header is this URL's origin, or,
 * without one (a browser sends none on a same-origin GET), `Sec-Fetch-Site: same-origin`. A request with
 * neither is not a browser page's, and a cookie is not accepted from it.
 */
export function fromOwnOrigin(request: Request): boolean {
	const origin = request.headers.get('Origin');
	if (origin !== null) return origin === new URL(request.url).origin;
	return request.headers.get('Sec-Fetch-Site') === 'same-origin';
}

/** GET, HEAD and OPTIONS change nothing; everything else needs the CSRF token. */
export function changesState(method: string): boolean {
	return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}
