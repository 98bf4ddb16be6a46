import { createRoute } from '@hono/zod-openapi';
import {
	loadNotificationSettings,
	notificationSettingsSchema,
	notificationSettingsUpdateSchema,
	saveNotificationSettings,
} from '../../domain/channels/email/notification-settings';
import { anyToken, errorResponses, jsonBody, jsonResponse } from '../../http/openapi';
import { createRouter } from '../../http/router';

const example = {
	assignedWhileOffline: true,
	unanswered: true,
	unansweredAfterMinutes: 10,
	mentions: true,
	ruleNotifications: false,
};

const MAIL_NOTE =
	'Each is mailed to your e-mail address from the workspace’s sender (nothing goes out until an admin sets one in `PUT /v3/email/settings`); a disabled member receives none, and nobody is mailed about what they did themselves (assigning a conversation to themselves, mentioning themselves).';

/** The calling operator's own notification mail settings: only ever its own, so no id in the path. */
export const myNotifications = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/notifications',
			operationId: 'getMyNotificationSettings',
			tags: ['Team'],
			summary: 'Which notifications you receive by mail',
			description: `Permission: any valid token. The defaults until you save: assignment while offline, mentions and rules on; unanswered conversations off, after 10 minutes. ${MAIL_NOTE}`,
			...anyToken,
			responses: {
				200: jsonResponse('Your notification settings.', notificationSettingsSchema, example),
				...errorResponses(),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			return c.json(await loadNotificationSettings(c.var.db, workspaceId, operatorId), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'put',
			path: '/notifications',
			operationId: 'updateMyNotificationSettings',
			tags: ['Team'],
			summary: 'Choose which notifications you receive by mail (partial)',
			description: `Permission: any valid token. Fields left out keep their value. ${MAIL_NOTE}`,
			...anyToken,
			request: { body: jsonBody(notificationSettingsUpdateSchema, { unanswered: true, unansweredAfterMinutes: 10 }) },
			responses: {
				200: jsonResponse('Your notification settings after the update.', notificationSettingsSchema, example),
				...errorResponses(400, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			return c.json(await saveNotificationSettings(c.var.db, workspaceId, operatorId, c.req.valid('json')), 200);
		},
	);
