/**
 * A bot's definition: a versioned JSON document of steps, each one of the spec's actions, linked by ids (a
 * step's `next`, a button's, a branch's, an error path). One zod schema validates its shape; `botProblems`
 * then checks what a schema cannot: every link names a step, every step is reachable from the start, every
 * loop waits for the visitor somewhere (or it would spin), templates parse, conditions and patterns are safe,
 * the rules between a step's fields hold. Each problem names its step and field (`steps.3.validation.pattern`).
 * The API document states each of these checks, in JSON Schema where it can (`BotDefinition`).
 */
import { z } from '@hono/zod-openapi';
import { describedUse, present, schemaRules, when } from '../lib/schema-rules';
import { assignAction, assignProblem, oneAssignee } from './actions/assign';
import { createDealAction, updateDealAction } from './actions/deals';
import { template, variableName } from './actions/fields';
import { httpRequestFields, httpRequestProblems, integrationAction, presetOrRequest } from './actions/http-request';
import { notifyAction } from './actions/rule-actions';
import { tagAction } from './actions/tag';
import { updateContactAction } from './actions/update-contact';
import { conditionProblems, conditionProblemsWithin, conditionSchema, unsafePattern } from './conditions';
import { foldText } from './keywords';
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
import { ANSWER_FORMATS } from './values';

/** The longest a Delay waits (the spec's bot delay table: at most 7 days). */
const MAX_DELAY_SECONDS = 7 * 24 * 60 * 60;

const buttonLabel = z
	.string()
	.trim()
	.min(1)
	.max(40)
	.openapi({ description: 'A button’s text (and the answer typed); it leads to the step’s `next`.' });

const button = z.strictObject({
	label: buttonLabel.openapi({ description: 'The button’s text (and the answer typed).' }),
	next: stepLink.optional().openapi({ description: 'Where this button leads; the step’s `next` otherwise.' }),
});

const sendMessage = z.strictObject({
	...stepCommon,
	type: z.literal('send_message').openapi({ description: 'Send Message.' }),
	text: template(4000).openapi({
		description: 'The message; *bold* and _italic_ as the widget shows them, variables as `{{ }}`.',
	}),
	media: z
		.array(
			z.strictObject({
				kind: z.enum(['image', 'video', 'document']).openapi({ description: 'What the widget shows it as.' }),
				url: template(2000).openapi({ description: 'An https URL (may hold variables).' }),
				name: z.string().max(200).optional().openapi({ description: 'The file name shown.' }),
			}),
		)
		.max(5)
		.optional()
		.openapi({ description: 'Images, videos and documents sent with it (5 at most).' }),
	buttons: z
		.array(z.union([buttonLabel, button]))
		.max(10)
		.optional()
		.openapi({
			description:
				"Quick replies: the bot waits for the visitor's choice (clicking one sends its label as the visitor's message), then goes to that button's `next`, else the step's `next`; a typed text that matches no button goes to the step's `next` too. Two buttons whose labels are one answer (case and accents aside) are refused when either has a `next` of its own.",
		}),
	typingSeconds: z
		.number()
		.min(0)
		.max(20)
		.default(0)
		.openapi({ description: 'Seconds the visitor sees "typing…" before the message.' }),
	next: stepLink.optional(),
});

/**
 * When a field means something: the values its sibling fields must have (`x-applies-when` in the document),
 * so a builder shows a rating's reason prompt on a rating only. The interpreter ignores the field otherwise.
 */
const appliesWhen = (siblings: Record<string, unknown[]>) => ({ 'x-applies-when': siblings });

const choice = z.strictObject({
	label: z.string().trim().min(1).max(40).openapi({ description: 'The button’s text (and the answer typed).' }),
	value: z.string().max(200).optional().openapi({ description: 'What the variable keeps; the label otherwise.' }),
	next: stepLink.optional().openapi({ description: 'Where this choice leads; the step’s `next` otherwise.' }),
});

/** A button selection, and only it, has choices (`botProblems` checks it with the whole document). */
const choicesOfButtons = schemaRules(
	when({ required: ['input'], properties: { input: { const: 'buttons' } } }, present('choices'), {
		not: present('choices'),
	}),
);

const dataEntry = z
	.strictObject({
		...stepCommon,
		type: z.literal('data_entry').openapi({ description: 'Data Entry: asks, checks and keeps an answer.' }),
		prompt: template(4000).openapi({ description: 'The question.' }),
		input: z.enum(['text', 'number', 'email', 'phone', 'date', 'datetime', 'file', 'buttons', 'rating']).openapi({
			description: 'What is asked for; `email`, `phone`, `number`, `date` and `datetime` are checked as such.',
		}),
		variable: variableName.openapi({ description: 'Where the answer is kept, for templates and conditions.' }),
		choices: z
			.array(choice)
			.min(1)
			.max(10)
			.optional()
			.openapi({
				description: 'A button selection’s buttons: required with `input: buttons`, refused with any other input.',
				...appliesWhen({ input: ['buttons'] }),
			}),
		validation: z
			.strictObject({
				required: z.boolean().default(true).openapi({ description: 'Whether an empty answer is refused.' }),
				format: z
					.enum(ANSWER_FORMATS)
					.optional()
					.openapi({ description: 'A format the answer must have: e-mail, phone, CPF, CNPJ, number, date.' }),
				minLength: z
					.int()
					.min(0)
					.max(10_000)
					.optional()
					.openapi({ description: 'The fewest characters: no more than `maxLength` when both are given.' }),
				maxLength: z.int().min(1).max(10_000).optional().openapi({ description: 'The most characters.' }),
				min: z
					.number()
					.optional()
					.openapi({ description: 'The lowest number accepted: no more than `max` when both are given.' }),
				max: z.number().optional().openapi({ description: 'The highest number accepted.' }),
				pattern: z.string().max(400).optional().openapi({
					description: 'A regular expression the answer must match (patterns that backtrack are refused).',
				}),
				condition: describedUse(
					conditionSchema,
					'A custom validation: a condition over `answer` and `vars`, which may read nothing else.',
				).optional(),
				integration: z.strictObject(httpRequestFields).openapi(presetOrRequest).optional().openapi({
					description:
						'A custom validation by an outside system: this call (its templates see the answer as `answer`) accepts the answer with a 2xx; `response` then sets variables.',
				}),
				message: template(1000).optional().openapi({ description: 'Said when the answer is refused.' }),
			})
			.optional()
			.openapi({
				description: 'What a valid answer is.',
			}),
		askReason: z
			.boolean()
			.default(false)
			.openapi({
				description: 'A rating then asks why (kept as `<variable>_reason`).',
				...appliesWhen({ input: ['rating'] }),
			}),
		reasonPrompt: template(1000)
			.optional()
			.openapi({
				description: 'What a rating with `askReason` asks next.',
				...appliesWhen({ input: ['rating'], askReason: [true] }),
			}),
		retries: z.int().min(0).max(10).default(2).openapi({ description: 'Re-prompts after an invalid answer.' }),
		onRetriesExhausted: stepLink
			.optional()
			.openapi({ description: 'Where the bot goes when retries run out; it ends otherwise.' }),
		next: stepLink.optional(),
	})
	.openapi(choicesOfButtons);

const decision = z.strictObject({
	...stepCommon,
	type: z.literal('decision').openapi({ description: 'Decision: the first branch whose condition holds.' }),
	branches: z
		.array(z.strictObject({ condition: conditionSchema, next: stepLink }))
		.min(1)
		.max(20)
		.openapi({ description: 'Tried in order.' }),
	default: stepLink.openapi({ description: 'Taken when no branch holds.' }),
});

// The action steps: the catalogue's actions (./actions), each with the links a bot step adds.
const createDeal = createDealAction.extend({ ...stepCommon, next: stepLink.optional(), onError: stepLink.optional() });

const updateDeal = updateDealAction.extend({
	...stepCommon,
	next: stepLink.optional(),
	onNoDeal: stepLink.optional().openapi({ description: 'Taken when no deal matches; `next` otherwise.' }),
	onError: stepLink.optional(),
});

const integration = integrationAction
	.extend({
		...stepCommon,
		next: stepLink.optional(),
		onError: stepLink.optional().openapi({ description: 'Taken on a refused call, a timeout or a 4xx/5xx answer.' }),
	})
	.openapi(presetOrRequest);

const assign = assignAction
	.extend({
		...stepCommon,
		next: stepLink.optional(),
		onError: stepLink.optional().openapi({ description: 'Taken when the operator or group cannot take it.' }),
	})
	.openapi(oneAssignee);

const applyTag = tagAction.extend({ ...stepCommon, next: stepLink.optional(), onError: stepLink.optional() });

const updateContact = updateContactAction.extend({
	...stepCommon,
	next: stepLink.optional(),
	onError: stepLink
		.optional()
		.openapi({ description: 'Taken when a value is refused (an e-mail another contact has).' }),
});

const notify = notifyAction.extend({
	...stepCommon,
	type: z.literal('notify').openapi({
		description:
			'Notify the team: an alert (console, desktop, push) and a mail, as each member chose, and a `bot.notification` webhook event.',
	}),
	next: stepLink.optional(),
	onError: stepLink.optional().openapi({ description: 'Taken when the text renders empty.' }),
});

const delay = z.strictObject({
	...stepCommon,
	type: z.literal('delay').openapi({ description: 'Delay: waits, then goes on.' }),
	seconds: z
		.int()
		.min(1)
		.max(MAX_DELAY_SECONDS, `at most ${MAX_DELAY_SECONDS} (7 days)`)
		.openapi({ description: 'How long, up to 7 days (604800).' }),
	cancelOnReply: z
		.boolean()
		.default(false)
		.openapi({ description: 'A visitor’s reply ends the wait at once (the reply is `answer`).' }),
	next: stepLink.optional(),
});

const transfer = z.strictObject({
	...stepCommon,
	type: z.literal('transfer').openapi({ description: 'Transfer to Agent: the bot ends, a person takes over.' }),
	message: template(4000).optional().openapi({ description: 'Said before the handoff.' }),
});
const end = z.strictObject({
	...stepCommon,
	type: z.literal('end').openapi({ description: 'End Bot.' }),
	message: template(4000).optional().openapi({ description: 'Said last.' }),
});

const stepSchema = z.discriminatedUnion('type', [
	sendMessage,
	dataEntry,
	decision,
	createDeal,
	updateDeal,
	integration,
	assign,
	applyTag,
	updateContact,
	notify,
	delay,
	transfer,
	end,
]);

export const botDefinitionSchema = stepDocumentSchema(
	stepSchema,
	'BotDefinition',
	`A bot: its first step and its steps. ${DOCUMENT_RULES}, every step is reached from \`start\`, and every loop passes through a step that waits for the visitor (a Data Entry, a message with buttons), or it would spin.`,
);

/** A bot's definition as a request carries it: checked whole by `botProblems` once it reaches the domain. */
export const botDefinitionInput = stepDocumentInput(
	stepSchema.options.map((step) => step.shape.type.value),
	'BotDefinition',
);

export type BotDefinition = z.infer<typeof botDefinitionSchema>;
export type BotStep = BotDefinition['steps'][number];

/**
 * Everything wrong with a definition, each problem at its path (`steps.3.validation.pattern`); empty when it
 * can be saved. The shape first; the graph and the contents only when the shape holds.
 */
export function botProblems(definition: unknown): StepProblem[] {
	const parsed = botDefinitionSchema.safeParse(definition);
	if (!parsed.success) return shapeProblems(parsed.error);
	const { start, steps } = parsed.data;
	const { problems, index } = stepProblems(start, steps);
	steps.forEach((step, i) => {
		const at = (...field: (string | number)[]) => ['steps', i, ...field];
		if (step.type === 'decision') {
			step.branches.forEach((branch, b) => {
				problems.push(...under(at('branches', b, 'condition'), conditionProblems(branch.condition)));
			});
		}
		if (step.type === 'send_message') problems.push(...under(at('buttons'), buttonProblems(step.buttons ?? [])));
		if (step.type === 'data_entry') {
			const v = step.validation;
			if (v?.pattern !== undefined) {
				const problem = unsafePattern(v.pattern);
				if (problem) problems.push({ path: at('validation', 'pattern'), message: problem });
			}
			if (v?.integration) {
				problems.push(...under(at('validation', 'integration'), httpRequestProblems(v.integration)));
			}
			if (v?.condition) {
				// An answer is judged as it comes, on itself and the run's variables: nothing is loaded for it.
				const within = conditionProblemsWithin(
					v.condition,
					['answer', 'vars'],
					'a custom validation reads answer and vars only',
				);
				problems.push(...under(at('validation', 'condition'), within));
			}
			if (v?.minLength !== undefined && v.maxLength !== undefined && v.minLength > v.maxLength) {
				problems.push({ path: at('validation', 'minLength'), message: 'is more than maxLength' });
			}
			if (v?.min !== undefined && v.max !== undefined && v.min > v.max) {
				problems.push({ path: at('validation', 'min'), message: 'is more than max' });
			}
			if (step.input === 'buttons' && !step.choices) {
				problems.push({ path: at('choices'), message: 'a button selection needs its choices' });
			}
			if (step.input !== 'buttons' && step.choices) {
				problems.push({ path: at('choices'), message: 'only a button selection has choices' });
			}
		}
		if (step.type === 'integration') {
			problems.push(...under(at(), httpRequestProblems(step)));
		}
		if (step.type === 'assign') {
			const problem = assignProblem(step);
			if (problem) problems.push({ path: at('operatorId'), message: problem });
		}
	});
	if (problems.length > 0) return problems;
	// Every loop must pass through a step that waits for the visitor: so, with the steps that wait (Data Entry,
	// a message with buttons) taken out of the graph, no loop may remain.
	const waits = (i: number) => {
		const step = steps[i];
		return step?.type === 'data_entry' || (step?.type === 'send_message' && (step.buttons?.length ?? 0) > 0);
	};
	return graphProblems(
		start,
		steps,
		index,
		(targets) => (i) => (waits(i) ? [] : targets(i).filter((j) => !waits(j))),
		(ids) => `the loop ${ids} never waits for the visitor (add a Data Entry step or buttons to it)`,
	);
}

/** A Send Message's button, whether written as its label alone (it leads to the step's `next`) or in full. */
export type QuickReply = z.infer<typeof button>;
export function quickReply(item: string | QuickReply): QuickReply {
	return typeof item === 'string' ? { label: item } : item;
}

/**
 * Two buttons whose labels are one answer (case and accents aside) cannot be told apart: refused when either
 * has a link of its own, since the choice would then be ambiguous (label-only repeats lead to the same place).
 */
function buttonProblems(buttons: ReadonlyArray<string | QuickReply>): StepProblem[] {
	const items = buttons.map(quickReply);
	return items.flatMap((item, i) => {
		const same = items.findIndex((other) => foldText(other.label) === foldText(item.label));
		if (same === i || (items[same]?.next === undefined && item.next === undefined)) return [];
		return [{ path: [i], message: `"${item.label}" is the label of another button` }];
	});
}
