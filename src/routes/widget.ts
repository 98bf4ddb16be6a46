import { createRoute, z } from '@hono/zod-openapi';
import { requirePermission } from '../auth/middleware';
import { widgetSettings as widgetSettingsTable } from '../db/schema';
import {
	loadWidgetSettings,
	mergeWidgetSettings,
	publicConfigKey,
	publicWidgetConfig,
	type WidgetSettings,
	widgetSettingsSchema,
	widgetSettingsUpdateSchema,
} from '../domain/widget-settings';
import { widgetSnippet } from '../domain/widget-snippet';
import { availabilityAt } from '../engines/business-hours';
import { Invalid } from '../lib/errors';
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from '../lib/openapi';
import { createRouter, describeIssues } from '../lib/router';

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

function availability(settings: WidgetSettings, at: Date) {
	if (!settings.businessHours.enabled) {
		return { online: true, period: 'always' as const, availabilityMessage: settings.welcomeMessage };
	}
	const { online, period } = availabilityAt(settings.businessHours, at);
	const messages = settings.periodMessages;
	const text = {
		in_hours: messages.inHours,
		out_of_hours: messages.outOfHours,
		weekend: messages.weekend,
		holiday: messages.holiday,
	};
	return { online, period, availabilityMessage: text[period] || settings.offlineMessage };
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
		async (c) => c.json(await loadWidgetSettings(c.var.db, c.var.caller.workspaceId), 200),
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
				...errorResponses(400, 403, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const current = await loadWidgetSettings(c.var.db, workspaceId);
			const merged = widgetSettingsSchema.safeParse(mergeWidgetSettings(current, c.req.valid('json')));
			if (!merged.success) throw new Invalid(describeIssues('json', merged.error.issues));
			const now = Date.now();
			await c.var.db
				.insert(widgetSettingsTable)
				.values({ workspaceId, settings: merged.data, updatedAt: now })
				.onConflictDoUpdate({
					target: widgetSettingsTable.workspaceId,
					set: { settings: merged.data, updatedAt: now },
				});
			// D1 stays the source of truth; the public copy the widget reads is rewritten before we answer.
			await c.env.WIDGET_CONFIG.put(
				publicConfigKey(workspaceId),
				JSON.stringify(publicWidgetConfig(workspaceId, merged.data, now)),
			);
			return c.json(merged.data, 200);
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
			const settings = await loadWidgetSettings(c.var.db, workspaceId);
			const origin = widgetOrigin(c.env.WIDGET_URL, c.req.url);
			return c.json(
				{
					workspaceId,
					widgetScriptUrl: `${origin}/widget.js`,
					snippet: widgetSnippet(origin, workspaceId),
					businessHoursEnabled: settings.businessHours.enabled,
					...availability(settings, new Date()),
				},
				200,
			);
		},
	);
