import { createRoute } from '@hono/zod-openapi';
import { directorySchema, workspaceDirectory } from '../../domain/team/directory';
import { errorResponses, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';

const example = {
	operators: [
		{ id: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Ana', groupIds: ['grp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T'], disabled: false },
	],
	groups: [{ id: 'grp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Support' }],
	bots: [{ id: 'bot_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Qualify a lead' }],
	customFields: [
		{
			entity: 'contact' as const,
			key: 'plan',
			label: 'Plan',
			type: 'select' as const,
			options: ['free', 'pro'],
			required: false,
		},
	],
};

export const directoryRoutes = createRouter().openapi(
	createRoute({
		method: 'get',
		path: '/',
		operationId: 'getDirectory',
		summary: "The workspace's names: operators, groups, bots to start by hand, custom field labels",
		description:
			'What an operator needs to name people and offer choices (assign to, start a bot, label a custom field) without the admins’ full records: names and ids only, no e-mails, permissions or definitions.',
		...requires('conversations:read'),
		responses: {
			200: jsonResponse('The directory.', directorySchema, example),
			...errorResponses(403),
		},
	}),
	async (c) => c.json(await workspaceDirectory(c.var.db, c.var.caller.workspaceId), 200),
);
