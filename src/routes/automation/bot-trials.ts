import { createRoute, z } from '@hono/zod-openapi';
import { checkedDefinition, getBot, getBotVersion } from '../../domain/automation/bots/bots';
import { performHttpRequest } from '../../domain/automation/core/actions/http-request';
import { loadWidgetSettings } from '../../domain/widget/settings';
import { sampleContact } from '../../engines/actions/fields';
import { httpRequestProblems, integrationAction } from '../../engines/actions/http-request';
import { botDefinitionInput } from '../../engines/bot-definition';
import { BOT_RUN_STATUSES } from '../../engines/bot-interpreter';
import { simulate } from '../../engines/bot-simulation';
import { mappedValues } from '../../engines/conditions';
import { renderTemplates, under } from '../../engines/step-graph';
import { renderTemplateSync, TemplateError } from '../../engines/templates';
import { errorResponses, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { Invalid } from '../../lib/errors';
import { savedOrUnsaved } from '../../lib/schema-rules';
import { operatorActor } from '../../model/actor';
import { example } from './bot-examples';

/** Trying a bot without running it: a simulated conversation, and one call of an integration step. */
const simulatedResult = z
	.strictObject({
		ok: z.boolean().openapi({ description: 'Whether the step succeeds.' }),
		data: z.unknown().optional().openapi({ description: 'What it answers (an integration’s JSON).' }),
		error: z.string().max(500).optional().openapi({ description: 'Why it fails.' }),
		noDeal: z.boolean().optional().openapi({ description: 'An update_deal that finds no deal.' }),
	})
	.openapi('SimulatedResult');

const simulationBody = z
	.strictObject({
		botId: z.string().min(1).max(64).optional().openapi({ description: 'A saved bot: its draft, or `version`.' }),
		version: z
			.int()
			.min(1)
			.max(Number.MAX_SAFE_INTEGER)
			.optional()
			.openapi({ description: 'With `botId`: this version instead of the draft.' }),
		definition: botDefinitionInput
			.optional()
			.openapi({ description: 'Or an unsaved `BotDefinition`, checked as a save would.' }),
		inputs: z
			.array(
				z.union([
					z.string().max(4000),
					z.strictObject({
						file: z
							.strictObject({ name: z.string().min(1).max(255).openapi({ description: 'The file’s name.' }) })
							.openapi({ description: 'A file the visitor uploads.' }),
					}),
				]),
			)
			.max(100)
			.default([])
			.openapi({
				description: 'What the visitor says, in order: text, a button’s label, or `{ "file": { "name" } }`.',
			}),
		contact: sampleContact.optional().openapi({ description: 'The contact templates see.' }),
		facts: z
			.record(z.string(), z.unknown())
			.optional()
			.openapi({ description: 'What Decision steps read: `{ "businessHours": { "open": false } }`.' }),
		results: z
			.record(z.string(), simulatedResult)
			.optional()
			.openapi({ description: 'How each action step turns out, by step id; done with no data otherwise.' }),
	})
	.refine((b) => (b.botId === undefined) !== (b.definition === undefined), {
		message: 'give a botId or a definition (one of them)',
		path: ['botId'],
	})
	.refine((b) => b.version === undefined || b.botId !== undefined, {
		message: 'a version belongs to a botId',
		path: ['version'],
	})
	// The refinements above are invisible to the generator: the document states them for clients that validate.
	.openapi('BotSimulationRequest', savedOrUnsaved('botId', 'bot'));

const transcriptLine = z
	.object({
		from: z.enum(['bot', 'visitor']).openapi({ description: 'Who says it.' }),
		text: z.string().optional().openapi({ description: 'What is said.' }),
		buttons: z.array(z.string()).optional().openapi({ description: 'Quick replies offered.' }),
		media: z
			.array(
				z.object({
					kind: z.string().openapi({ description: '`image`, `video` or `document`.' }),
					url: z.string().openapi({ description: 'Where it is.' }),
					name: z.string().optional().openapi({ description: 'The name shown.' }),
				}),
			)
			.optional()
			.openapi({ description: 'Images, videos and documents sent.' }),
		waited: z.number().optional().openapi({ description: 'Seconds the bot waited (a delay or typing).' }),
	})
	.openapi('TranscriptLine');

const simulationSchema = z
	.object({
		transcript: z.array(transcriptLine).openapi({ description: 'The conversation, in order.' }),
		effects: z
			.array(z.record(z.string(), z.unknown()))
			.openapi({ description: 'What it would do (`action` with its rendered step, `transfer`), not done.' }),
		log: z
			.array(z.record(z.string(), z.unknown()))
			.openapi({ description: 'The step log: step id, input, output, error.' }),
		status: z.enum(BOT_RUN_STATUSES).openapi({ description: 'Where the run stands after the inputs.' }),
		waitingAt: z.string().nullable().openapi({ description: 'The step waiting for an answer; null when it ended.' }),
		reason: z.string().nullable().openapi({ description: 'Why it failed or stopped.' }),
		variables: z.record(z.string(), z.unknown()).openapi({ description: 'The variables at the end.' }),
		unused: z.number().int().openapi({ description: 'Inputs left when the run ended.' }),
	})
	.openapi('BotSimulation');

const integrationTestBody = z
	.strictObject({
		step: integrationAction.openapi({ description: 'An Integration step (its `type`, request and `response`).' }),
		variables: z
			.record(z.string(), z.unknown())
			.default({})
			.openapi({ description: 'The variables its templates see.', example: { order: 'A-1' } }),
	})
	.openapi('IntegrationTest');

const integrationTestResult = z
	.object({
		ok: z.boolean().openapi({ description: 'Whether the bot would take `next` (true) or `onError`.' }),
		error: z.string().nullable().openapi({ description: 'Why it failed.' }),
		data: z.unknown().openapi({ description: 'The answer: its JSON, or its text.' }),
		variables: z.record(z.string(), z.unknown()).openapi({ description: 'The variables `response` would set.' }),
	})
	.openapi('IntegrationTestResult');

export const botTrialsRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'post',
			path: '/simulate',
			operationId: 'simulateBot',
			summary: 'Run a bot on paper',
			description:
				'Runs a definition (a saved bot’s draft or version, or one given inline) against a list of visitor inputs and answers the transcript, the effects it would have and its step log. Delays and typing pass at once; Decision steps read `facts`; CRM, integration, assignment, tag and contact steps are not performed but answered by `results`. Nothing in the workspace changes.',
			...requires('admin'),
			request: {
				body: jsonBody(simulationBody, {
					botId: example.id,
					inputs: ['not-an-email', 'ana@example.com'],
					contact: { name: 'Ana' },
				}),
			},
			responses: {
				200: jsonResponse('The simulated run.', simulationSchema, {
					transcript: [
						{ from: 'bot', text: 'Hi Ana!' },
						{ from: 'bot', text: 'What is your e-mail?' },
						{ from: 'visitor', text: 'not-an-email' },
						{ from: 'bot', text: 'What is your e-mail?' },
						{ from: 'visitor', text: 'ana@example.com' },
						{ from: 'bot', text: 'Thanks! Someone from the team will be right with you.' },
					],
					effects: [{ kind: 'transfer' }],
					log: [{ kind: 'log', stepId: 'email', input: 'not-an-email', error: 'not a valid email' }],
					status: 'transferred',
					waitingAt: null,
					reason: null,
					variables: { email: 'ana@example.com', answer: 'ana@example.com' },
					unused: 0,
				}),
				...errorResponses(400, 403, 404, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const body = c.req.valid('json');
			const definition =
				body.botId === undefined
					? checkedDefinition(body.definition)
					: body.version === undefined
						? (await getBot(c.var.db, workspaceId, body.botId)).draft
						: (await getBotVersion(c.var.db, workspaceId, body.botId, body.version)).definition;
			const { settings } = await loadWidgetSettings(c.var.db, workspaceId);
			const contact = body.contact ? { id: 'ctc_simulated', ...body.contact } : null;
			const result = simulate(definition, {
				inputs: body.inputs,
				facts: body.facts ?? {},
				results: body.results ?? {},
				context: {
					timeZone: settings.businessHours.timeZone,
					contact,
					conversation: { id: 'conv_simulated', channel: 'widget' },
					agent: null,
				},
				now: Date.now(),
			});
			return c.json(result as z.infer<typeof simulationSchema>, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/test-integration',
			operationId: 'testBotIntegration',
			summary: 'Call an Integration step once and show the answer',
			description:
				'The test mode of an Integration step: renders its templates with the variables given, makes the call through the guarded fetch (https, public addresses only, 10 s, 1 MiB) and answers what came back and the variables its `response` mapping would set. No bot runs and nothing in the workspace changes; the remote side does receive the call.',
			...requires('admin'),
			request: {
				body: jsonBody(integrationTestBody, {
					step: {
						type: 'integration',
						method: 'GET',
						url: 'https://api.example.com/orders/{{order}}',
						response: { order_status: 'status' },
					},
					variables: { order: 'A-1' },
				}),
			},
			responses: {
				200: jsonResponse('What the call answered.', integrationTestResult, {
					ok: true,
					error: null,
					data: { status: 'shipped' },
					variables: { order_status: 'shipped' },
				}),
				...errorResponses(400, 403, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const { step, variables } = c.req.valid('json');
			const problems = under(['step'], httpRequestProblems(step));
			if (problems.length > 0) {
				throw Invalid.fromProblems(problems);
			}
			const { settings } = await loadWidgetSettings(c.var.db, workspaceId);
			const input = { timeZone: settings.businessHours.timeZone, variables, now: Date.now() };
			let rendered: typeof step;
			try {
				rendered = renderTemplates({ ...step, id: 'test' }, (source, maxLength) =>
					renderTemplateSync(source, input, maxLength),
				);
			} catch (error) {
				if (error instanceof TemplateError)
					throw new Invalid(`not a valid template: ${error.message}`, { field: ['step'] });
				throw error;
			}
			const result = await performHttpRequest(
				{
					env: c.env,
					db: c.var.db,
					workspaceId,
					// A try from the builder, not a run: an Integration as a bot's step takes it.
					run: { kind: 'bot', id: 'integration-test' },
					actor: operatorActor(c.var.caller.operatorId),
					conversationId: null,
					contactId: null,
					variables,
					locale: settings.locale,
					now: Date.now(),
				},
				rendered,
			);
			const data = 'data' in result ? result.data : null;
			const mapped = result.ok ? mappedValues(step.response, data) : {};
			return c.json({ ok: result.ok, error: result.ok ? null : result.error, data, variables: mapped }, 200);
		},
	);
