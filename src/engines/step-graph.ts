/**
 * What every step document of the automation kernel (a bot, a scenario) is checked for beyond its shape: ids
 * unique, every link naming a step, every step reachable from the start, every template valid, loops only
 * where the document allows them. Each problem names its step and field (`steps.3.next`).
 */
import type { z } from '@hono/zod-openapi';
import { checkTemplate } from './templates';

export interface StepProblem {
	path: (string | number)[];
	message: string;
}

export interface StepLink {
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

/**
 * The templated fields of a step, each with its path: every string but those under `notTemplates` keys
 * (ids, links, enumerations), and every value of a `templateRecords` record whatever its key.
 */
export function templatesIn(
	step: unknown,
	notTemplates: ReadonlySet<string>,
	templateRecords: ReadonlySet<string>,
): Array<{ source: string; field: (string | number)[] }> {
	const found: Array<{ source: string; field: (string | number)[] }> = [];
	const visit = (value: unknown, field: (string | number)[], record: boolean) => {
		if (typeof value === 'string') found.push({ source: value, field });
		else if (Array.isArray(value)) {
			for (const [i, v] of value.entries()) visit(v, [...field, i], false);
		} else if (value && typeof value === 'object') {
			for (const [key, v] of Object.entries(value)) {
				if (!record && notTemplates.has(key)) continue;
				visit(v, [...field, key], !record && templateRecords.has(key));
			}
		}
	};
	visit(step, [], false);
	return found;
}

/**
 * A step with `render` applied to every template (the fields `templatesIn` finds), everything else as it is:
 * what a runner performs.
 */
export function renderTemplates<S>(
	step: S,
	notTemplates: ReadonlySet<string>,
	templateRecords: ReadonlySet<string>,
	render: (source: string) => string,
): S {
	const renderAll = (value: unknown, record: boolean): unknown => {
		if (typeof value === 'string') return render(value);
		if (Array.isArray(value)) return value.map((v) => renderAll(v, false));
		if (value && typeof value === 'object') {
			return Object.fromEntries(
				Object.entries(value).map(([k, v]) => [
					k,
					!record && notTemplates.has(k) ? v : renderAll(v, !record && templateRecords.has(k)),
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
	linksOf: (step: S) => StepLink[],
	templatesOf: (step: S) => Array<{ source: string; field: (string | number)[] }>,
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
		for (const { to, field } of linksOf(step)) {
			if (!index.has(to)) problems.push({ path: ['steps', i, ...field], message: `no step "${to}"` });
		}
		for (const { source, field } of templatesOf(step)) {
			const problem = checkTemplate(source);
			if (problem) problems.push({ path: ['steps', i, ...field], message: `not a valid template: ${problem}` });
		}
	}
	return { problems, index };
}

/**
 * Steps the start never reaches, and the loops of the graph whose edges `loopEdges` gives (a step's targets
 * that may form a loop): each loop is a problem at its first step, `loopMessage` saying why it is one. Tarjan's
 * strongly connected components find them: a component of several steps, or one linking to itself.
 */
export function graphProblems<S extends { id: string }>(
	start: string,
	steps: S[],
	index: Map<string, number>,
	linksOf: (step: S) => StepLink[],
	loopEdges: (i: number) => number[],
	loopMessage: (ids: string) => string,
): StepProblem[] {
	const targets = (i: number) => linksOf(steps[i] as S).map((l) => index.get(l.to) as number);
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
		for (const w of loopEdges(v)) {
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
			if (component.length > 1 || loopEdges(v).includes(v)) {
				const ids = component.map((i) => steps[i]?.id).join(' → ');
				problems.push({ path: ['steps', Math.min(...component)], message: loopMessage(ids) });
			}
		}
	};
	for (let i = 0; i < steps.length; i++) if (!order.has(i)) connect(i);
	return problems;
}
