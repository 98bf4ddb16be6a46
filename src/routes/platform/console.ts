import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AppEnv } from '../../app-env';
import { hashSession, isWellFormedSession, sessionCookieName } from '../../auth/console-session';
import { callerBySessionHash } from '../../auth/credentials';
import { openDatabase } from '../../db/client';
import { credentialBinding } from '../../db/shards';
import { widgetSnippet } from '../../domain/widget/snippet';

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
		// https: for a received mail's remote images, which the console's sandboxed frame (that inherits this policy)
		// loads only once the operator asks; nothing else of the console shows a remote image.
		"img-src 'self' data: blob: https:",
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

/**
 * The live preview Settings > Widget frames: the real widget on a blank page, embedded with the real snippet,
 * for the workspace in `?workspaceId=`. The console sends the form's unsaved values with `postMessage`, which
 * the page passes on as a second `kw('init', ...)` (the options it accepts). Only the console's own pages may
 * frame it; it is not for search engines. Its two scripts run by a nonce, as nothing else inline may.
 */
function previewPage(origin: string, workspaceId: string, nonce: string): string {
	const listen = `(function(){var ws=${JSON.stringify(workspaceId)};
kw('on','ready',function(){document.documentElement.dataset.ready='1'});
addEventListener('message',function(e){if(e.source!==parent||e.origin!==location.origin)return;var m=e.data;
if(!m||m.type!=='parley-preview'||typeof m.options!=='object')return;
kw('init',Object.assign({},m.options,{workspaceId:ws}));if(m.open)kw('open')})})();`;
	const snippet = widgetSnippet(origin, workspaceId).replace('<script>', `<script nonce="${nonce}">`);
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>Widget preview</title>
<style>html,body{height:100%;margin:0}body{font:14px system-ui,sans-serif;background:#eef0f4;color:#8a8f98}
.site{max-width:520px;margin:0 auto;padding:28px 24px}.bar{height:12px;border-radius:6px;background:#dfe2e8;margin:12px 0}
.hero{height:90px;border-radius:12px;background:#e5e8ee;margin:18px 0}</style></head>
<body><div class="site" aria-hidden="true"><div class="bar" style="width:40%"></div><div class="hero"></div>
<div class="bar"></div><div class="bar" style="width:85%"></div><div class="bar" style="width:70%"></div></div>
${snippet}<script nonce="${nonce}">${listen}</script></body></html>`;
}

const PREVIEW_HEADERS: Record<string, string> = {
	'X-Frame-Options': 'SAMEORIGIN',
	'X-Robots-Tag': 'noindex',
	'Referrer-Policy': 'same-origin',
	'X-Content-Type-Options': 'nosniff',
	'Cache-Control': 'no-store',
};

export const consolePages = new Hono<AppEnv>()
	.get('/preview', async (c) => {
		const workspaceId = c.req.query('workspaceId') ?? '';
		if (!/^[A-Za-z0-9_-]{1,64}$/.test(workspaceId)) return c.text('workspaceId is missing or malformed.', 400);
		// The page runs a workspace's live widget on the console's own origin: only for a signed-in member of that
		// workspace, so nobody can serve someone else's chat (or anything the widget shows) from this origin.
		const session = getCookie(c, sessionCookieName(new URL(c.req.url), c.env)) ?? '';
		const hash = isWellFormedSession(session) ? await hashSession(session) : null;
		const caller = hash
			? await callerBySessionHash(
					openDatabase(await credentialBinding(c.env, 'session', hash)),
					hash,
					Date.now(),
					(work) => c.executionCtx.waitUntil(work),
				)
			: null;
		if (!caller) return c.text('Sign in to the console to preview the widget.', 401, PREVIEW_HEADERS);
		if (caller.workspaceId !== workspaceId) return c.text('Not your workspace.', 403, PREVIEW_HEADERS);
		const nonce = crypto.randomUUID().replaceAll('-', '');
		const origin = new URL(c.req.url).origin;
		return c.html(previewPage(origin, workspaceId, nonce), 200, {
			...PREVIEW_HEADERS,
			'Content-Security-Policy': [
				"default-src 'self'",
				`script-src 'self' 'nonce-${nonce}'`,
				// The stand-in site around the widget is styled inline (the widget itself needs no inline style); the logo is any https image.
				"style-src 'self' 'unsafe-inline'",
				"img-src 'self' https: data: blob:",
				"connect-src 'self'",
				"frame-ancestors 'self'",
				"base-uri 'none'",
				"form-action 'self'",
			].join('; '),
		});
	})
	.get('*', async (c) => {
		const page = await c.env.ASSETS.fetch(new URL('/console/index.html', c.req.url));
		if (!page.ok) return c.text('The console is not built: run `npm run build`.', 503);
		const headers = new Headers(page.headers);
		for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
		return new Response(page.body, { status: 200, headers });
	});
