import { createRoute, z } from '@hono/zod-openapi';
import { publishedBot } from '../../domain/automation/bots/bots';
import { BOT_RUN_STATUSES } from '../../engines/bot-interpreter';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { Conflict, NotFound } from '../../lib/errors';
import { BOT_RUN_TRIGGERS } from '../../model/bot-runs';

const idParams = z.object({ id: idParam('id', 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The conversation id.') });

const startBody = z
	.strictObject({
		botId: z.string().min(1).max(64).openapi({ description: 'The bot: its published version runs.' }),
	})
	.openapi('BotStart');

const started = z
	.object({ runId: z.string().openapi({ description: 'The run, as `GET …/bot-runs` lists it.' }) })
	.openapi('BotStarted');

const runSchema = z
	.object({
		id: z.string().openapi({ description: 'The run id.' }),
		bot: z
			.object({
				id: z.string().openapi({ description: 'The bot id.' }),
				name: z.string().openapi({ description: 'Its name when the run started.' }),
				version: z.number().int().openapi({ description: 'The version.' }),
			})
			.openapi({ description: 'The bot and the version the run keeps to its end.' }),
		trigger: z.enum(BOT_RUN_TRIGGERS).openapi({ description: 'What started it.' }),
		startedBy: z.string().nullable().openapi({ description: 'The operator of a manual start.' }),
		status: z.enum(BOT_RUN_STATUSES).openapi({ description: 'Where it stands.' }),
		waitingAt: z.string().nullable().openapi({ description: 'The step it waits at (an answer, a delay…).' }),
		reason: z.string().nullable().openapi({ description: 'Why it stopped or failed.' }),
		variables: z.record(z.string(), z.unknown()).openapi({ description: 'What it has collected.' }),
		startedAt: z.string().openapi({ description: 'ISO 8601.' }),
		endedAt: z.string().nullable().openapi({ description: 'ISO 8601; null while it runs.' }),
		log: z
			.array(
				z.object({
					stepId: z.string().openapi({ description: 'The step.' }),
					input: z.unknown().openapi({ description: 'What it received (an answer).' }),
					output: z.unknown().openapi({ description: 'What it did or decided.' }),
					error: z.string().nullable().openapi({ description: 'What went wrong.' }),
					at: z.string().openapi({ description: 'ISO 8601.' }),
				}),
			)
			.openapi({ description: 'The step log, oldest first (500 entries at most).' }),
	})
	.openapi('BotRun');

const runList = z
	.object({ data: z.array(runSchema).openapi({ description: 'The 20 latest runs, newest first.' }) })
	.openapi('BotRunList');

export const conversationBots = createRouter()
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/bot',
			operationId: 'startBot',
			summary: 'Start a bot in a conversation',
			description:
				"An operator's manual start: the bot's published version runs from its first step, whatever its trigger and channels. A 409 while another bot runs in the conversation, or when the bot was never published.",
			...requires('messages:send'),
			request: { params: idParams, body: jsonBody(startBody, { botId: 'bot_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }) },
			responses: {
				201: jsonResponse('The run started.', started, { runId: 'run_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const bot = await publishedBot(c.var.db, workspaceId, c.req.valid('json').botId);
			const outcome = await c.env.CONVERSATION_ROOM.getByName(id).startBot(workspaceId, id, bot, 'manual', operatorId);
			if (outcome.status === 'not_found') throw new NotFound(`Conversation ${id} not found.`);
			if (outcome.status === 'busy')
				throw new Conflict(`A bot is running in this conversation (run ${outcome.runId}).`);
			return c.json({ runId: outcome.runId }, 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/bot-runs',
			operationId: 'listBotRuns',
			summary: "A conversation's bot runs, with their step logs",
			description:
				'Each run with its bot and version, status, variables, and every step it took (input, output, error, time).',
			...requires('conversations:read'),
			request: { params: idParams },
			responses: {
				200: jsonResponse('The runs.', runList, {
					data: [
						{
							id: 'run_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
							bot: { id: 'bot_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Lead qualification', version: 1 },
							trigger: 'new_conversation',
							startedBy: null,
							status: 'waiting',
							waitingAt: 'email',
							reason: null,
							variables: { name: 'Ana' },
							startedAt: '2026-11-23T12:00:00.000Z',
							endedAt: null,
							log: [
								{ stepId: 'hello', input: null, output: 'sent', error: null, at: '2026-11-23T12:00:00.000Z' },
								{ stepId: 'name', input: 'Ana', output: null, error: null, at: '2026-11-23T12:00:05.000Z' },
							],
						},
					],
				}),
				...errorResponses(403, 404),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const { id } = c.req.valid('param');
			const runs = await c.env.CONVERSATION_ROOM.getByName(id).botRuns(workspaceId, id);
			if (runs === null) throw new NotFound(`Conversation ${id} not found.`);
			return c.json({ data: runs as unknown as z.infer<typeof runSchema>[] }, 200);
		},
	);
