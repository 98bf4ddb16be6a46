/**
 * GET /docs: the interactive reference of /v3/openapi.json, drawn by Scalar's standalone script. The script is
 * the npm package's own bundle, copied into the static assets at build time (scripts/build.mjs), so the page
 * needs nothing but this origin: it works offline and no CDN can change the code that runs beside the API's
 * "Try it" requests.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../../app-env';

/** Where scripts/build.mjs puts `@scalar/api-reference/dist/browser/standalone.js`. */
export const API_REFERENCE_SCRIPT = '/docs/scalar.js';

/**
 * What Scalar may reach: its defaults load fonts from fonts.scalar.com, send "Try it" requests through
 * proxy.scalar.com and report telemetry; the API is on this origin, so none of that is needed.
 */
const configuration = {
	withDefaultFonts: false,
	proxyUrl: '',
	telemetry: false,
	showDeveloperTools: 'never',
};

/**
 * The script finds its settings on the element `#api-reference` (its documented HTML API). The element is a
 * JSON block, not code, so the page has no inline script for the CSP to allow.
 */
const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Parley API reference</title></head>
<body><script id="api-reference" type="application/json" data-url="/v3/openapi.json" data-configuration="${JSON.stringify(configuration).replaceAll('"', '&quot;')}"></script>
<script src="${API_REFERENCE_SCRIPT}"></script></body></html>`;

const SECURITY_HEADERS: Record<string, string> = {
	'Content-Security-Policy': [
		"default-src 'self'",
		"script-src 'self'",
		// Scalar injects its stylesheet and sets style attributes at run time.
		"style-src 'self' 'unsafe-inline'",
		"img-src 'self' data: blob:",
		"font-src 'self' data:",
		// The document itself and "Try it" requests, both to this origin.
		"connect-src 'self'",
		"worker-src 'self' blob:",
		"frame-ancestors 'none'",
		"base-uri 'none'",
		"form-action 'self'",
		"object-src 'none'",
	].join('; '),
	'X-Content-Type-Options': 'nosniff',
	'Referrer-Policy': 'same-origin',
};

export const docs = new Hono<AppEnv>().get('/', (c) => c.html(page, 200, SECURITY_HEADERS));
