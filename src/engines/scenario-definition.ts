/**
 * A scenario's definition: a backend workflow that runs without the customer (an order system posts to a
 * webhook; the scenario finds or creates the contact, opens a conversation, sends a message, creates a deal
 * and calls another system). A versioned JSON document of steps, each one of the spec's scenario actions,
 * linked by ids. One zod schema checks the shape; `scenarioProblems` what a schema cannot: links, reachability,
 * templates, conditions, requests, and repetition only through a Loop step (a scenario has no visitor to wait
 * for, so any other cycle would spin). Each problem names its step and field (`steps.3.url`).
 *
 * The action steps are the catalogue's actions (./actions) with what a scenario adds: the record they act on
 * comes from a template (`contact: "{{ contact_id }}"`), since a scenario has no conversation of its own, and
 * a variable that keeps what they made.
 */
import { z } from '@hono/zod-openapi';
import { keyedRecord } from '../lib/schema-rules';
import { channelName } from '../model/conversations';
import { createDealAction, updateDealAction } from './actions/deals';
import { template, variableName } from './actions/fields';
import { httpRequestFields, httpRequestProblems, presetOrRequest } from './actions/http-request';
import { tagAction } from './actions/tag';
import { updateContactAction } from './actions/update-contact';
import { conditionProblemsWithin, conditionSchema } from './conditions';
import {
	DOCUMENT_RULES,
	graphProblems,
	type StepProblem,
	shapeProblems,
	stepCommon,
	stepDocumentInput,
	stepDocumentSchema,
	stepLink,
	stepProblems,
	under,
} from './step-graph';

/** Items a Loop step goes through at most (the cap); steps a definition may hold is step-graph's MAX_STEPS. */
const MAX_LOOP_ITEMS = 1_000;
const onError = stepLink.optional().openapi({ description: 'Taken when the step fails; the run fails otherwise.' });
const keep = variableName.optional().openapi({ description: 'The variable that keeps what the step found or made.' });
const ref = (what: string) =>
	template(200).openapi({ description: `The ${what}'s id (a template: \`{{ ${what}_id }}\`).` });

const findContact = z.strictObject({
	...stepCommon,
	type: z.literal('find_contact').openapi({ description: 'Find Contact.' }),
	by: z.enum(['email', 'phone', 'id']).openapi({ description: 'What the contact is found by.' }),
	value: template(400).openapi({ description: 'The e-mail, phone or id to look for.' }),
	variable: keep,
	next: stepLink.optional(),
	onNotFound: stepLink.optional().openapi({ description: 'Taken when no contact matches; `next` otherwise.' }),
	onError,
});

const createContact = z.strictObject({
	...stepCommon,
	type: z.literal('create_contact').openapi({ description: 'Create Contact (or find the one with its e-mail).' }),
	name: template(400).optional().openapi({ description: 'Its name.' }),
	email: template(400).optional().openapi({ description: 'Its e-mail: an existing contact with it is updated.' }),
	phone: template(100).optional().openapi({ description: 'Its phone, with the country code.' }),
	custom_fields: keyedRecord(z.string().max(40), template(2000))
		.optional()
		.openapi({ description: 'Contact custom values by key, each a template.' }),
	variable: keep,
	next: stepLink.optional(),
	onError,
});

const updateContact = updateContactAction.extend({
	...stepCommon,
	contact: ref('contact'),
	next: stepLink.optional(),
	onError,
});

const findConversation = z.strictObject({
	...stepCommon,
	type: z.literal('find_conversation').openapi({ description: 'Find Conversation: the contact’s latest.' }),
	contact: ref('contact'),
	channel: z.string().max(32).optional().openapi({ description: 'Only on this channel.' }),
	open: z.boolean().default(true).openapi({ description: 'Only one that is not closed (default).' }),
	variable: keep,
	next: stepLink.optional(),
	onNotFound: stepLink.optional().openapi({ description: 'Taken when it has none; `next` otherwise.' }),
	onError,
});

const createConversation = z.strictObject({
	...stepCommon,
	type: z.literal('create_conversation').openapi({ description: 'Create Conversation with the contact.' }),
	contact: ref('contact'),
	channel: channelName.default('api').openapi({ description: 'Its channel (`api` by default).' }),
	message: template(10_000).optional().openapi({ description: 'Its first message, from the team (a bot).' }),
	variable: keep,
	next: stepLink.optional(),
	onError,
});

const sendMessage = z.strictObject({
	...stepCommon,
	type: z.literal('send_message').openapi({ description: 'Send Message, through the conversation’s room.' }),
	conversation: ref('conversation'),
	text: template(10_000).openapi({ description: 'The message; `*bold*`, `_italic_`, `{{ }}`.' }),
	buttons: z
		.array(z.string().trim().min(1).max(40))
		.max(10)
		.optional()
		.openapi({ description: 'Quick replies offered with it.' }),
	next: stepLink.optional(),
	onError,
});

const createDeal = createDealAction.extend({
	...stepCommon,
	contact: ref('contact').optional(),
	variable: keep,
	next: stepLink.optional(),
	onError,
});

const updateDeal = updateDealAction.extend({
	...stepCommon,
	contact: ref('contact').optional(),
	next: stepLink.optional(),
	onNoDeal: stepLink.optional().openapi({ description: 'Taken when no deal matches; `next` otherwise.' }),
	onError,
});

const applyTag = tagAction.extend({
	...stepCommon,
	targetId: template(200).openapi({ description: 'The id of the contact or conversation tagged.' }),
	next: stepLink.optional(),
	onError,
});

const httpRequest = z
	.strictObject({
		...stepCommon,
		type: z.literal('http_request').openapi({ description: 'HTTP Request, through the guarded fetch.' }),
		...httpRequestFields,
		retries: z
			.int()
			.min(0)
			.max(10)
			.default(3)
			.openapi({ description: 'Tries again after a 5xx or a timeout, with a growing wait (then `onError`).' }),
		variable: keep,
		next: stepLink.optional(),
		onError,
	})
	.openapi(presetOrRequest);

const conditional = z.strictObject({
	...stepCommon,
	type: z.literal('condition').openapi({ description: 'Conditional Logic: the first branch that holds.' }),
	branches: z
		.array(z.strictObject({ condition: conditionSchema, next: stepLink }))
		.min(1)
		.max(20)
		.openapi({ description: 'Tried in order.' }),
	default: stepLink.openapi({ description: 'Taken when no branch holds.' }),
});

const setVariables = z.strictObject({
	...stepCommon,
	type: z.literal('set_variables').openapi({ description: 'Variable Assignment.' }),
	values: keyedRecord(variableName, template(2000))
		.refine((values) => Object.keys(values).length > 0, 'give at least one variable')
		.openapi({ description: 'Each variable and the template of its value.', minProperties: 1 }),
	next: stepLink.optional(),
});

const loop = z.strictObject({
	...stepCommon,
	type: z.literal('loop').openapi({ description: 'Loop: runs `do` once per item of a list.' }),
	items: z
		.string()
		.regex(/^vars(\.[A-Za-z0-9_]+)+$/, 'must be a variable path such as vars.order.items')
		.openapi({ description: 'The list, by its variable path.', example: 'vars.order.items' }),
	as: variableName.openapi({ description: 'The variable each item is in (and `<as>_index` its position).' }),
	do: stepLink.openapi({ description: 'The first step run for each item; its chain ending returns to the loop.' }),
	max: z
		.int()
		.min(1)
		.max(MAX_LOOP_ITEMS)
		.default(100)
		.openapi({ description: 'Items gone through at most; a longer list fails the step.' }),
	next: stepLink.optional(),
	onError: stepLink.optional().openapi({ description: 'Taken when an item’s steps fail: the loop’s catch path.' }),
});

const end = z.strictObject({
	...stepCommon,
	type: z.literal('end').openapi({ description: 'Ends the run.' }),
	outcome: z
		.enum(['succeeded', 'failed'])
		.default('succeeded')
		.openapi({ description: 'How the run ends (`failed` marks a business error as such).' }),
	reason: template(400).optional().openapi({ description: 'Why, for a failed run.' }),
});

const scenarioStepSchema = z.discriminatedUnion('type', [
	findContact,
	createContact,
	updateContact,
	findConversation,
	createConversation,
	sendMessage,
	createDeal,
	updateDeal,
	applyTag,
	httpRequest,
	conditional,
	setVariables,
	loop,
	end,
]);

export const scenarioDefinitionSchema = stepDocumentSchema(
	scenarioStepSchema,
	'ScenarioDefinition',
	`A scenario: its first step and its steps. ${DOCUMENT_RULES}, every step is reached from \`start\`, and steps repeat only through a Loop step (any other cycle would spin).`,
);

/** A scenario's definition as a request carries it: checked whole by `scenarioProblems` once it reaches the domain. */
export const scenarioDefinitionInput = stepDocumentInput(
	scenarioStepSchema.options.map((step) => step.shape.type.value),
	'ScenarioDefinition',
);

export type ScenarioDefinition = z.infer<typeof scenarioDefinitionSchema>;
export type ScenarioStep = ScenarioDefinition['steps'][number];

/**
 * Everything wrong with a scenario's definition, each problem at its path; empty when it can be saved. The
 * shape first; links, templates, conditions and requests next; the graph last.
 */
export function scenarioProblems(definition: unknown): StepProblem[] {
	const parsed = scenarioDefinitionSchema.safeParse(definition);
	if (!parsed.success) return shapeProblems(parsed.error);
	const { start, steps } = parsed.data;
	const { problems, index } = stepProblems(start, steps);
	for (const [i, step] of steps.entries()) {
		const at = (...field: (string | number)[]) => ['steps', i, ...field];
		if (step.type === 'condition') {
			for (const [b, branch] of step.branches.entries()) {
				problems.push(
					...under(
						at('branches', b, 'condition'),
						conditionProblemsWithin(
							branch.condition,
							['vars'],
							"a scenario's conditions read vars only (a Find step puts a record there)",
						),
					),
				);
			}
		}
		if (step.type === 'http_request') {
			problems.push(...under(at(), httpRequestProblems(step)));
		}
		if (step.type === 'update_deal' && step.dealVariable === undefined && step.contact === undefined) {
			problems.push({ path: at('contact'), message: 'give the contact whose deal it is, or a dealVariable' });
		}
		if (step.type === 'create_contact' && !step.name && !step.email && !step.phone) {
			problems.push({ path: at('email'), message: 'give at least one of name, email, phone' });
		}
	}
	if (problems.length > 0) return problems;
	// The graph may repeat only through a Loop: its `do` chain returns to it when it ends, so a stepLink back
	// to the loop, or any other cycle, would run for ever.
	return graphProblems(
		start,
		steps,
		index,
		(targets) => targets,
		(ids) => `the steps ${ids} form a cycle: a scenario repeats only through a Loop step`,
	);
}
