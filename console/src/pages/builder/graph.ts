/**
 * The definition as a graph, and the edits the canvas makes to it. The definition (`{ start, steps }`) is the
 * only state: nodes and edges are drawn from it, and connecting, disconnecting, deleting or renaming a step
 * returns a new definition. What the API would refuse for its shape is the API's to say; what the canvas can
 * see at once (a link to no step, a step the start never reaches) it marks as the builder draws.
 */
import dagre from '@dagrejs/dagre';
import { type Definition, type DocumentKind, listItem, outlets, type Step, setIn } from './schema';

export const START = '__start';

export interface Link {
	id: string;
	source: string;
	handle: string;
	target: string;
	/** The target names no step. */
	dangling: boolean;
}

/** Every link of the definition, the start's included (from the START node). */
export function links(kind: DocumentKind, definition: Definition): Link[] {
	const ids = new Set(definition.steps.map((s) => s.id));
	const found: Link[] = [
		{
			id: `${START}:start`,
			source: START,
			handle: 'start',
			target: definition.start,
			dangling: !ids.has(definition.start),
		},
	];
	for (const step of definition.steps) {
		for (const outlet of outlets(kind, step)) {
			if (outlet.target === undefined || outlet.target === '') continue;
			found.push({
				id: `${step.id}:${outlet.handle}`,
				source: step.id,
				handle: outlet.handle,
				target: outlet.target,
				dangling: !ids.has(outlet.target),
			});
		}
	}
	return found;
}

/** The steps the start reaches. */
export function reachable(kind: DocumentKind, definition: Definition): Set<string> {
	const byId = new Map(definition.steps.map((s) => [s.id, s]));
	const seen = new Set<string>();
	const queue = [definition.start];
	while (queue.length > 0) {
		const id = queue.pop() as string;
		const step = byId.get(id);
		if (!step || seen.has(id)) continue;
		seen.add(id);
		for (const outlet of outlets(kind, step)) if (outlet.target) queue.push(outlet.target);
	}
	return seen;
}

/** The definition with the outlet `handle` of `source` (or the start) pointing at `target`, or unlinked. */
export function connect(
	definition: Definition,
	source: string,
	handle: string,
	target: string | undefined,
): Definition {
	if (source === START) return target === undefined ? definition : { ...definition, start: target };
	const path = handle.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
	const linkIn = (step: Step) => {
		// A button written as its label alone becomes `{ label }` before it gets a link of its own.
		const [list, i] = path;
		const items = step[list as string];
		const item = Array.isArray(items) && typeof i === 'number' ? items[i] : undefined;
		const written = typeof item === 'string' ? setIn(step, [list as string, i as number], listItem(item)) : step;
		return setIn(written, path, target);
	};
	return {
		...definition,
		steps: definition.steps.map((step) => (step.id === source ? linkIn(step) : step)),
	};
}

/**
 * The definition without the step: optional links to it are cleared, required ones (a branch, a decision's
 * default) are left to show as dangling until the builder points them elsewhere.
 */
export function removeStep(kind: DocumentKind, definition: Definition, id: string): Definition {
	let steps = definition.steps.filter((s) => s.id !== id);
	steps = steps.map((step) => {
		let changed = step;
		for (const outlet of outlets(kind, step)) {
			if (outlet.target === id && !outlet.required) changed = setIn(changed, outlet.path, undefined);
		}
		return changed;
	});
	const start = definition.start === id ? (steps[0]?.id ?? '') : definition.start;
	return { start, steps };
}

/** The definition with a step's id changed, and every link to it (the start's too). */
export function renameStep(kind: DocumentKind, definition: Definition, from: string, to: string): Definition {
	const steps = definition.steps.map((step) => {
		let changed: Step = step.id === from ? { ...step, id: to } : step;
		for (const outlet of outlets(kind, changed)) {
			if (outlet.target === from) changed = setIn(changed, outlet.path, to);
		}
		return changed;
	});
	return { start: definition.start === from ? to : definition.start, steps };
}

export interface Position {
	x: number;
	y: number;
}

const NODE_WIDTH = 240;
const NODE_HEIGHT = 110;

/**
 * Positions for every step, top to bottom along its links (dagre's layered layout): how a definition made
 * through the API, which carries no coordinates, first appears, and what "Tidy up" does.
 */
export function layout(
	kind: DocumentKind,
	definition: Definition,
	sizes: Map<string, { width: number; height: number }> = new Map(),
): Map<string, Position> {
	const graph = new dagre.graphlib.Graph();
	graph.setGraph({ rankdir: 'TB', nodesep: 40, ranksep: 70, marginx: 20, marginy: 20 });
	graph.setDefaultEdgeLabel(() => ({}));
	const size = (id: string) => sizes.get(id) ?? { width: NODE_WIDTH, height: NODE_HEIGHT };
	graph.setNode(START, { width: 90, height: 36 });
	for (const step of definition.steps) graph.setNode(step.id, size(step.id));
	for (const link of links(kind, definition)) if (!link.dangling) graph.setEdge(link.source, link.target);
	dagre.layout(graph);
	const positions = new Map<string, Position>();
	for (const id of [START, ...definition.steps.map((s) => s.id)]) {
		const node = graph.node(id);
		const { width, height } = id === START ? { width: 90, height: 36 } : size(id);
		if (node) positions.set(id, { x: node.x - width / 2, y: node.y - height / 2 });
	}
	return positions;
}

/** The API's 422 problems of a definition, by step index and field: `steps.3.validation.pattern: …`. */
export interface StepProblems {
	/** By step index: the field path inside the step (`validation.pattern`, `''` for the step) → message. */
	steps: Map<number, Map<string, string>>;
	/** Problems not inside a step (`start`). */
	document: string[];
}

export function definitionProblems(message: string): StepProblems {
	const found: StepProblems = { steps: new Map(), document: [] };
	for (const part of message.split('; ')) {
		const match = /^json\.definition\.([\w.-]+): (.+)$/.exec(part);
		if (!match?.[1] || !match[2]) continue;
		const step = /^steps\.(\d+)(?:\.(.+))?$/.exec(match[1]);
		if (!step?.[1]) {
			found.document.push(`${match[1]}: ${match[2]}`);
			continue;
		}
		const index = Number(step[1]);
		const fields = found.steps.get(index) ?? new Map<string, string>();
		fields.set(step[2] ?? '', match[2]);
		found.steps.set(index, fields);
	}
	return found;
}
