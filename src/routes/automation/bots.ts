import { createRoute, z } from '@hono/zod-openapi';
import {
	botChangesSchema,
	botCursor,
	botSchema,
	botVersionSchema,
	createBot,
	deleteBot,
	getBot,
	getBotVersion,
	listBots,
	listBotVersions,
	newBotSchema,
	publishBot,
	updateBot,
} from '../../domain/automation/bots/bots';
import { errorResponses, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { etagged, ifMatch, ifMatchHeaders, tagged } from '../../lib/etag';
import { operatorActor } from '../../model/actor';
import { example, exampleDefinition, idParams } from './bot-examples';
import { botTrialsRoutes } from './bot-trials';
import { addVersionRoutes } from './versioned';

const botPage = pageSchema('BotPage', botSchema, 'This page, by name.');

/** The workspace's bots: listed and created. */
const botCollection = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listBots',
			summary: "List the workspace's bots",
			description: 'Every bot with its settings and draft, by name.',
			...requires('admin'),
			request: { query: z.object(pageQuery(50)) },
			responses: {
				200: jsonResponse('A page of bots.', botPage, { data: [example], nextCursor: null }),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor } = c.req.valid('query');
			return c.json(await listBots(c.var.db, c.var.caller.workspaceId, readCursor(cursor, botCursor), limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createBot',
			summary: 'Create a bot (its draft)',
			description:
				'The definition is checked whole: every problem is named at its step and field (`definition.steps.3.validation.pattern`), including links to no step, steps never reached and loops that never wait for the visitor. Nothing runs until it is published.',
			...requires('admin'),
			request: {
				body: jsonBody(newBotSchema, {
					name: 'Lead qualification',
					trigger: { kind: 'new_conversation' },
					channels: ['widget'],
					definition: exampleDefinition,
				}),
			},
			responses: {
				201: etagged(jsonResponse('The new bot.', botSchema, { ...example, publishedVersion: null, lastVersion: 0 })),
				...errorResponses(400, 403, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const bot = await createBot(c.env, c.var.db, workspaceId, c.req.valid('json'), operatorActor(operatorId));
			return c.json(tagged(c, bot), 201);
		},
	);

/** One bot: read, changed, deleted. */
const botById = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getBot',
			summary: 'One bot',
			description: 'Its settings, draft and the version new runs start with.',
			...requires('admin'),
			request: { params: idParams },
			responses: {
				200: etagged(jsonResponse('The bot.', botSchema, example)),
				...errorResponses(403, 404),
			},
		}),
		async (c) => c.json(tagged(c, await getBot(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id)), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateBot',
			summary: "Change a bot's settings or draft",
			description:
				'Name, trigger, channels, priority, enabled, or the draft definition (checked whole, as on create). The published version is not touched: publish to make a new draft live.',
			...requires('admin'),
			request: {
				params: idParams,
				headers: ifMatchHeaders,
				body: jsonBody(botChangesSchema, { enabled: false }),
			},
			responses: {
				200: etagged(jsonResponse('The bot as it now is.', botSchema, example)),
				...errorResponses(400, 403, 404, 409, 412, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const actor = operatorActor(operatorId);
			const bot = await updateBot(c.env, c.var.db, workspaceId, id, c.req.valid('json'), actor, ifMatch(c));
			return c.json(tagged(c, bot), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteBot',
			summary: 'Delete a bot and its versions',
			description: 'Runs under way finish with the version they started with.',
			...requires('admin'),
			request: { params: idParams, headers: ifMatchHeaders },
			responses: { 204: { description: 'The bot is gone.' }, ...errorResponses(403, 404, 412) },
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			await deleteBot(c.env, c.var.db, workspaceId, id, operatorActor(operatorId), ifMatch(c));
			return c.body(null, 204);
		},
	);

// One router for /v3/bots, its parts in the order the API document lists them.
export const botsRoutes = createRouter().route('/', botCollection).route('/', botTrialsRoutes).route('/', botById);

addVersionRoutes(botsRoutes, {
	noun: 'bot',
	idExample: example.id,
	schema: botSchema,
	example,
	versionSchema: botVersionSchema,
	exampleDefinition,
	publish: publishBot,
	listVersions: listBotVersions,
	getVersion: getBotVersion,
});
