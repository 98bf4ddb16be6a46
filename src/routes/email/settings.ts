import { createRoute } from '@hono/zod-openapi';
import {
	emailSettingsSchema,
	emailSettingsUpdateSchema,
	loadEmailSettings,
	saveEmailSettings,
} from '../../domain/channels/email/settings';
import { errorResponses, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';

const example = {
	senderName: 'Acme support',
	senderAddress: 'support@acme.example',
	replyDomain: null,
	continuationEnabled: true,
	continuationDelaySeconds: 120,
	linkOrigin: 'https://parley.acme.example',
	sending: { ready: true, reason: null },
};

export const emailSettingsRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/settings',
			operationId: 'getEmailSettings',
			summary: 'The e-mail settings of the workspace',
			description:
				'The sender, the reply domain, the continuation of widget conversations by mail, and `sending`: whether mail can go out and, if not, why (until a sender is set, nothing is sent).',
			...requires('admin'),
			responses: {
				200: jsonResponse('The settings.', emailSettingsSchema, example),
				...errorResponses(403),
			},
		}),
		async (c) => c.json(await loadEmailSettings(c.var.db, c.var.caller.workspaceId), 200),
	)
	.openapi(
		createRoute({
			method: 'put',
			path: '/settings',
			operationId: 'updateEmailSettings',
			summary: 'Update the e-mail settings (partial)',
			description:
				'Fields left out keep their value; `null` clears the sender name, the sender address (which stops all mail) or the reply domain. The sender address must be on a domain the workspace has onboarded to Cloudflare Email Sending, or the provider refuses its mail and `sending` says so. Saving also records the origin this request reached, which links in mail (the stop link, files) use.',
			...requires('admin'),
			request: {
				body: jsonBody(emailSettingsUpdateSchema, {
					senderName: 'Acme support',
					senderAddress: 'support@acme.example',
				}),
			},
			responses: {
				200: jsonResponse('The settings after the update.', emailSettingsSchema, example),
				...errorResponses(400, 403, 413, 415, 422),
			},
		}),
		async (c) => {
			const origin = new URL(c.req.url).origin;
			return c.json(await saveEmailSettings(c.var.db, c.var.caller.workspaceId, c.req.valid('json'), origin), 200);
		},
	);
