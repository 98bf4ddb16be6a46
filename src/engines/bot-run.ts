/**
 * A bot run as the interpreter (src/engines/bot-interpreter.ts) keeps it: its state, the events that move it,
 * the effects it asks the runner for, and the few moves every step handler makes (stop, wait, say).
 */
import { MAX_OPERATOR_TEXT } from '../model/messages';
import type { BotDefinition, BotStep } from './bot-definition';
import type { FactRoot, Facts } from './conditions';
import { renderTemplateSync, type TemplateInput } from './templates';

/** Steps one event may run before the run is stopped as a runaway. */
export const STEP_BUDGET = 50;

export type Waiting =
	| { for: 'answer'; stepId: string }
	/** A Send Message's buttons are shown: the visitor's choice (or text) says where the bot goes. */
	| { for: 'choice'; stepId: string }
	| { for: 'reason'; stepId: string }
	| { for: 'timer'; stepId: string; at: number; resume: 'next' | 'send'; cancelOnReply: boolean }
	| { for: 'facts'; stepId: string }
	| { for: 'result'; stepId: string }
	/** An answer the local checks took, waiting for its validation call (`value`: the answer as it would be kept). */
	| { for: 'validation'; stepId: string; value: unknown };

/** Where a bot run stands. */
export const BOT_RUN_STATUSES = ['running', 'waiting', 'finished', 'transferred', 'stopped', 'failed'] as const;

export interface RunState {
	status: (typeof BOT_RUN_STATUSES)[number];
	waiting: Waiting | null;
	variables: Record<string, unknown>;
	/** Invalid answers so far at the Data Entry step being asked. */
	attempts: number;
	/** Why a run failed or was stopped. */
	reason: string | null;
}

export type BotEvent =
	| { type: 'start' }
	/** A visitor's message; a button click arrives as its label. */
	| { type: 'answer'; text: string }
	| { type: 'file'; ref: string; name: string }
	/** Each of these answers the effect of the step named: one for another step (late, repeated) is ignored. */
	| { type: 'timer'; stepId: string }
	| { type: 'facts'; stepId: string; facts: Facts }
	/** The outcome of an `action` effect: its data become variables when the step maps them. */
	| { type: 'result'; stepId: string; ok: boolean; data?: unknown; error?: string; noDeal?: boolean }
	/** An operator wrote in the conversation: the person takes over. */
	| { type: 'takeover' };

export type DataEntryInput = Extract<BotStep, { type: 'data_entry' }>['input'];

/** A step's action with its templates rendered: what the runner performs for a `result`. */
export type ActionStep = Extract<
	BotStep,
	{ type: 'create_deal' | 'update_deal' | 'integration' | 'assign' | 'apply_tag' | 'update_contact' | 'notify' }
>;

export type Effect =
	| {
			kind: 'message';
			text: string;
			media?: Array<{ kind: string; url: string; name?: string }>;
			buttons?: string[];
			/** A Data Entry prompt: what it asks for, so the widget adapts its composer (a rating's scale, a date). */
			ask?: DataEntryInput;
	  }
	| { kind: 'typing'; on: boolean }
	| { kind: 'timer'; stepId: string; at: number }
	| { kind: 'cancel_timer' }
	| { kind: 'facts'; stepId: string; roots: FactRoot[] }
	| { kind: 'action'; step: ActionStep }
	| { kind: 'transfer' }
	| { kind: 'log'; stepId: string; input?: unknown; output?: unknown; error?: string };

/** What templates read besides the run's variables: the conversation's contact, agent, zone. */
export type RunContext = Omit<TemplateInput, 'variables' | 'now'>;

export function newRun(): RunState {
	return { status: 'running', waiting: null, variables: {}, attempts: 0, reason: null };
}

/** One event's pass through a run: what `advance` builds, and what its step handlers share. */
export interface Machine {
	definition: BotDefinition;
	steps: Map<string, BotStep>;
	context: RunContext;
	now: number;
	state: RunState;
	effects: Effect[];
	budget: number;
	/** Leaves a step for the next (none ends the run), and runs from a step: the interpreter's own loop. */
	go(from: BotStep, to: string | undefined): void;
	run(id: string): void;
}

export function stop(m: Machine, status: 'finished' | 'transferred' | 'stopped' | 'failed', reason: string | null) {
	m.state.status = status;
	m.state.waiting = null;
	m.state.reason = reason;
}

export function wait(m: Machine, waiting: Waiting) {
	m.state.status = 'waiting';
	m.state.waiting = waiting;
}

export function render(m: Machine, source: string, maxLength?: number): string {
	return renderTemplateSync(source, { ...m.context, variables: m.state.variables, now: m.now }, maxLength);
}

/** A text the bot says (a message, a prompt, a button): bounded by a message's own length while it renders. */
export function say(m: Machine, source: string): string {
	return render(m, source, MAX_OPERATOR_TEXT);
}
