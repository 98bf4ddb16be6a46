/**
 * A scenario run on paper, for its test mode: the interpreter started with a sample input, and every action
 * step answered as the caller says (done with no data, by default) instead of performed. What comes out is the
 * step log, the actions the run would take with their templates rendered, and the variables at the end: a
 * builder tests a saved or an unsaved definition, and nothing in the workspace changes. Pure.
 */
import type { ScenarioDefinition } from './scenario-definition';
import {
	advanceScenario,
	newScenarioRun,
	type ScenarioEffect,
	type ScenarioEvent,
	type ScenarioRunState,
} from './scenario-interpreter';

export interface ScenarioSimulatedResult {
	ok: boolean;
	data?: unknown;
	error?: string;
	/** A 5xx or a timeout: an HTTP step with retries left tries again. */
	retryable?: boolean;
	/** A Find that finds nothing, an update_deal without a deal. */
	notFound?: boolean;
}

export interface ScenarioSimulation {
	status: ScenarioRunState['status'];
	error: string | null;
	variables: Record<string, unknown>;
	log: Array<Omit<Extract<ScenarioEffect, { kind: 'log' }>, 'kind'>>;
	/** The actions the run would take, rendered, in order (a retried one once per try). */
	actions: Array<{ key: string; stepId: string; type: string; attempt: number; step: unknown }>;
}

/** Events one simulation may process: a bound on any definition (the step budget bounds a real run). */
const MAX_EVENTS = 2000;

export function simulateScenario(
	definition: ScenarioDefinition,
	input: {
		variables: Record<string, unknown>;
		results?: Record<string, ScenarioSimulatedResult>;
		timeZone: string;
		now: number;
	},
): ScenarioSimulation {
	const out: ScenarioSimulation = { status: 'running', error: null, variables: {}, log: [], actions: [] };
	let state = newScenarioRun();
	let event: ScenarioEvent | undefined = { type: 'start', variables: input.variables };
	for (let i = 0; event !== undefined && i < MAX_EVENTS; i++) {
		const step = advanceScenario(definition, state, event, { timeZone: input.timeZone }, input.now);
		state = step.state;
		event = undefined;
		for (const effect of step.effects) {
			if (effect.kind === 'log') {
				const { kind: _kind, ...entry } = effect;
				out.log.push(entry);
			}
			if (effect.kind === 'action' || effect.kind === 'retry') {
				out.actions.push({
					key: effect.key,
					stepId: effect.step.id,
					type: effect.step.type,
					attempt: effect.attempt,
					step: effect.step,
				});
				event = { type: 'result', key: effect.key, ...(input.results?.[effect.step.id] ?? { ok: true }) };
			}
		}
	}
	out.status = state.status;
	out.error = state.error;
	out.variables = state.variables;
	return out;
}
