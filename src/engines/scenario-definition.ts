/**
 * A scenario's definition: a backend workflow that runs without the customer (an order system posts to a
 * webhook; the scenario finds or creates the contact, opens a conversation, sends a message, creates a deal
 * and calls another system). A versioned JSON document of steps, each one of the spec's scenario actions,
 * linked by ids. One zod schema checks the shape; `scenarioProblems` what a schema cannot: links, reachability,
 * templates, conditions, requests, and repetition only through a Loop step (a scenario has no visitor to wait
 * for, so any other cycle would spin). Each problem names its step and field (`steps.3.url`).
 *
 * The action steps are the kernel's actions (src/actions) with what a scenario adds: the record they act on
 * comes from a template (`contact: "{{ contact_id }}"`), since a scenario has no conversation of its own, and
 * a variable that keeps what they made.
 */
import { z } from '@hono/zod-openapi';
import { template, variableName } from '../actions/fields';
import { httpRequestFields, httpRequestProblems } from '../actions/http-request';
import { createDealAction, tagAction, updateContactAction, updateDealAction } from '../actions/index';
import { conditionProblems, conditionSchema, referencedFacts } from './conditions';
import { graphProblems, type StepLink, type StepProblem, shapeProblems, stepProblems, templatesIn } from './step-graph';

/** Items a Loop step goes through at most (the cap), and steps a definition may hold. */
export const MAX_LOOP_ITEMS = 1_000;
const MAX_STEPS = 200;

const stepId = z
	.string()
	.regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, _ and - (40 at most)')
	.openapi({ description: 'The step id, unique in the scenario.', example: 'find-contact' });
const link = stepId.openapi({ description: 'The id of the step that comes next.' });
const onError = link.optional().openapi({ description: 'Taken when the step fails; the run fails otherwise.' });
const keep = variableName.optional().openapi({ description: 'The variable that keeps what the step found or made.' });
const ref = (what: string) =>
	template(200).openapi({ description: `The ${what}'s id (a template: \`{{ ${what}_id }}\`).` });

const findContact = z.strictObject({
	type: z.literal('find_contact').openapi({ description: 'Find Contact.' }),
	by: z.enum(['email', 'phone', 'id']).openapi({ description: 'What the contact is found by.' }),
	value: template(400).openapi({ description: 'The e-mail, phone or id to look for.' }),
	variable: keep,
	next: link.optional(),
	onNotFound: link.optional().openapi({ description: 'Taken when no contact matches; `next` otherwise.' }),
	onError,
});

const createContact = z.strictObject({
	type: z.literal('create_contact').openapi({ description: 'Create Contact (or find the one with its e-mail).' }),
	name: template(400).optional().openapi({ description: 'Its name.' }),
	email: template(400).optional().openapi({ description: 'Its e-mail: an existing contact with it is updated.' }),
	phone: template(100).optional().openapi({ description: 'Its phone, with the country code.' }),
	custom_fields: z
		.record(z.string().max(40), template(2000))
		.optional()
		.openapi({ description: 'Contact custom values by key, each a template.' }),
	variable: keep,
	next: link.optional(),
	onError,
});

const updateContact = updateContactAction.extend({
	contact: ref('contact'),
	next: link.optional(),
	onError,
});

const findConversation = z.strictObject({
	type: z.literal('find_conversation').openapi({ description: 'Find Conversation: the contact’s latest.' }),
	contact: ref('contact'),
	channel: z.string().max(32).optional().openapi({ description: 'Only on this channel.' }),
	open: z.boolean().default(true).openapi({ description: 'Only one that is not closed (default).' }),
	variable: keep,
	next: link.optional(),
	onNotFound: link.optional().openapi({ description: 'Taken when it has none; `next` otherwise.' }),
	onError,
});

const createConversation = z.strictObject({
	type: z.literal('create_conversation').openapi({ description: 'Create Conversation with the contact.' }),
	contact: ref('contact'),
	channel: z
		.string()
		.regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a lower-case channel name')
		.default('api')
		.openapi({ description: 'Its channel (`api` by default).' }),
	message: template(10_000).optional().openapi({ description: 'Its first message, from the team (a bot).' }),
	variable: keep,
	next: link.optional(),
	onError,
});

const sendMessage = z.strictObject({
	type: z.literal('send_message').openapi({ description: 'Send Message, through the conversation’s room.' }),
	conversation: ref('conversation'),
	text: template(10_000).openapi({ description: 'The message; `*bold*`, `_italic_`, `{{ }}`.' }),
	buttons: z
		.array(z.string().trim().min(1).max(40))
		.max(10)
		.optional()
		.openapi({ description: 'Quick replies offered with it.' }),
	next: link.optional(),
	onError,
});

const createDeal = createDealAction.extend({
	contact: ref('contact').optional(),
	variable: keep,
	next: link.optional(),
	onError,
});

const updateDeal = updateDealAction.extend({
	contact: ref('contact').optional(),
	next: link.optional(),
	onNoDeal: link.optional().openapi({ description: 'Taken when no deal matches; `next` otherwise.' }),
	onError,
});

const applyTag = tagAction.extend({
	targetId: template(200).openapi({ description: 'The id of the contact or conversation tagged.' }),
	next: link.optional(),
	onError,
});

const httpRequest = z.strictObject({
	type: z.literal('http_request').openapi({ description: 'HTTP Request, through the guarded fetch.' }),
	...httpRequestFields,
	retries: z
		.int()
		.min(0)
		.max(10)
		.default(3)
		.openapi({ description: 'Tries again after a 5xx or a timeout, with a growing wait (then `onError`).' }),
	variable: keep,
	next: link.optional(),
	onError,
});

const conditional = z.strictObject({
	type: z.literal('condition').openapi({ description: 'Conditional Logic: the first branch that holds.' }),
	branches: z
		.array(z.strictObject({ condition: conditionSchema, next: link }))
		.min(1)
		.max(20)
		.openapi({ description: 'Tried in order.' }),
	default: link.openapi({ description: 'Taken when no branch holds.' }),
});

const setVariables = z.strictObject({
	type: z.literal('set_variables').openapi({ description: 'Variable Assignment.' }),
	values: z
		.record(variableName, template(2000))
		.refine((values) => Object.keys(values).length > 0, 'give at least one variable')
		.openapi({ description: 'Each variable and the template of its value.' }),
	next: link.optional(),
});

const loop = z.strictObject({
	type: z.literal('loop').openapi({ description: 'Loop: runs `do` once per item of a list.' }),
	items: z
		.string()
		.regex(/^vars(\.[A-Za-z0-9_]+)+$/, 'must be a variable path such as vars.order.items')
		.openapi({ description: 'The list, by its variable path.', example: 'vars.order.items' }),
	as: variableName.openapi({ description: 'The variable each item is in (and `<as>_index` its position).' }),
	do: link.openapi({ description: 'The first step run for each item; its chain ending returns to the loop.' }),
	max: z
		.int()
		.min(1)
		.max(MAX_LOOP_ITEMS)
		.default(100)
		.openapi({ description: 'Items gone through at most; a longer list fails the step.' }),
	next: link.optional(),
	onError: link.optional().openapi({ description: 'Taken when an item’s steps fail: the loop’s catch path.' }),
});

const end = z.strictObject({
	type: z.literal('end').openapi({ description: 'Ends the run.' }),
	outcome: z
		.enum(['succeeded', 'failed'])
		.default('succeeded')
		.openapi({ description: 'How the run ends (`failed` marks a business error as such).' }),
	reason: template(400).optional().openapi({ description: 'Why, for a failed run.' }),
});

const common = {
	id: stepId,
	title: z.string().max(100).optional().openapi({ description: 'A name for builders.' }),
};

export const scenarioStepSchema = z.discriminatedUnion(
	'type',
	[
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
	].map((schema) => schema.extend(common)) as unknown as [
		ReturnType<typeof findContact.extend<typeof common>>,
		ReturnType<typeof createContact.extend<typeof common>>,
		ReturnType<typeof updateContact.extend<typeof common>>,
		ReturnType<typeof findConversation.extend<typeof common>>,
		ReturnType<typeof createConversation.extend<typeof common>>,
		ReturnType<typeof sendMessage.extend<typeof common>>,
		ReturnType<typeof createDeal.extend<typeof common>>,
		ReturnType<typeof updateDeal.extend<typeof common>>,
		ReturnType<typeof applyTag.extend<typeof common>>,
		ReturnType<typeof httpRequest.extend<typeof common>>,
		ReturnType<typeof conditional.extend<typeof common>>,
		ReturnType<typeof setVariables.extend<typeof common>>,
		ReturnType<typeof loop.extend<typeof common>>,
		ReturnType<typeof end.extend<typeof common>>,
	],
);

export const scenarioDefinitionSchema = z
	.strictObject({
		start: link.openapi({ description: 'The first step.' }),
		steps: z.array(scenarioStepSchema).min(1).max(MAX_STEPS).openapi({ description: 'The steps, 200 at most.' }),
	})
	.openapi('ScenarioDefinition');

export type ScenarioDefinition = z.infer<typeof scenarioDefinitionSchema>;
export type ScenarioStep = ScenarioDefinition['steps'][number];

/** The links out of a step, with the field each is in (a Loop's `do` among them). */
export function scenarioLinks(step: ScenarioStep): StepLink[] {
	const links: StepLink[] = [];
	const add = (to: string | undefined, ...field: (string | number)[]) => {
		if (to !== undefined) links.push({ to, field });
	};
	if ('next' in step) add(step.next, 'next');
	if ('onError' in step) add(step.onError, 'onError');
	if ('onNotFound' in step) add(step.onNotFound, 'onNotFound');
	if ('onNoDeal' in step) add(step.onNoDeal, 'onNoDeal');
	if (step.type === 'condition') {
		for (const [i, branch] of step.branches.entries()) add(branch.next, 'branches', i, 'next');
		add(step.default, 'default');
	}
	if (step.type === 'loop') add(step.do, 'do');
	return links;
}

/** Fields that hold no template in a scenario step (the bot's, and the scenario's own ids and names). */
export const SCENARIO_NOT_TEMPLATES = new Set([
	'id',
	'type',
	'next',
	'default',
	'onError',
	'onNotFound',
	'onNoDeal',
	'condition',
	'by',
	'variable',
	'channel',
	'method',
	'kind',
	'currency',
	'dealVariable',
	'header',
	'target',
	'product',
	'operation',
	'object',
	'response',
	'items',
	'as',
	'do',
	'outcome',
]);
export const SCENARIO_TEMPLATE_RECORDS = new Set(['custom_fields', 'headers', 'fields', 'values']);

/**
 * Everything wrong with a scenario's definition, each problem at its path; empty when it can be saved. The
 * shape first; links, templates, conditions and requests next; the graph last.
 */
export function scenarioProblems(definition: unknown): StepProblem[] {
	const parsed = scenarioDefinitionSchema.safeParse(definition);
	if (!parsed.success) return shapeProblems(parsed.error);
	const { start, steps } = parsed.data;
	const templatesOf = (step: ScenarioStep) => templatesIn(step, SCENARIO_NOT_TEMPLATES, SCENARIO_TEMPLATE_RECORDS);
	const { problems, index } = stepProblems(start, steps, scenarioLinks, templatesOf);
	for (const [i, step] of steps.entries()) {
		const at = (...field: (string | number)[]) => ['steps', i, ...field];
		if (step.type === 'condition') {
			for (const [b, branch] of step.branches.entries()) {
				for (const p of conditionProblems(branch.condition)) {
					problems.push({ path: at('branches', b, 'condition', ...p.path), message: p.message });
				}
				// A scenario has no visitor and no conversation of its own: what it knows is in its variables.
				const others = [...referencedFacts(branch.condition)].filter((root) => root !== 'vars');
				if (others.length > 0) {
					problems.push({
						path: at('branches', b, 'condition'),
						message: `a scenario's conditions read vars only (a Find step puts a record there), not ${others.join(', ')}`,
					});
				}
			}
		}
		if (step.type === 'http_request') {
			for (const p of httpRequestProblems(step)) problems.push({ path: at(...p.path), message: p.message });
		}
		if (step.type === 'update_deal' && step.dealVariable === undefined && step.contact === undefined) {
			problems.push({ path: at('contact'), message: 'give the contact whose deal it is, or a dealVariable' });
		}
		if (step.type === 'create_contact' && !step.name && !step.email && !step.phone) {
			problems.push({ path: at('email'), message: 'give at least one of name, email, phone' });
		}
	}
	if (problems.length > 0) return problems;
	// The graph may repeat only through a Loop: its `do` chain returns to it when it ends, so a link back
	// to the loop, or any other cycle, would run for ever.
	const targets = (i: number) => scenarioLinks(steps[i] as ScenarioStep).map((l) => index.get(l.to) as number);
	return graphProblems(
		start,
		steps,
		index,
		scenarioLinks,
		targets,
		(ids) => `the steps ${ids} form a cycle: a scenario repeats only through a Loop step`,
	);
}
