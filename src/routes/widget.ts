import { createRoute, z } from '@hono/zod-openapi';
import { requirePermission } from '../auth/middleware';
import { deploymentSecret, identitySecret } from '../auth/secrets';
import { disableIdentitySecret, rotateIdentitySecret } from '../domain/identity-settings';
import { findHandoff, handoffSchema } from '../domain/messaging-handoffs';
import { forgetWorkspaceLimits } from '../domain/visitor-limits';
import {
	loadWidgetSettings,
	publicWidgetConfig,
	publishPublicConfig,
	updateWidgetSettings,
	widgetAvailability,
	widgetSettingsSchema,
	widgetSettingsUpdateSchema,
} from '../domain/widget-settings';
import { widgetSnippet } from '../domain/widget-snippet';
import { ServiceUnavailable } from '../lib/errors';
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from '../lib/openapi';
import { createRouter } from '../lib/router';

const identitySecretSchema = z.object({ secret: z.string(), version: z.number().int() }).openapi('IdentitySecret');

const widgetInfoSchema = z
	.object({
		workspaceId: z.string(),
		widgetScriptUrl: z.string(),
		snippet: z.string().openapi({ description: 'Paste before </body> on every page of your (HTTPS) site.' }),
		businessHoursEnabled: z.boolean(),
		online: z.boolean().openapi({ description: 'Whether the widget shows the team as available right now.' }),
		period: z.enum(['always', 'in_hours', 'out_of_hours', 'weekend', 'holiday']),
		availabilityMessage: z.string(),
	})
	.openapi('WidgetInfo');

/** Where the widget script is served: WIDGET_URL when set, else this Worker's own origin. */
function widgetOrigin(configured: string, requestUrl: string): string {
	return (configured || new URL(requestUrl).origin).replace(/\/+$/, '');
}

export const widget = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/settings',
			summary: 'The widget settings of the workspace',
			security: bearerSecurity,
			responses: { 200: jsonResponse('The full settings object.', widgetSettingsSchema), ...errorResponses() },
		}),
		async (c) => c.json((await loadWidgetSettings(c.var.db, c.var.caller.workspaceId)).settings, 200),
	)
	.openapi(
		createRoute({
			method: 'put',
			path: '/settings',
			summary: 'Update any widget settings (partial); nested objects merge',
			security: bearerSecurity,
			middleware: [requirePermission('admin')] as const,
			request: { body: jsonBody(widgetSettingsUpdateSchema) },
			responses: {
				200: jsonResponse('The full settings after the update.', widgetSettingsSchema),
				...errorResponses(400, 403, 409, 413, 415, 422, 503),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const saved = await updateWidgetSettings(c.var.db, workspaceId, c.req.valid('json'));
			forgetWorkspaceLimits(workspaceId);
			// D1 stays the source of truth; the public copy the widget reads is rewritten before we answer.
			try {
				const config = publicWidgetConfig(workspaceId, saved.settings, saved.updatedAt);
				await publishPublicConfig(c.var.db, c.env.WIDGET_CONFIG, workspaceId, JSON.stringify(config));
			} catch (error) {
				throw new ServiceUnavailable(
					'The settings were saved but the widget cannot see them yet; repeat the same request.',
					{ cause: error },
				);
			}
			return c.json(saved.settings, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/info',
			summary: 'What a site owner needs to install the widget, and whether the team is online now',
			security: bearerSecurity,
			responses: { 200: jsonResponse('Widget information.', widgetInfoSchema), ...errorResponses() },
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const { settings } = await loadWidgetSettings(c.var.db, workspaceId);
			const origin = widgetOrigin(c.env.WIDGET_URL, c.req.url);
			return c.json(
				{
					workspaceId,
					widgetScriptUrl: `${origin}/widget.js`,
					snippet: widgetSnippet(origin, workspaceId),
					businessHoursEnabled: settings.businessHours.enabled,
					...widgetAvailability(settings, new Date()),
				},
				200,
			);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/identity-secret',
			summary: 'Turn on identity verification, or rotate its secret (the previous one stops working)',
			security: bearerSecurity,
			middleware: [requirePermission('admin')] as const,
			responses: {
				200: jsonResponse(
					"The secret your backend signs visitors' identity JWTs with (HS256). Keep it server-side.",
					identitySecretSchema,
				),
				...errorResponses(403, 503),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			// Checked before the rotation, so that a misconfigured deployment changes nothing.
			const deployment = deploymentSecret(c.env);
			const version = await rotateIdentitySecret(c.var.db, workspaceId);
			const secret = await identitySecret(deployment, workspaceId, version);
			return c.json({ secret, version }, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/identity-secret',
			summary: 'Turn identity verification off: every identify is stored as unverified',
			security: bearerSecurity,
			middleware: [requirePermission('admin')] as const,
			responses: { 204: { description: 'Verification is off.' }, ...errorResponses(403) },
		}),
		async (c) => {
			await disableIdentitySecret(c.var.db, c.var.caller.workspaceId);
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/handoffs/{ref}',
			summary: 'The campaign origin of a visitor who left the widget for the messaging app, by its reference',
			description:
				'A message arriving in the messaging app with "ref XXXXXXXX" came from the widget visit recorded under that reference. Read leniently: any case, I and L as 1, O as 0.',
			security: bearerSecurity,
			middleware: [requirePermission('conversations:read')] as const,
			request: {
				params: z.object({
					ref: z
						.string()
						.regex(/^[0-9a-z]{8}$/i, 'must be the 8 characters after "ref"')
						.openapi({ param: { name: 'ref', in: 'path' }, example: '7KQ2M9XD' }),
				}),
			},
			responses: {
				200: jsonResponse('The handoff.', handoffSchema),
				...errorResponses(403, 404, 422),
			},
		}),
		async (c) => c.json(await findHandoff(c.var.db, c.var.caller.workspaceId, c.req.valid('param').ref), 200),
	);
