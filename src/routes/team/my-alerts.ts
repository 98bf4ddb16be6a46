import { createRoute, z } from '@hono/zod-openapi';
import { vapidPublicKey } from '../../domain/alerts/push';
import {
	deletePushSubscription,
	listPushSubscriptions,
	pushSubscriptionInputSchema,
	pushSubscriptionSchema,
	savePushSubscription,
} from '../../domain/alerts/push-subscriptions';
import {
	alertSettingsSchema,
	alertSettingsUpdateSchema,
	loadAlertSettings,
	saveAlertSettings,
} from '../../domain/alerts/settings';
import { unreadCounts, unreadCountsSchema } from '../../domain/alerts/unread';
import { anyToken, errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';

const SUBSCRIPTION_ID = 'push_01JD3Q8Z6Y2V7K1N4M5P6R7S8T';
// A push service's address as a browser gives it (its last segment shortened): a URL, as the field requires.
const ENDPOINT = 'https://fcm.googleapis.com/fcm/send/dXJsOnN1YnNjcmlwdGlvbi1pZA';

const listSchema = z
	.object({
		publicKey: z.string().openapi({
			description:
				'The deployment’s VAPID public key (base64url, uncompressed P-256): the `applicationServerKey` a browser subscribes with.',
		}),
		data: z.array(pushSubscriptionSchema).openapi({ description: 'Your subscriptions, oldest first.' }),
	})
	.openapi('PushSubscriptionList');

const PUSH_NOTE =
	'Alerts reach a subscribed browser by Web Push (RFC 8291, signed with the deployment’s VAPID key) when you have no console open; what alerts you is chosen in `PUT /v3/me/notifications/alerts`. A subscription the push service says is gone (404, 410) is deleted.';

const ALERTS_NOTE =
	'An alert tells you of what concerns you: in an open console (a desktop notification while its tab is hidden, the chime if chosen) or, with no console open, by Web Push to the browsers you subscribed (`/v3/me/push-subscriptions`). Never about what you did yourself; a disabled member gets none.';

const alertsExample = { newConversation: true, assigned: true, message: true, mention: true, rule: false, sound: true };

/** The caller's own alert plumbing: its unread counts and the browsers it receives Web Push in. */
export const myAlerts = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/notifications/alerts',
			operationId: 'getMyAlertSettings',
			tags: ['Team'],
			summary: 'What alerts you',
			description: `Permission: any valid token. The defaults until you save: every kind on, the sound off. ${ALERTS_NOTE}`,
			...anyToken,
			responses: {
				200: jsonResponse('Your alert settings.', alertSettingsSchema, alertsExample),
				...errorResponses(),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			return c.json(await loadAlertSettings(c.var.db, workspaceId, operatorId), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'put',
			path: '/notifications/alerts',
			operationId: 'updateMyAlertSettings',
			tags: ['Team'],
			summary: 'Choose what alerts you (partial)',
			description: `Permission: any valid token. Fields left out keep their value. ${ALERTS_NOTE}`,
			...anyToken,
			request: { body: jsonBody(alertSettingsUpdateSchema, { rule: false, sound: true }) },
			responses: {
				200: jsonResponse('Your alert settings after the update.', alertSettingsSchema, alertsExample),
				...errorResponses(400, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			return c.json(await saveAlertSettings(c.var.db, workspaceId, operatorId, c.req.valid('json')), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/unread',
			operationId: 'getMyUnreadCounts',
			tags: ['Conversations'],
			summary: 'How many conversations hold unread messages, per inbox view',
			description:
				'Permission: `conversations:read`. Counts conversations (not messages) with messages no operator has read: assigned to you, unassigned, and all of the workspace, whatever their status. Reading a conversation (its read receipt) takes it out of the counts.',
			...requires('conversations:read'),
			responses: {
				200: jsonResponse('The counts.', unreadCountsSchema, { mine: 2, unassigned: 1, all: 5 }),
				...errorResponses(),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			return c.json(await unreadCounts(c.var.db, workspaceId, operatorId), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/push-subscriptions',
			operationId: 'listMyPushSubscriptions',
			tags: ['Team'],
			summary: 'Your Web Push subscriptions, and the key to subscribe with',
			description: `Permission: any valid token. ${PUSH_NOTE}`,
			...anyToken,
			responses: {
				200: jsonResponse('The key and your subscriptions, oldest first.', listSchema, {
					publicKey: 'BOr3…',
					data: [{ id: SUBSCRIPTION_ID, endpoint: ENDPOINT, createdAt: '2026-11-27T12:00:00.000Z' }],
				}),
				...errorResponses(),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const [publicKey, data] = await Promise.all([
				vapidPublicKey(c.env),
				listPushSubscriptions(c.var.db, workspaceId, operatorId),
			]);
			return c.json({ publicKey, data }, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/push-subscriptions',
			operationId: 'createMyPushSubscription',
			tags: ['Team'],
			summary: 'Receive alerts by Web Push in a browser',
			description: `Permission: any valid token. The body is the browser’s \`PushSubscription.toJSON()\`, made with the \`publicKey\` of \`GET /v3/me/push-subscriptions\`. The same endpoint saved again replaces the one before (also when another member saved it: a browser alerts whoever subscribed last). At most 20 per member. ${PUSH_NOTE}`,
			...anyToken,
			request: {
				body: jsonBody(pushSubscriptionInputSchema, {
					endpoint: ENDPOINT,
					expirationTime: null,
					keys: {
						p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
						auth: 'tBHItJI5svbpez7KI4CCXg',
					},
				}),
			},
			responses: {
				201: jsonResponse('The subscription.', pushSubscriptionSchema, {
					id: SUBSCRIPTION_ID,
					endpoint: ENDPOINT,
					createdAt: '2026-11-27T12:00:00.000Z',
				}),
				...errorResponses(400, 413, 415, 422),
			},
		}),
		async (c) => {
			const origin = new URL(c.req.url).origin;
			const saved = await savePushSubscription(c.env, c.var.db, c.var.caller, c.req.valid('json'), origin);
			return c.json(saved, 201);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/push-subscriptions/{id}',
			operationId: 'deleteMyPushSubscription',
			tags: ['Team'],
			summary: 'Stop Web Push to a browser',
			description: 'Permission: any valid token. Only your own subscriptions.',
			...anyToken,
			request: { params: z.object({ id: idParam('id', SUBSCRIPTION_ID, 'The subscription.') }) },
			responses: { 204: { description: 'Deleted.' }, ...errorResponses(404) },
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			await deletePushSubscription(c.var.db, workspaceId, operatorId, c.req.valid('param').id);
			return c.body(null, 204);
		},
	);
