/**
 * The scenario interpreter: a pure step machine, as the bots' is. `advanceScenario(definition, run, event,
 * context, now)` returns the new run state and the effects its runner (the scenarios Queue's consumer)
 * performs. Conditions, variables, loops and ends run here at once; an action step is handed out as an
 * `action` effect with its templates rendered and a key (the step, and the loop iterations it runs in), and
 * the run waits for its `result`. The runner records each completed action's result under its key, so a
 * redelivered message feeds the recorded result back instead of performing the action twice.
 *
 * A retryable failure (an HTTP request's 5xx or timeout) of a step with retries left is a `retry` effect: the
 * runner re-enqueues the same action with that delay instead of sleeping. A failure with no retry left takes
 * the step's `onError`, else the enclosing loop's, else fails the run, with the message in `vars.error`.
 */
import { evaluate, factValue, mappedValues } from './conditions';
import type { ScenarioDefinition, ScenarioStep } from './scenario-definition';
import { renderTemplates } from './step-graph';
import { renderTemplateSync, TemplateError } from './templates';

/** Steps a run may take in all, loop iterations included (the default). */
export const SCENARIO_STEP_BUDGET = 100;
/** The first retry's wait; each next one doubles, up to MAX_RETRY_SECONDS. */
const FIRST_RETRY_SECONDS = 5;
const MAX_RETRY_SECONDS = 600;

export type ActionStepOfScenario = Extract<
	ScenarioStep,
	{
		type:
			| 'find_contact'
			| 'create_contact'
			| 'update_contact'
			| 'find_conversation'
			| 'create_conversation'
			| 'send_message'
			| 'create_deal'
			| 'update_deal'
			| 'apply_tag'
			| 'http_request';
	}
>;

interface LoopFrame {
	stepId: string;
	index: number;
	items: unknown[];
}

export interface ScenarioRunState {
	status: 'running' | 'waiting' | 'succeeded' | 'failed';
	/** The action step waited on (its key in `waitingKey`); null when not waiting. */
	waitingAt: string | null;
	waitingKey: string | null;
	variables: Record<string, unknown>;
	/** The loops under way, innermost last. */
	loops: LoopFrame[];
	/** Steps taken so far. */
	steps: number;
	/** Failed tries of the step waited on. */
	attempt: number;
	error: string | null;
}

export type ScenarioEvent =
	| { type: 'start'; variables: Record<string, unknown> }
	/** The outcome of an `action` effect, by its key. */
	| {
			type: 'result';
			key: string;
			ok: boolean;
			data?: unknown;
			error?: string;
			/** A failure worth trying again (a 5xx, a timeout). */
			retryable?: boolean;
			/** A find that found nothing, an update_deal without a deal. */
			notFound?: boolean;
	  };

export type ScenarioEffect =
	| { kind: 'action'; key: string; step: ActionStepOfScenario; attempt: number }
	| { kind: 'retry'; key: string; step: ActionStepOfScenario; attempt: number; delaySeconds: number }
	| { kind: 'log'; key: string; stepId: string; output?: unknown; error?: string }
	| { kind: 'done'; status: 'succeeded' | 'failed'; error: string | null };

export function newScenarioRun(): ScenarioRunState {
	return {
		status: 'running',
		waitingAt: null,
		waitingKey: null,
		variables: {},
		loops: [],
		steps: 0,
		attempt: 0,
		error: null,
	};
}

interface Machine {
	steps: Map<string, ScenarioStep>;
	timeZone: string;
	now: number;
	state: ScenarioRunState;
	effects: ScenarioEffect[];
}

/** Runs one event through a scenario run; see the top of this file. */
export function advanceScenario(
	definition: ScenarioDefinition,
	previous: ScenarioRunState,
	event: ScenarioEvent,
	context: { timeZone: string },
	now: number,
): { state: ScenarioRunState; effects: ScenarioEffect[] } {
	const m: Machine = {
		steps: new Map(definition.steps.map((step) => [step.id, step])),
		timeZone: context.timeZone,
		now,
		state: structuredClone(previous),
		effects: [],
	};
	const done = () => ({ state: m.state, effects: m.effects });
	if (m.state.status === 'succeeded' || m.state.status === 'failed') return done();
	if (event.type === 'start') {
		if (m.state.steps > 0) return done();
		m.state.variables = { ...event.variables };
		run(m, definition.start);
		return done();
	}
	// A result for another key (late, repeated) finds nothing waiting for it.
	if (m.state.status !== 'waiting' || event.key !== m.state.waitingKey) return done();
	const step = m.steps.get(m.state.waitingAt ?? '');
	if (!step || !isAction(step)) {
		fail(m, `step "${m.state.waitingAt}" is not in this version`);
		return done();
	}
	receive(m, step, event);
	return done();
}

function isAction(step: ScenarioStep): step is ActionStepOfScenario {
	return !['condition', 'set_variables', 'loop', 'end'].includes(step.type);
}

/** The key of a step in the loop iterations under way: `tag@each:3`. */
function keyOf(m: Machine, stepId: string): string {
	return [stepId, ...m.state.loops.map((f) => `${f.stepId}:${f.index}`)].join('@');
}

function render(m: Machine, source: string, maxLength?: number): string {
	return renderTemplateSync(source, { timeZone: m.timeZone, variables: m.state.variables, now: m.now }, maxLength);
}

function fail(m: Machine, error: string) {
	m.state.status = 'failed';
	m.state.error = error;
	m.state.waitingAt = null;
	m.state.waitingKey = null;
	m.effects.push({ kind: 'done', status: 'failed', error });
}

function succeed(m: Machine) {
	m.state.status = 'succeeded';
	m.state.waitingAt = null;
	m.state.waitingKey = null;
	m.effects.push({ kind: 'done', status: 'succeeded', error: null });
}

/**
 * Where a chain that ends goes: back to the innermost loop for its next item (or on after the loop when it
 * has none left); the run succeeds when no loop is under way.
 */
function afterChain(m: Machine): string | undefined {
	const frame = m.state.loops.at(-1);
	if (!frame) {
		succeed(m);
		return undefined;
	}
	const loop = m.steps.get(frame.stepId) as Extract<ScenarioStep, { type: 'loop' }>;
	frame.index++;
	if (frame.index < frame.items.length) {
		setItem(m, loop, frame);
		return loop.do;
	}
	m.state.loops.pop();
	return loop.next ?? afterChain(m);
}

function setItem(m: Machine, loop: Extract<ScenarioStep, { type: 'loop' }>, frame: LoopFrame) {
	m.state.variables[loop.as] = frame.items[frame.index];
	m.state.variables[`${loop.as}_index`] = frame.index;
}

/**
 * Where a failure goes: the step's `onError`, else the innermost loop's (its iterations are dropped), else
 * the run fails. The message is kept in `vars.error` for the path that handles it.
 */
function failure(m: Machine, step: ScenarioStep, error: string): string | undefined {
	m.state.variables.error = error;
	if ('onError' in step && step.onError) return step.onError;
	while (m.state.loops.length > 0) {
		const frame = m.state.loops.pop() as LoopFrame;
		const loop = m.steps.get(frame.stepId) as Extract<ScenarioStep, { type: 'loop' }>;
		if (loop.onError) return loop.onError;
	}
	fail(m, `${step.id}: ${error}`);
	return undefined;
}

/** Runs steps from `id` until one waits for its result or the run ends. */
function run(m: Machine, id: string | undefined) {
	let next = id;
	while (next !== undefined && m.state.status !== 'failed' && m.state.status !== 'succeeded') {
		const step = m.steps.get(next);
		if (!step) {
			fail(m, `step "${next}" is not in this version`);
			return;
		}
		if (++m.state.steps > SCENARIO_STEP_BUDGET) {
			fail(m, `more than ${SCENARIO_STEP_BUDGET} steps`);
			return;
		}
		m.state.status = 'running';
		try {
			next = enter(m, step);
		} catch (error) {
			const message = error instanceof TemplateError ? `template: ${error.message}` : String(error);
			m.effects.push({ kind: 'log', key: keyOf(m, step.id), stepId: step.id, error: message });
			next = failure(m, step, message);
		}
	}
}

/** A step's entry: the step to run next, or undefined when it waits or the run ended. */
function enter(m: Machine, step: ScenarioStep): string | undefined {
	const key = keyOf(m, step.id);
	switch (step.type) {
		case 'condition': {
			const index = step.branches.findIndex((branch) => evaluate(branch.condition, { vars: m.state.variables }));
			m.effects.push({ kind: 'log', key, stepId: step.id, output: index < 0 ? 'default' : { branch: index } });
			return index < 0 ? step.default : step.branches[index]?.next;
		}
		case 'set_variables': {
			const set = Object.fromEntries(Object.entries(step.values).map(([name, source]) => [name, render(m, source)]));
			Object.assign(m.state.variables, set);
			m.effects.push({ kind: 'log', key, stepId: step.id, output: set });
			return step.next ?? afterChain(m);
		}
		case 'loop': {
			const items = factValue({ vars: m.state.variables }, step.items);
			if (!Array.isArray(items)) return failure(m, step, `${step.items} is not a list`);
			if (items.length > step.max)
				return failure(m, step, `${step.items} has ${items.length} items, more than ${step.max}`);
			m.effects.push({ kind: 'log', key, stepId: step.id, output: { items: items.length } });
			if (items.length === 0) return step.next ?? afterChain(m);
			const frame: LoopFrame = { stepId: step.id, index: 0, items };
			m.state.loops.push(frame);
			setItem(m, step, frame);
			return step.do;
		}
		case 'end': {
			const reason = step.reason === undefined ? null : render(m, step.reason);
			m.effects.push({ kind: 'log', key, stepId: step.id, output: step.outcome });
			m.state.loops = [];
			if (step.outcome === 'failed') fail(m, reason ?? 'ended as failed');
			else succeed(m);
			return undefined;
		}
		default: {
			const rendered = renderTemplates(step, (source, maxLength) => render(m, source, maxLength));
			m.state.status = 'waiting';
			m.state.waitingAt = step.id;
			m.state.waitingKey = key;
			m.state.attempt = 0;
			m.effects.push({ kind: 'action', key, step: rendered, attempt: 0 });
			return undefined;
		}
	}
}

function receive(m: Machine, step: ActionStepOfScenario, event: Extract<ScenarioEvent, { type: 'result' }>) {
	const key = m.state.waitingKey as string;
	const retries = step.type === 'http_request' ? step.retries : 0;
	if (!event.ok && event.retryable && m.state.attempt < retries) {
		m.state.attempt++;
		const delaySeconds = Math.min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** (m.state.attempt - 1));
		m.effects.push({
			kind: 'log',
			key,
			stepId: step.id,
			error: `${event.error ?? 'failed'}; retry ${m.state.attempt} in ${delaySeconds} s`,
		});
		// The step is rendered again on the retry, with the variables as they are: the same as the first try's.
		const rendered = renderTemplates(step, (source, maxLength) => render(m, source, maxLength));
		m.effects.push({ kind: 'retry', key, step: rendered, attempt: m.state.attempt, delaySeconds });
		return;
	}
	m.state.status = 'running';
	m.state.waitingAt = null;
	m.state.waitingKey = null;
	m.state.attempt = 0;
	m.effects.push({
		kind: 'log',
		key,
		stepId: step.id,
		...(event.ok
			? { output: event.data ?? (event.notFound ? 'not found' : 'done') }
			: { error: event.error ?? 'failed' }),
	});
	if (!event.ok) return run(m, failure(m, step, event.error ?? 'failed'));
	if (event.notFound) {
		const elsewhere = 'onNotFound' in step ? step.onNotFound : 'onNoDeal' in step ? step.onNoDeal : undefined;
		return run(m, elsewhere ?? step.next ?? afterChain(m));
	}
	if ('variable' in step && step.variable) m.state.variables[step.variable] = event.data;
	if (step.type === 'http_request') Object.assign(m.state.variables, mappedValues(step.response, event.data));
	run(m, step.next ?? afterChain(m));
}
