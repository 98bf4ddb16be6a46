import { Hono } from 'hono';
import type { AppEnv } from '../app-env';

/**
 * The console's pages: every /console path that is not a built file (those, under /console/assets/, are served
 * straight from the assets) gets the single page, whose router draws the screen the path names, so a deep link
 * or a reload of /console/conversations/conv_… works. The page may not be framed by another site
 * (clickjacking), runs only its own scripts, and talks only to its own origin (the API and its sockets).
 */
const SECURITY_HEADERS: Record<string, string> = {
	'Content-Security-Policy': [
		"default-src 'self'",
		"script-src 'self'",
		"style-src 'self' 'unsafe-inline'",
		"img-src 'self' data: blob:",
		"connect-src 'self'",
		// The live preview of the widget (Settings > Widget) is a page of this same origin.
		"frame-src 'self'",
		"frame-ancestors 'none'",
		"base-uri 'none'",
		"form-action 'self'",
	].join('; '),
	'X-Frame-Options': 'DENY',
	'Referrer-Policy': 'same-origin',
	'X-Content-Type-Options': 'nosniff',
	// The page is small and names hashed files: always revalidated, so a release shows at the next load.
	'Cache-Control': 'no-cache',
};

export const consolePages = new Hono<AppEnv>().get('*', async (c) => {
	const page = await c.env.ASSETS.fetch(new URL('/console/index.html', c.req.url));
	if (!page.ok) return c.text('The console is not built: run `npm run build`.', 503);
	const headers = new Headers(page.headers);
	for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
	return new Response(page.body, { status: 200, headers });
});
