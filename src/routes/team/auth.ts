import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../../app-env';
import { sessionCookie } from '../../auth/console-session';
import {
	consoleSessionSchema,
	currentSession,
	signIn,
	signInSchema,
	signOut,
	workspaceChoiceSchema,
} from '../../domain/team/console-auth';
import {
	changePassword,
	changePasswordSchema,
	setPasswordSchema,
	setPasswordWithLink,
} from '../../domain/team/console-passwords';
import { clientIp } from '../../domain/widget/visitor-limits';
import { anyToken, errorResponses, forbiddenResponse, jsonBody, jsonResponse, noCredential } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { Forbidden } from '../../lib/errors';

const sessionExample = {
	operator: { id: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Ana Souza', email: 'ana@acme.example' },
	workspace: { id: 'ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Acme' },
	permissions: ['admin'],
	csrfToken: 'k3J2yq0m7Qw1_xgZ9YVb4m1wq6hQeFf0S8n2d3a5b7c',
	expiresAt: '2026-12-24T12:00:00.000Z',
};

/**
 * A browser may only post here from the console's own page: another site must not sign a visitor in to an
 * account of its choosing (login CSRF). A request with no `Origin` at all is not a browser page's (curl).
 */
const ownOriginOnly = createMiddleware<AppEnv>(async function ownOriginOnly(c, next) {
	const origin = c.req.header('Origin');
	if (origin !== undefined && origin !== new URL(c.req.url).origin) {
		throw new Forbidden('Sign in from the console itself.');
	}
	await next();
});

/** What `ownOriginOnly` refuses. */
const fromAnotherSite = forbiddenResponse(
	'The request came from a page of another origin than the console’s own (a request without `Origin`, from a server or curl, is let through): sign in from the console itself.',
	'Sign in from the console itself.',
);

function client(c: Context<AppEnv>) {
	return { userAgent: c.req.header('User-Agent') ?? '', ip: clientIp(c.req.raw.headers) };
}

/** Sets the new session's cookie; the answer, which carries the CSRF token, is never cached. */
function startSession(c: Context<AppEnv>, cookie: string): void {
	c.header('Set-Cookie', sessionCookie(new URL(c.req.url), c.env, cookie));
	c.header('Cache-Control', 'no-store');
}

/** Signing in and setting a password: no credential yet (mounted ahead of `operatorAuth`). */
export const publicAuth = createRouter()
	.openapi(
		createRoute({
			method: 'post',
			path: '/sign-in',
			operationId: 'signIn',
			summary: 'Sign in to the operator console',
			description:
				'Checks the e-mail and password and sets the console’s session cookie (HttpOnly, Secure, SameSite=Lax, 30 days). A wrong e-mail and a wrong password get the same 401. After a few failures for one e-mail (or from one address) each try must wait longer, then they are locked for 15 minutes (429 with `Retry-After`). When the password opens members of several workspaces, the answer is 300 with their list: sign in again with `workspaceId`.',
			...noCredential,
			middleware: [ownOriginOnly],
			request: { body: jsonBody(signInSchema, { email: 'ana@acme.example', password: 'correct horse battery' }) },
			responses: {
				200: jsonResponse('Signed in: the cookie is set.', consoleSessionSchema, sessionExample),
				300: jsonResponse('The password opens several workspaces: choose one.', workspaceChoiceSchema, {
					workspaces: [
						{ id: 'ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Acme' },
						{ id: 'ws_01JD3Q8Z6Y2V7K1N4M5P6R7S9V', name: 'Acme Brasil' },
					],
				}),
				...errorResponses(400, 413, 415, 422),
				...fromAnotherSite,
			},
		}),
		async (c) => {
			const outcome = await signIn(c.env, c.var.db, c.req.valid('json'), client(c));
			if ('choose' in outcome) return c.json(outcome.choose, 300);
			startSession(c, outcome.cookie);
			return c.json(outcome.session, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/set-password',
			operationId: 'setPassword',
			summary: 'Set a password with a one-time link, and sign in',
			description:
				'The token comes from an invitation or reset link an admin made (`POST /v3/team/members/{id}/password-link`). The link is used up; a reset ends the member’s other sessions. An expired or used link is a 422.',
			...noCredential,
			middleware: [ownOriginOnly],
			request: { body: jsonBody(setPasswordSchema, { token: 'ppl_…', password: 'correct horse battery' }) },
			responses: {
				200: jsonResponse('The password is set and the cookie too.', consoleSessionSchema, sessionExample),
				...errorResponses(400, 413, 415, 422),
				...fromAnotherSite,
			},
		}),
		async (c) => {
			const { session, cookie } = await setPasswordWithLink(c.env, c.var.db, c.req.valid('json'), client(c));
			startSession(c, cookie);
			return c.json(session, 200);
		},
	);

/** The signed-in console's own session (behind `operatorAuth`). */
export const sessionRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/session',
			operationId: 'getConsoleSession',
			summary: 'The console session making this request',
			description:
				'Who is signed in, in which workspace, and the CSRF token to send as `X-CSRF-Token`: what a reloaded console asks first. 409 when called with a Token V3.',
			...anyToken,
			responses: {
				200: jsonResponse('The session.', consoleSessionSchema, sessionExample),
				...errorResponses(409),
			},
		}),
		async (c) => {
			c.header('Cache-Control', 'no-store');
			return c.json(await currentSession(c.env, c.var.db, c.var.caller), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/session',
			operationId: 'signOut',
			summary: 'Sign out',
			description: 'Ends the session at once (its live sockets close at their next check) and clears the cookie.',
			...anyToken,
			responses: { 204: { description: 'Signed out.' }, ...errorResponses() },
		}),
		async (c) => {
			await signOut(c.env, c.var.db, c.var.caller);
			c.header('Set-Cookie', sessionCookie(new URL(c.req.url), c.env, null));
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'put',
			path: '/password',
			operationId: 'changePassword',
			summary: 'Change your own password',
			description:
				'The current password is checked (422 when wrong). Every other console session of the operator ends; this one stays.',
			...anyToken,
			request: {
				body: jsonBody(changePasswordSchema, {
					currentPassword: 'correct horse battery',
					newPassword: 'staple battery horse correct',
				}),
			},
			responses: { 204: { description: 'Changed.' }, ...errorResponses(400, 413, 415, 422) },
		}),
		async (c) => {
			await changePassword(c.env, c.var.db, c.var.caller, c.req.valid('json'));
			return c.body(null, 204);
		},
	);
