/**
 * A run's path on the canvas: the steps its log names (a simulation's, a scenario test's, a real run's), in
 * order, with where it waits or failed, and the links it took between them.
 */
import { links } from './graph';
import type { Definition, DocumentKind } from './schema';

export interface LogEntry {
	stepId: string;
	input?: unknown;
	output?: unknown;
	error?: string;
}

export interface Trace {
	steps: Map<string, { state: 'passed' | 'waiting' | 'failed'; note: string | null }>;
	edges: Set<string>;
}

/** The outlets a step leaves by when it fails. */
const FAILURE_HANDLES = new Set(['onError']);

export const NO_TRACE: Trace = { steps: new Map(), edges: new Set() };

function noteOf(entry: LogEntry): string | null {
	if (entry.error) return entry.error;
	const shown = entry.input ?? entry.output;
	if (shown === undefined || shown === null) return null;
	const text = typeof shown === 'string' ? shown : JSON.stringify(shown);
	return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** The trace of a log over a definition; `waitingAt` is the step the run stands at, if any. */
export function traceOf(
	kind: DocumentKind,
	definition: Definition,
	log: LogEntry[],
	waitingAt: string | null = null,
): Trace {
	const steps: Trace['steps'] = new Map();
	const order: string[] = [];
	for (const entry of log) {
		if (!definition.steps.some((s) => s.id === entry.stepId)) continue;
		steps.set(entry.stepId, { state: entry.error ? 'failed' : 'passed', note: noteOf(entry) });
		if (order[order.length - 1] !== entry.stepId) order.push(entry.stepId);
	}
	if (waitingAt && definition.steps.some((s) => s.id === waitingAt)) {
		steps.set(waitingAt, { state: 'waiting', note: steps.get(waitingAt)?.note ?? null });
		if (order[order.length - 1] !== waitingAt) order.push(waitingAt);
	}
	const all = links(kind, definition);
	const edges = new Set<string>();
	const first = order[0];
	if (first === definition.start) {
		const start = all.find((l) => l.source === '__start');
		if (start) edges.add(start.id);
	}
	for (let i = 1; i < order.length; i++) {
		const from = order[i - 1] as string;
		const to = order[i];
		const between = all.filter((link) => link.source === from && link.target === to);
		// Two links to the same step (next and on error both to a handoff): the one the step's outcome took.
		const failed = steps.get(from)?.state === 'failed';
		const taken = between.filter((link) => FAILURE_HANDLES.has(link.handle) === failed);
		for (const link of taken.length > 0 ? taken : between) edges.add(link.id);
	}
	return { steps, edges };
}
