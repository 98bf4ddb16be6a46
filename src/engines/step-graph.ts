/**
 * What every step document of the automation kernel (a bot, a scenario) shares: the step id, its links and
 * the document's shape (`{ start, steps }`); which fields are templates; and the checks beyond the shape: ids
 * unique, every link naming a step, every step reachable from the start, every template valid, loops only
 * where the document allows them. Each problem names its step and field (`steps.3.next`).
 */
import { z } from '@hono/zod-openapi';
import { MAX_OPERATOR_TEXT } from '../model/messages';
import { LINK_FIELDS, LINK_LISTS, TEMPLATE_RECORDS } from '../model/step-links';
import { checkTemplate, MAX_RENDERED_LENGTH } from './templates';

/** Steps a document may hold. */
const MAX_STEPS = 200;

export const stepId = z
	.string()
	.regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, _ and - (40 at most)')
	.openapi({ description: 'The step id, unique in its document.', example: 'ask-email' });

/** A link to another step. */
export const stepLink = stepId.openapi({ description: 'The id of the step that comes next.' });

/** What every step has besides its action; strict schemas refuse a misspelt field (`nxet`) rather than drop it. */
export const stepCommon = {
	id: stepId,
	title: z.string().max(100).optional().openapi({ description: 'A name for builders; never shown to visitors.' }),
};

/**
 * A document's shape: its first step and its steps (a discriminated union by `type`). `description` states
 * what is checked of the document whole, which no step's schema can say.
 */
export function stepDocumentSchema<T extends z.ZodType>(steps: T, name: string, description: string) {
	return z
		.strictObject({
			start: stepLink.openapi({ description: 'The first step.' }),
			steps: z.array(steps).min(1).max(MAX_STEPS).openapi({ description: 'The steps, 200 at most.' }),
		})
		.openapi(name, { description });
}

/** What `stepProblems` checks of every document, for its description. */
export const DOCUMENT_RULES =
	'Checked whole when saved, every problem in one 422 at its step and field (`steps.3.next`): step ids are unique, `start` and every link name a step, every template parses';

/**
 * A document as a request carries it (`definition` of a create, a change, a simulation): the same `start` and
 * `steps`, each step checked here only for its `id` and its `type`, one of `types`. The rest of each step is
 * checked with the whole document (`botProblems`, `scenarioProblems`), so that one 422 names every problem,
 * links and reachability included; `described` names the schema that describes a step in full.
 */
export function stepDocumentInput(types: readonly string[], described: string) {
	const step = z
		.looseObject({ id: stepId, type: z.enum(types).openapi({ description: 'What the step does.' }) })
		.openapi({ description: `A step: its other fields are those of its \`type\` in \`${described}\`.` });
	return z
		.strictObject({
			start: stepLink.openapi({ description: 'The first step.' }),
			steps: z.array(step).min(1).max(MAX_STEPS).openapi({ description: 'The steps, 200 at most.' }),
		})
		.openapi({
			description: `A \`${described}\`: its first step and its steps, checked whole (every problem in one 422).`,
		});
}

/** The links out of a step, each with the field it is in (`branches.0.next`). */
function linksIn(step: object): StepLink[] {
	const fields = step as Record<string, unknown>;
	const links: StepLink[] = [];
	for (const key of LINK_FIELDS) {
		const to = fields[key];
		if (typeof to === 'string') links.push({ to, field: [key] });
	}
	for (const list of LINK_LISTS) {
		const items = fields[list];
		if (!Array.isArray(items)) continue;
		for (const [i, item] of items.entries()) {
			const to = (item as { next?: unknown }).next;
			if (typeof to === 'string') links.push({ to, field: [list, i, 'next'] });
		}
	}
	return links;
}

/**
 * Fields that hold no template, in any step of any document: ids, links, conditions, patterns, enumerations,
 * names of variables, headers and paths.
 */
const NOT_TEMPLATES = new Set([
	'id',
	'type',
	...LINK_FIELDS,
	'condition',
	'pattern',
	'input',
	'variable',
	'method',
	'kind',
	'format',
	'currency',
	'operatorId',
	'groupId',
	'dealVariable',
	'header',
	'target',
	'product',
	'operation',
	'object',
	'response',
	'by',
	'channel',
	'items',
	'as',
	'outcome',
	'botId',
	'assigneeId',
	'funnelId',
	'stageId',
	'operatorIds',
]);

export interface StepProblem {
	path: (string | number)[];
	message: string;
}

/** Problems found inside a field (a condition, a request), moved under the field's path. */
export function under(path: (string | number)[], found: readonly StepProblem[]): StepProblem[] {
	return found.map((p) => ({ path: [...path, ...p.path], message: p.message }));
}

interface StepLink {
	to: string;
	field: (string | number)[];
}

/** The problems of a document that failed its schema (20 at most). */
export function shapeProblems(error: z.ZodError): StepProblem[] {
	return error.issues.slice(0, 20).map((issue) => ({
		path: issue.path.filter((p): p is string | number => typeof p !== 'symbol'),
		message: issue.message,
	}));
}

/** The templated fields of a step, each with its path: every string but the NOT_TEMPLATES fields'. */
function templatesIn(step: unknown): Array<{ source: string; field: (string | number)[] }> {
	const found: Array<{ source: string; field: (string | number)[] }> = [];
	const visit = (value: unknown, field: (string | number)[], record: boolean) => {
		if (typeof value === 'string') found.push({ source: value, field });
		else if (Array.isArray(value)) {
			for (const [i, v] of value.entries()) visit(v, [...field, i], false);
		} else if (value && typeof value === 'object') {
			for (const [key, v] of Object.entries(value)) {
				if (!record && NOT_TEMPLATES.has(key)) continue;
				visit(v, [...field, key], !record && TEMPLATE_RECORDS.has(key));
			}
		}
	};
	visit(step, [], false);
	return found;
}

/** The invalid templates of a step (or a rule's action), each with its field. */
export function templateProblems(step: unknown): StepProblem[] {
	return templatesIn(step).flatMap(({ source, field }) => {
		const problem = checkTemplate(source);
		return problem ? [{ path: field, message: `not a valid template: ${problem}` }] : [];
	});
}

/** Steps and actions whose rendered text becomes a message (a conversation's first one, for create_conversation). */
const MESSAGE_STEPS = new Set(['send_message', 'create_conversation']);

/**
 * A step with `render` applied to every template (the fields `templatesIn` finds): what a runner performs.
 * Each render is bounded to `maxLength` characters: a message's own limit in a step that sends one, the
 * templates' general bound elsewhere (an HTTP request's body).
 */
export function renderTemplates<S>(step: S, render: (source: string, maxLength: number) => string): S {
	const type = (step as { type?: unknown }).type;
	const maxLength = typeof type === 'string' && MESSAGE_STEPS.has(type) ? MAX_OPERATOR_TEXT : MAX_RENDERED_LENGTH;
	const renderAll = (value: unknown, record: boolean): unknown => {
		if (typeof value === 'string') return render(value, maxLength);
		if (Array.isArray(value)) return value.map((v) => renderAll(v, false));
		if (value && typeof value === 'object') {
			return Object.fromEntries(
				Object.entries(value).map(([k, v]) => [
					k,
					!record && NOT_TEMPLATES.has(k) ? v : renderAll(v, !record && TEMPLATE_RECORDS.has(k)),
				]),
			);
		}
		return value;
	};
	return renderAll(step, false) as S;
}

/**
 * The checks every document shares: duplicate ids, a start or a link naming no step, invalid templates. The
 * index of steps by id, for the document's own checks and `graphProblems`.
 */
export function stepProblems<S extends { id: string }>(
	start: string,
	steps: S[],
): { problems: StepProblem[]; index: Map<string, number> } {
	const problems: StepProblem[] = [];
	const index = new Map<string, number>();
	for (const [i, step] of steps.entries()) {
		if (index.has(step.id))
			problems.push({ path: ['steps', i, 'id'], message: `"${step.id}" is the id of another step` });
		else index.set(step.id, i);
	}
	if (!index.has(start)) problems.push({ path: ['start'], message: `no step "${start}"` });
	for (const [i, step] of steps.entries()) {
		for (const { to, field } of linksIn(step)) {
			if (!index.has(to)) problems.push({ path: ['steps', i, ...field], message: `no step "${to}"` });
		}
		problems.push(...under(['steps', i], templateProblems(step)));
	}
	return { problems, index };
}

/**
 * Steps the start never reaches, and the loops of the graph whose edges `loopEdges` makes of the steps'
 * targets (the ones that may form a loop): each loop is a problem at its first step, `loopMessage` saying why it is one. Tarjan's
 * strongly connected components find them: a component of several steps, or one linking to itself.
 */
export function graphProblems<S extends { id: string }>(
	start: string,
	steps: S[],
	index: Map<string, number>,
	loopEdges: (targets: (i: number) => number[]) => (i: number) => number[],
	loopMessage: (ids: string) => string,
): StepProblem[] {
	const targets = (i: number) => linksIn(steps[i] as S).map((l) => index.get(l.to) as number);
	const edges = loopEdges(targets);
	const reached = new Set<number>();
	const queue = [index.get(start) as number];
	while (queue.length > 0) {
		const i = queue.pop() as number;
		if (reached.has(i)) continue;
		reached.add(i);
		queue.push(...targets(i));
	}
	const problems: StepProblem[] = [];
	for (const [i, step] of steps.entries()) {
		if (!reached.has(i))
			problems.push({ path: ['steps', i], message: `"${step.id}" is never reached from "${start}"` });
	}
	let counter = 0;
	const order = new Map<number, number>();
	const low = new Map<number, number>();
	const stack: number[] = [];
	const onStack = new Set<number>();
	const connect = (v: number) => {
		order.set(v, counter);
		low.set(v, counter);
		counter++;
		stack.push(v);
		onStack.add(v);
		for (const w of edges(v)) {
			if (!order.has(w)) {
				connect(w);
				low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
			} else if (onStack.has(w)) {
				low.set(v, Math.min(low.get(v) as number, order.get(w) as number));
			}
		}
		if (low.get(v) === order.get(v)) {
			const component: number[] = [];
			let w: number;
			do {
				w = stack.pop() as number;
				onStack.delete(w);
				component.push(w);
			} while (w !== v);
			if (component.length > 1 || edges(v).includes(v)) {
				const ids = component.map((i) => steps[i]?.id).join(' → ');
				problems.push({ path: ['steps', Math.min(...component)], message: loopMessage(ids) });
			}
		}
	};
	for (let i = 0; i < steps.length; i++) if (!order.has(i)) connect(i);
	return problems;
}
