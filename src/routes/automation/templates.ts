/**
 * The builders' template preview: a template rendered with sample values by the same Liquid engine, limits and
 * workspace time zone the bots, scenarios, rules and campaigns use, so what the builder sees is what a run
 * would send. Nothing is stored or sent.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { loadWidgetSettings } from '../../domain/widget/settings';
import { sampleContact } from '../../engines/actions/fields';
import { MAX_TEMPLATE_LENGTH, renderTemplate, TemplateError } from '../../engines/templates';
import { errorResponses, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { Invalid } from '../../lib/errors';

const previewBody = z
	.strictObject({
		template: z
			.string()
			.max(MAX_TEMPLATE_LENGTH)
			.openapi({ description: 'The Liquid text, as a step, rule or campaign would hold it.' }),
		variables: z
			.record(z.string(), z.unknown())
			.default({})
			.openapi({ description: 'Sample values of the run’s variables, by name (also readable as `vars.name`).' }),
		contact: sampleContact.optional().openapi({
			description:
				'The sample contact (`contact.name`, `contact.custom_fields.plan`…). Left out, `contact` is whatever `variables` says, as in a scenario.',
		}),
		agent: z
			.strictObject({ name: z.string().max(200).openapi({ description: 'The operator’s name.' }) })
			.optional()
			.openapi({ description: 'The sample operator (`agent.name`).' }),
		conversation: z
			.strictObject({
				id: z.string().max(64).openapi({ description: 'A conversation id.' }),
				channel: z.string().max(32).optional().openapi({ description: '`widget`, `api`…' }),
			})
			.optional()
			.openapi({ description: 'The sample conversation (`conversation.id`, `conversation.channel`).' }),
	})
	.openapi('TemplatePreviewRequest');

const previewSchema = z
	.object({ text: z.string().openapi({ description: 'The template rendered.' }) })
	.openapi('TemplatePreview');

export const templatesRoutes = createRouter().openapi(
	createRoute({
		method: 'post',
		path: '/preview',
		operationId: 'previewTemplate',
		summary: 'Render a template with sample values',
		description:
			'Renders a Liquid template as a run would (the same filters, limits and the workspace’s business-hours time zone for `date`, `now`, `current_date` and `current_time`), with the sample contact, agent, conversation and variables given. A template that does not parse (an unknown filter, say) or fails to render is refused with the reason at `json.template`. Nothing in the workspace changes.',
		...requires('admin'),
		request: {
			body: jsonBody(previewBody, {
				template:
					'Hi {{ contact.name | default: "there" }}, your order {{ order | upcase }} ships on {{ now | date: "%d/%m" }}.',
				variables: { order: 'a-1042' },
				contact: { name: 'Ana Souza', email: 'ana@example.com' },
				agent: { name: 'Marta' },
			}),
		},
		responses: {
			200: jsonResponse('The rendered text.', previewSchema, {
				text: 'Hi Ana Souza, your order A-1042 ships on 23/11.',
			}),
			...errorResponses(400, 403, 413, 415, 422),
		},
	}),
	async (c) => {
		const body = c.req.valid('json');
		const { settings } = await loadWidgetSettings(c.var.db, c.var.caller.workspaceId);
		try {
			const text = await renderTemplate(body.template, {
				timeZone: settings.businessHours.timeZone,
				variables: body.variables,
				// Left out stays left out: a scenario's template reads `contact` from its variables.
				contact: body.contact && { id: 'ctc_sample', ...body.contact },
				agent: body.agent && { id: 'op_sample', ...body.agent },
				conversation: body.conversation,
				now: Date.now(),
			});
			return c.json({ text }, 200);
		} catch (error) {
			if (error instanceof TemplateError) throw new Invalid(error.message, { field: ['template'], cause: error });
			throw error;
		}
	},
);
