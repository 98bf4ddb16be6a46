/**
 * The links in mail, opened without a credential: the token in the path is the whole proof (signed, scoped
 * to one workspace and one contact or file). A forged or expired token is a 404 in the spec's error body.
 * The stop link stops continuation mails; the unsubscribe link of campaign mails opts out of campaigns.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { unsubscribe, unsubscribeTarget } from '../../domain/campaigns/unsubscribe';
import { linkedFile, stopContinuations, stopLinkTarget } from '../../domain/channels/email/links';
import { escapeHtml } from '../../engines/mail/compose';
import { errorResponses, noCredential } from '../../http/openapi';
import { createRouter } from '../../http/router';

const tokenParams = z.object({
	token: z
		.string()
		.min(1)
		.max(1024)
		.openapi({
			param: { name: 'token', in: 'path', description: 'The signed token the mail carried.' },
			example: 'eyJwdXJwb3NlIjoic3RvcCJ9.c2lnbmF0dXJl',
		}),
});

const htmlResponse = (description: string) => ({
	description,
	content: { 'text/html': { schema: z.string() } },
});

/** A small page of our own: no script, no remote resource, the workspace's name escaped. */
function page(title: string, body: string): Response {
	const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem">${body}</body></html>`;
	return new Response(html, {
		headers: {
			'Content-Type': 'text/html; charset=utf-8',
			'Content-Security-Policy':
				"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
			'Cache-Control': 'no-store',
			'Referrer-Policy': 'no-referrer',
		},
	});
}

export const mailLinks = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/stop/{token}',
			operationId: 'showStopMailLink',
			summary: 'The stop link of continuation mails: a confirmation page',
			description:
				'What a customer sees on opening the link at the foot of a continuation mail: a page asking them to confirm (a GET changes nothing, so a mail scanner that follows links stops nothing).',
			...noCredential,
			request: { params: tokenParams },
			responses: { 200: htmlResponse('The confirmation page.'), ...errorResponses(404) },
		}),
		async (c) => {
			const { workspaceName } = await stopLinkTarget(c.env, c.var.db, c.req.valid('param').token);
			const name = escapeHtml(workspaceName);
			return page(
				'Stop these mails',
				`<h1>Stop mails from ${name}?</h1><p>You will no longer get mail about replies you have not seen in chats with ${name}.</p><form method="post"><button type="submit">Stop these mails</button></form>`,
			);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/stop/{token}',
			operationId: 'stopMailLink',
			summary: 'Stop continuation mails for the link’s contact (one click, RFC 8058)',
			description:
				'The confirmation page’s button, and the one-click unsubscribe mail clients post to (`List-Unsubscribe-Post: List-Unsubscribe=One-Click`). Sets the contact’s continuation opt-out; stopping twice keeps the first time.',
			...noCredential,
			request: { params: tokenParams },
			responses: { 200: htmlResponse('The page saying it is done.'), ...errorResponses(404) },
		}),
		async (c) => {
			const { workspaceName } = await stopContinuations(c.env, c.var.db, c.req.valid('param').token);
			return page(
				'Stopped',
				`<h1>Done</h1><p>You will no longer get these mails from ${escapeHtml(workspaceName)}.</p>`,
			);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/unsubscribe/{token}',
			operationId: 'showUnsubscribeMailLink',
			summary: 'The unsubscribe link of campaign mails: a confirmation page',
			description:
				'What a customer sees on opening the unsubscribe link of a campaign mail: a page asking them to confirm (a GET changes nothing, so a mail scanner that follows links unsubscribes no one).',
			...noCredential,
			request: { params: tokenParams },
			responses: { 200: htmlResponse('The confirmation page.'), ...errorResponses(404) },
		}),
		async (c) => {
			const target = await unsubscribeTarget(c.env, c.var.db, c.req.valid('param').token);
			const name = escapeHtml(target.workspaceName);
			if (target.optedOut) {
				return page('Unsubscribed', `<h1>You are unsubscribed</h1><p>${name} sends you no more campaigns.</p>`);
			}
			return page(
				'Unsubscribe',
				`<h1>Unsubscribe from ${name}?</h1><p>You will no longer get campaigns from ${name}.</p><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
			);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/unsubscribe/{token}',
			operationId: 'unsubscribeMailLink',
			summary: 'Unsubscribe the link’s contact from campaigns (one click, RFC 8058)',
			description:
				'The confirmation page’s button, and the one-click unsubscribe mail clients post to (`List-Unsubscribe-Post: List-Unsubscribe=One-Click`, the body `List-Unsubscribe=One-Click`). Opts the contact out of campaigns (`optedOutSource`: `unsubscribe link`); unsubscribing twice keeps the first time.',
			...noCredential,
			request: { params: tokenParams },
			responses: { 200: htmlResponse('The page saying it is done.'), ...errorResponses(404) },
		}),
		async (c) => {
			const { workspaceName } = await unsubscribe(c.env, c.var.db, c.req.valid('param').token);
			return page(
				'Unsubscribed',
				`<h1>Done</h1><p>You will no longer get campaigns from ${escapeHtml(workspaceName)}.</p>`,
			);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/files/{token}',
			operationId: 'downloadMailFile',
			summary: 'A file a mail linked to instead of attaching it',
			description:
				'A file too large to attach, as a download, for as long as its link is valid (30 days from the mail).',
			...noCredential,
			request: { params: tokenParams },
			responses: {
				200: {
					description: 'The file.',
					content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
				},
				...errorResponses(404),
			},
		}),
		(c) => linkedFile(c.env, c.req.valid('param').token),
	);
