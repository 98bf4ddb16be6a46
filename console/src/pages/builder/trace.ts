/**
 * A run's path on the canvas: the steps its log names (a simulation's, a scenario test's, a real run's), in
 * order, with where it waits or failed, and the links it took between them.
 */
import { decisionNote } from './branch-label';
import { links } from './graph';
import type { Definition, DocumentKind, Step } from './schema';

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

export const NO_TRACE: Trace = { steps: new Map(), edges: new Set() };

function noteOf(entry: LogEntry, step: Step | undefined): string | null {
	if (entry.error) return entry.error;
	// A decision's output is the branch's index (`{"branch":0}`): said as the branch it is.
	const decided = step ? decisionNote(step, entry.output) : null;
	if (decided) return decided;
	const shown = entry.input ?? entry.output;
	if (shown === undefined || shown === null) return null;
	const text = typeof shown === 'string' ? shown : JSON.stringify(shown);
	return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/**
 * The outlet a step left by, as its last log entry says: a decision's branch or default, a button's choice, a
 * failure's error path, a search's not-found path; `next` otherwise.
 */
function outletTaken(step: Step | undefined, entry: LogEntry | undefined): string {
	if (!step || !entry) return 'next';
	const output = entry.output as { branch?: number; button?: number } | string | undefined;
	if (typeof output === 'object' && output !== null && typeof output.branch === 'number') {
		return `branches.${output.branch}.next`;
	}
	if (typeof output === 'object' && output !== null && typeof output.button === 'number') {
		return `buttons.${output.button}.next`;
	}
	if (output === 'default') return 'default';
	if (output === 'not found') return 'onNotFound';
	if (entry.error) return step.type === 'data_entry' ? 'onRetriesExhausted' : 'onError';
	const choices = step.choices as Array<{ label: string }> | undefined;
	const answer = typeof entry.input === 'string' ? entry.input.trim().toLowerCase() : null;
	const choice = answer === null ? -1 : (choices?.findIndex((c) => c.label.toLowerCase() === answer) ?? -1);
	return choice >= 0 ? `choices.${choice}.next` : 'next';
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
	const last = new Map<string, LogEntry>();
	const byId = new Map(definition.steps.map((step) => [step.id, step]));
	for (const entry of log) {
		const step = byId.get(entry.stepId);
		if (!step) continue;
		last.set(entry.stepId, entry);
		steps.set(entry.stepId, { state: entry.error ? 'failed' : 'passed', note: noteOf(entry, step) });
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
		// Two outlets to the same step (a branch and the default, next and on error): the one the log names.
		const named = outletTaken(byId.get(from), last.get(from));
		const taken = between.filter((link) => link.handle === named);
		for (const link of taken.length > 0 ? taken : between) edges.add(link.id);
	}
	return { steps, edges };
}
