/**
 * A bot run on paper: the interpreter fed a list of visitor inputs, with delays and typing pauses taken at
 * once (the clock jumps), facts taken from the caller, and every CRM, integration, assignment, tag, contact
 * and notify step answered as the caller says (done, by default) instead of performed (nobody is notified). What comes out is the transcript,
 * the effects the bot would have, and its step log: a builder tests a bot before publishing, and nothing in
 * the workspace changes. Pure, like the interpreter.
 */
import type { BotDefinition } from './bot-definition';
import { advance, type BotEvent, type Effect, newRun, type RunContext, type RunState } from './bot-interpreter';
import type { Facts } from './conditions';

export type SimulatedInput = string | { file: { name: string } };

export interface SimulatedResult {
	ok: boolean;
	data?: unknown;
	error?: string;
	noDeal?: boolean;
}

export interface SimulationInput {
	inputs: SimulatedInput[];
	/** What Decision steps read about the world (`contact`, `businessHours`, `agents`, `deal`…). */
	facts?: Facts;
	/** How each action step turns out, by step id; done with no data when absent. */
	results?: Record<string, SimulatedResult>;
	context: RunContext;
	now: number;
}

export type TranscriptLine =
	| { from: 'bot'; text: string; buttons?: string[]; media?: Array<{ kind: string; url: string; name?: string }> }
	| { from: 'visitor'; text: string }
	| { from: 'bot'; waited: number };

export interface Simulation {
	transcript: TranscriptLine[];
	/** The effects that would change something (actions, handoffs), in order. */
	effects: Effect[];
	log: Array<Extract<Effect, { kind: 'log' }>>;
	status: RunState['status'];
	/** The step waiting for an answer when the inputs ran out; null when the run ended. */
	waitingAt: string | null;
	reason: string | null;
	variables: Record<string, unknown>;
	/** Visitor inputs left over when the run ended. */
	unused: number;
}

/** Events one simulation may process in all: a bound on any definition and input list. */
const MAX_EVENTS = 1000;

export function simulate(definition: BotDefinition, input: SimulationInput): Simulation {
	const out: Simulation = {
		transcript: [],
		effects: [],
		log: [],
		status: 'running',
		waitingAt: null,
		reason: null,
		variables: {},
		unused: 0,
	};
	let state = newRun();
	let now = input.now;
	const inputs = [...input.inputs];
	const pending: BotEvent[] = [{ type: 'start' }];
	for (let count = 0; count < MAX_EVENTS; count++) {
		const event = pending.shift();
		if (!event) {
			// Nothing left to feed but the visitor's next input, if the run waits for one.
			const waiting = state.waiting;
			if (!waiting || (waiting.for !== 'answer' && waiting.for !== 'reason' && waiting.for !== 'choice')) break;
			const next = inputs.shift();
			if (next === undefined) break;
			if (typeof next === 'string') {
				out.transcript.push({ from: 'visitor', text: next });
				pending.push({ type: 'answer', text: next });
			} else {
				out.transcript.push({ from: 'visitor', text: `[file] ${next.file.name}` });
				pending.push({ type: 'file', ref: `simulated:${next.file.name}`, name: next.file.name });
			}
			continue;
		}
		const step = advance(definition, state, event, input.context, now);
		state = step.state;
		for (const effect of step.effects) {
			switch (effect.kind) {
				case 'message':
					out.transcript.push({
						from: 'bot',
						text: effect.text,
						...(effect.buttons ? { buttons: effect.buttons } : {}),
						...(effect.media ? { media: effect.media } : {}),
					});
					break;
				case 'timer':
					out.transcript.push({ from: 'bot', waited: Math.round((effect.at - now) / 1000) });
					now = Math.max(now, effect.at);
					pending.push({ type: 'timer', stepId: effect.stepId });
					break;
				case 'facts':
					pending.push({ type: 'facts', stepId: effect.stepId, facts: pick(input.facts ?? {}, effect.roots) });
					break;
				case 'action': {
					out.effects.push(effect);
					const result = input.results?.[effect.step.id] ?? { ok: true };
					pending.push({ type: 'result', stepId: effect.step.id, ...result });
					break;
				}
				case 'transfer':
					out.effects.push(effect);
					break;
				case 'log':
					out.log.push(effect);
					break;
				case 'typing':
				case 'cancel_timer':
					break;
			}
		}
	}
	out.status = state.status;
	out.waitingAt = state.waiting?.stepId ?? null;
	out.reason = state.reason;
	out.variables = state.variables;
	out.unused = inputs.length;
	return out;
}

function pick(facts: Facts, roots: string[]): Facts {
	return Object.fromEntries(Object.entries(facts).filter(([root]) => roots.includes(root)));
}
