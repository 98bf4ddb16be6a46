import { createRoute, z } from '@hono/zod-openapi';
import { deploymentSecret, identitySecret } from '../../auth/secrets';
import { reconsiderAssignment } from '../../domain/assignment/rules';
import { saveWidgetSettings } from '../../domain/widget/config';
import { findHandoff, handoffSchema } from '../../domain/widget/handoffs';
import {
	disableIdentitySecret,
	identityVerificationState,
	rotateIdentitySecret,
} from '../../domain/widget/identity-settings';
import { LOGO_TYPES, MAX_LOGO_BYTES, MAX_LOGO_SIDE, removeLogo, uploadLogo } from '../../domain/widget/logo';
import {
	DEFAULT_WIDGET_SETTINGS,
	loadWidgetSettings,
	widgetAvailability,
	widgetSettingsSchema,
	widgetSettingsUpdateSchema,
} from '../../domain/widget/settings';
import { widgetSnippet } from '../../domain/widget/snippet';
import { anyToken, errorResponses, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { handoffExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';
import { etagged, ifMatch, ifMatchHeaders, withETag } from '../../lib/etag';

const identitySecretSchema = z
	.object({
		secret: z.string().openapi({ description: 'The HS256 key (base64url). Keep it server-side.' }),
		version: z.number().int().openapi({ description: 'Goes up by one at each rotation.' }),
	})
	.openapi('IdentitySecret');

const identityStateSchema = z
	.object({
		enabled: z.boolean().openapi({ description: 'Whether identify is verified (a secret is set).' }),
		version: z
			.number()
			.int()
			.nullable()
			.openapi({ description: "The current secret's version while verification is on; else null." }),
	})
	.openapi('IdentityVerification');

const widgetInfoSchema = z
	.object({
		workspaceId: z.string().openapi({ description: 'The workspace the token belongs to.' }),
		widgetScriptUrl: z.string().openapi({ description: 'Where the widget script is served.' }),
		snippet: z.string().openapi({ description: 'Paste before </body> on every page of your (HTTPS) site.' }),
		businessHoursEnabled: z.boolean().openapi({ description: 'Whether availability follows the business hours.' }),
		online: z.boolean().openapi({ description: 'Whether the widget shows the team as available right now.' }),
		period: z
			.enum(['always', 'in_hours', 'out_of_hours', 'weekend', 'holiday'])
			.openapi({ description: 'Which period of the business hours it is now.' }),
		availabilityMessage: z.string().openapi({ description: 'The period message the widget shows now.' }),
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
			operationId: 'getWidgetSettings',
			summary: 'The widget settings of the workspace',
			description: 'Colors, texts, business hours, pre-chat fields and the messaging-app bubble.',
			...anyToken,
			responses: {
				200: etagged(jsonResponse('The full settings object.', widgetSettingsSchema, DEFAULT_WIDGET_SETTINGS)),
				...errorResponses(),
			},
		}),
		async (c) => {
			const { settings, updatedAt } = await loadWidgetSettings(c.var.db, c.var.caller.workspaceId);
			// Version 0: the defaults, until the first save.
			return c.json(withETag(c, updatedAt ?? 0, settings), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'put',
			path: '/settings',
			operationId: 'updateWidgetSettings',
			summary: 'Update any widget settings (partial); nested objects merge',
			description:
				'Top-level fields replace; `businessHours`, `periodMessages` and `messagingBubble` merge one level deep. The public config the widget loads is rewritten before the answer.',
			...requires('admin'),
			request: {
				headers: ifMatchHeaders,
				body: jsonBody(widgetSettingsUpdateSchema, { primaryColor: '#0a7d5a', ctaText: 'Questions? Ask us' }),
			},
			responses: {
				200: etagged(
					jsonResponse('The full settings after the update.', widgetSettingsSchema, {
						...DEFAULT_WIDGET_SETTINGS,
						primaryColor: '#0a7d5a',
						ctaText: 'Questions? Ask us',
					}),
				),
				...errorResponses(400, 403, 409, 412, 413, 415, 422, 503),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const saved = await saveWidgetSettings(c.var.db, c.env, workspaceId, c.req.valid('json'), ifMatch(c));
			// New hours may have opened: conversations waiting for them are looked at again (they would be at
			// the next opening or queue change anyway, so a hub that cannot be reached now fails nothing).
			if (c.req.valid('json').businessHours !== undefined) {
				await reconsiderAssignment(c.env, workspaceId).catch((error) =>
					console.error('could not nudge auto-assignment after new business hours', error),
				);
			}
			return c.json(withETag(c, saved.updatedAt, saved.settings), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'put',
			path: '/logo',
			operationId: 'uploadWidgetLogo',
			summary: 'Upload the logo atop the chat (the raw image as the body); logoUrl then names it',
			description: `The body is the image itself, ${MAX_LOGO_BYTES / 1024} KiB at most (200x200 px recommended, PNG with a transparent background): PNG, JPEG, WebP or GIF, told by its first bytes, which must agree with the Content-Type (SVG is refused: it can carry script). At most ${MAX_LOGO_SIDE} px a side. It is stored under the hash of its bytes and served at \`GET /widget/{workspaceId}/logo/{sha256}.{ext}\`; \`logoUrl\` becomes that path, and the public config the widget loads is rewritten before the answer. The logo it replaces is kept until the next change, for configs cached meanwhile.`,
			...requires('admin'),
			request: {
				body: {
					required: true,
					description: 'The image’s bytes.',
					content: Object.fromEntries(
						LOGO_TYPES.map((type) => [
							type,
							{ schema: z.string().openapi({ format: 'binary' }), example: '(the image’s bytes)' },
						]),
					),
				},
			},
			responses: {
				200: etagged(
					jsonResponse('The full settings, `logoUrl` naming the new logo.', widgetSettingsSchema, {
						...DEFAULT_WIDGET_SETTINGS,
						logoUrl: `/widget/ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T/logo/${'3f7a9c2e4b1d8f60'.repeat(4)}.png`,
					}),
				),
				...errorResponses(403, 409, 413, 415, 422, 503),
			},
		}),
		async (c) => {
			const bytes = new Uint8Array(await c.req.arrayBuffer());
			const { workspaceId } = c.var.caller;
			const saved = await uploadLogo(c.var.db, c.env, workspaceId, bytes, c.req.header('Content-Type'));
			return c.json(withETag(c, saved.updatedAt ?? 0, saved.settings), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/logo',
			operationId: 'removeWidgetLogo',
			summary: 'Take the logo off the widget (logoUrl becomes null)',
			description:
				'Clears `logoUrl`, whether it named an uploaded logo or an https URL, and rewrites the public config. An uploaded image stays served until the next logo change, for configs cached meanwhile.',
			...requires('admin'),
			responses: {
				200: etagged(jsonResponse('The full settings, without a logo.', widgetSettingsSchema, DEFAULT_WIDGET_SETTINGS)),
				...errorResponses(403, 409, 503),
			},
		}),
		async (c) => {
			const saved = await removeLogo(c.var.db, c.env, c.var.caller.workspaceId);
			return c.json(withETag(c, saved.updatedAt ?? 0, saved.settings), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/info',
			operationId: 'getWidgetInfo',
			summary: 'What a site owner needs to install the widget, and whether the team is online now',
			description: 'The snippet to paste, the script URL and the availability the widget shows right now.',
			...anyToken,
			responses: {
				200: jsonResponse('Widget information.', widgetInfoSchema, {
					workspaceId: 'ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					widgetScriptUrl: 'https://parley.acme.example/widget.js',
					snippet: '<script>/* the loader */ kw(\'init\',{workspaceId:"ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T"});</script>',
					businessHoursEnabled: true,
					online: true,
					period: 'in_hours',
					availabilityMessage: 'We typically reply in a few minutes.',
				}),
				...errorResponses(),
			},
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
			method: 'get',
			path: '/identity-secret',
			operationId: 'getIdentityVerification',
			summary: 'Whether identity verification is on (never the secret itself)',
			description: 'The secret is shown only when generated or rotated; this says whether one is set, and its version.',
			...requires('admin'),
			responses: {
				200: jsonResponse('Whether a secret is set.', identityStateSchema, { enabled: true, version: 2 }),
				...errorResponses(403),
			},
		}),
		async (c) => c.json(await identityVerificationState(c.var.db, c.var.caller.workspaceId), 200),
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/identity-secret',
			operationId: 'rotateIdentitySecret',
			summary: 'Turn on identity verification, or rotate its secret (the previous one stops working)',
			description:
				"From then on the widget's `identify` is verified only with an HS256 JWT signed with this secret by your backend.",
			...requires('admin'),
			responses: {
				200: jsonResponse(
					"The secret your backend signs visitors' identity JWTs with (HS256). Keep it server-side.",
					identitySecretSchema,
					{ secret: 'n3Xq8v0ZkL2pR7sT1uW5yA9cE4gI6jM0oQ2rS8tV1xY', version: 2 },
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
			operationId: 'disableIdentitySecret',
			summary: 'Turn identity verification off: every identify is stored as unverified',
			description: 'The current secret stops working at once.',
			...requires('admin'),
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
			operationId: 'getMessagingHandoff',
			summary: 'The campaign origin of a visitor who left the widget for the messaging app, by its reference',
			description:
				'A message arriving in the messaging app with "ref XXXXXXXX" came from the widget visit recorded under that reference. Read leniently: any case, I and L as 1, O as 0.',
			...requires('conversations:read'),
			request: {
				params: z.object({
					// Written out in both cases, not with the /i flag: the document publishes the source without flags.
					ref: z
						.string()
						.regex(/^[0-9A-Za-z]{8}$/, 'must be the 8 characters after "ref"')
						.openapi({
							param: { name: 'ref', in: 'path', description: 'The 8 characters after "ref" in the message.' },
							example: '7KQ2M9XD',
						}),
				}),
			},
			responses: {
				200: jsonResponse('The handoff.', handoffSchema, handoffExample),
				...errorResponses(403, 404, 422),
			},
		}),
		async (c) => c.json(await findHandoff(c.var.db, c.var.caller.workspaceId, c.req.valid('param').ref), 200),
	);
