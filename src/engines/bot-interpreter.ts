/**
 * The bot interpreter: a pure step machine. `advance(definition, state, event, context, now)` returns the new
 * run state and the effects the runner performs, in order; it reads no clock, storage or network. What it
 * cannot know it asks for and waits: the facts a Decision reads (`facts`), the outcome of a CRM, integration,
 * assignment, tag or contact step (`action`, answered by a `result` event), the end of a Delay or of a typing
 * pause (`timer`, answered by a `timer` event). The conversation's Durable Object keeps the state, feeds the
 * events (a visitor's answer, a file, a timer, an operator taking over) and performs the effects.
 *
 * A run waits in one place at a time, so a late, repeated or stray event finds nothing to resume and changes
 * nothing (a timer that fires twice runs its step once). A budget of steps per event stops a runaway run.
 */

import { MAX_OPERATOR_TEXT } from '../model/messages';
import { type BotDefinition, type BotStep, quickReply } from './bot-definition';
import { evaluate, type FactRoot, type Facts, MAX_MATCHED_TEXT, mappedValues, referencedFacts } from './conditions';
import { foldText } from './keywords';
import { renderTemplates } from './step-graph';
import { renderTemplateSync, TemplateError, type TemplateInput } from './templates';
import { type AnswerFormat, checkAnswer } from './values';

/** Steps one event may run before the run is stopped as a runaway. */
export const STEP_BUDGET = 50;

type Waiting =
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

type DataEntryInput = Extract<BotStep, { type: 'data_entry' }>['input'];

/** A step's action with its templates rendered: what the runner performs for a `result`. */
export type ActionStep = Extract<
	BotStep,
	{ type: 'create_deal' | 'update_deal' | 'integration' | 'assign' | 'apply_tag' | 'update_contact' }
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

interface Machine {
	definition: BotDefinition;
	steps: Map<string, BotStep>;
	context: RunContext;
	now: number;
	state: RunState;
	effects: Effect[];
	budget: number;
}

/** Runs one event through the bot; see the top of this file. */
export function advance(
	definition: BotDefinition,
	previous: RunState,
	event: BotEvent,
	context: RunContext,
	now: number,
): { state: RunState; effects: Effect[] } {
	const m: Machine = {
		definition,
		steps: new Map(definition.steps.map((step) => [step.id, step])),
		context,
		now,
		state: structuredClone(previous),
		effects: [],
		budget: STEP_BUDGET,
	};
	if (m.state.status !== 'running' && m.state.status !== 'waiting') return { state: m.state, effects: [] };
	if (event.type === 'takeover') {
		if (m.state.waiting?.for === 'timer') {
			m.effects.push({ kind: 'cancel_timer' });
			if (m.state.waiting.resume === 'send') m.effects.push({ kind: 'typing', on: false });
		}
		stop(m, 'stopped', 'an operator took over');
		return { state: m.state, effects: m.effects };
	}
	if (event.type === 'start') {
		if (m.state.waiting !== null) return { state: m.state, effects: [] };
		run(m, definition.start);
		return { state: m.state, effects: m.effects };
	}
	const waiting = m.state.waiting;
	if (!waiting) return { state: m.state, effects: [] };
	if ('stepId' in event && event.stepId !== waiting.stepId) return { state: m.state, effects: [] };
	const step = m.steps.get(waiting.stepId);
	if (!step) {
		stop(m, 'failed', `step "${waiting.stepId}" is not in this version`);
		return { state: m.state, effects: m.effects };
	}
	try {
		switch (waiting.for) {
			case 'answer':
				if ((event.type === 'answer' || event.type === 'file') && step.type === 'data_entry')
					receiveAnswer(m, step, event);
				break;
			case 'choice':
				if ((event.type === 'answer' || event.type === 'file') && step.type === 'send_message')
					receiveChoice(m, step, event);
				break;
			case 'reason':
				if (event.type === 'answer' && step.type === 'data_entry') {
					m.state.variables[`${step.variable}_reason`] = event.text.trim();
					m.state.waiting = null;
					go(m, step, step.next);
				}
				break;
			case 'timer':
				if (event.type === 'timer' && m.now < waiting.at) {
					// Early (a clock ahead of the alarm's): the wait stands, and its timer is set again.
					m.effects.push({ kind: 'timer', stepId: step.id, at: waiting.at });
				} else if (event.type === 'timer') {
					m.state.waiting = null;
					if (waiting.resume === 'send' && step.type === 'send_message') {
						m.effects.push({ kind: 'typing', on: false });
						sendMessage(m, step);
					} else {
						go(m, step, 'next' in step ? step.next : undefined);
					}
				} else if ((event.type === 'answer' || event.type === 'file') && waiting.cancelOnReply) {
					// The visitor answered: the wait is over, the bot goes on at once, the reply its `answer`.
					m.effects.push({ kind: 'cancel_timer' });
					m.state.variables.answer = event.type === 'answer' ? event.text.trim() : { ref: event.ref, name: event.name };
					m.state.waiting = null;
					go(m, step, 'next' in step ? step.next : undefined);
				}
				break;
			case 'facts':
				if (event.type === 'facts' && step.type === 'decision') decide(m, step, event.facts);
				break;
			case 'result':
				if (event.type === 'result') receiveResult(m, step, event);
				break;
			case 'validation':
				if (event.type === 'result' && step.type === 'data_entry') receiveVerdict(m, step, waiting, event);
				break;
		}
	} catch (error) {
		// A step that fails while resuming (a template of a re-prompt, a condition over odd data) fails the run,
		// as on entry: a run never throws, so one bad step cannot stall the room's other work.
		const message = error instanceof TemplateError ? `template: ${error.message}` : String(error);
		m.effects.push({ kind: 'log', stepId: step.id, error: message });
		stop(m, 'failed', message);
	}
	return { state: m.state, effects: m.effects };
}

function stop(m: Machine, status: 'finished' | 'transferred' | 'stopped' | 'failed', reason: string | null) {
	m.state.status = status;
	m.state.waiting = null;
	m.state.reason = reason;
}

function wait(m: Machine, waiting: Waiting) {
	m.state.status = 'waiting';
	m.state.waiting = waiting;
}

function render(m: Machine, source: string, maxLength?: number): string {
	return renderTemplateSync(source, { ...m.context, variables: m.state.variables, now: m.now }, maxLength);
}

/** A text the bot says (a message, a prompt, a button): bounded by a message's own length while it renders. */
function say(m: Machine, source: string): string {
	return render(m, source, MAX_OPERATOR_TEXT);
}

/** Leaves `from` for `to`; no link ends the bot (a step with nowhere to go finishes it). */
function go(m: Machine, from: BotStep, to: string | undefined) {
	if (to === undefined) {
		m.effects.push({ kind: 'log', stepId: from.id, output: 'end of the flow' });
		stop(m, 'finished', null);
		return;
	}
	run(m, to);
}

/** Runs steps from `id` until one waits or the run ends. */
function run(m: Machine, id: string) {
	let next: string | undefined = id;
	while (next !== undefined) {
		if (--m.budget < 0) {
			m.effects.push({ kind: 'log', stepId: next, error: `more than ${STEP_BUDGET} steps for one event` });
			stop(m, 'failed', `runaway: more than ${STEP_BUDGET} steps for one event`);
			return;
		}
		const step = m.steps.get(next);
		if (!step) {
			stop(m, 'failed', `step "${next}" is not in this version`);
			return;
		}
		m.state.status = 'running';
		m.state.attempts = 0;
		try {
			next = enter(m, step);
		} catch (error) {
			const message = error instanceof TemplateError ? `template: ${error.message}` : String(error);
			m.effects.push({ kind: 'log', stepId: step.id, error: message });
			stop(m, 'failed', message);
			return;
		}
	}
}

/** Performs a step's entry; returns the step to run next, or undefined when it waits or the run ended. */
function enter(m: Machine, step: BotStep): string | undefined {
	switch (step.type) {
		case 'send_message':
			if (step.typingSeconds > 0) {
				m.effects.push({ kind: 'typing', on: true });
				const at = m.now + step.typingSeconds * 1000;
				m.effects.push({ kind: 'timer', stepId: step.id, at });
				wait(m, { for: 'timer', stepId: step.id, at, resume: 'send', cancelOnReply: false });
				return undefined;
			}
			return sendMessage(m, step, false);
		case 'data_entry':
			ask(m, step, step.prompt);
			return undefined;
		case 'decision': {
			const roots = new Set<FactRoot>();
			for (const branch of step.branches) for (const root of referencedFacts(branch.condition)) roots.add(root);
			const known = new Set<FactRoot>(['answer', 'vars']);
			const needed = [...roots].filter((root) => !known.has(root));
			if (needed.length > 0) {
				m.effects.push({ kind: 'facts', stepId: step.id, roots: needed.sort() });
				wait(m, { for: 'facts', stepId: step.id });
				return undefined;
			}
			return choose(m, step, {});
		}
		case 'delay': {
			const at = m.now + step.seconds * 1000;
			m.effects.push(
				{ kind: 'timer', stepId: step.id, at },
				{ kind: 'log', stepId: step.id, output: { until: new Date(at).toISOString() } },
			);
			wait(m, { for: 'timer', stepId: step.id, at, resume: 'next', cancelOnReply: step.cancelOnReply });
			return undefined;
		}
		case 'transfer':
			if (step.message) m.effects.push({ kind: 'message', text: say(m, step.message) });
			m.effects.push({ kind: 'transfer' }, { kind: 'log', stepId: step.id, output: 'transferred to a person' });
			stop(m, 'transferred', null);
			return undefined;
		case 'end':
			if (step.message) m.effects.push({ kind: 'message', text: say(m, step.message) });
			m.effects.push({ kind: 'log', stepId: step.id, output: 'ended' });
			stop(m, 'finished', null);
			return undefined;
		default: {
			m.effects.push({ kind: 'action', step: renderAction(m, step) });
			wait(m, { for: 'result', stepId: step.id });
			return undefined;
		}
	}
}

function sendMessage(m: Machine, step: Extract<BotStep, { type: 'send_message' }>, continueAfter = true) {
	const media = step.media?.map((item) => ({
		...item,
		url: render(m, item.url),
		...(item.name === undefined ? {} : { name: render(m, item.name) }),
	}));
	const buttons = step.buttons?.map((item) => say(m, quickReply(item).label));
	m.effects.push({
		kind: 'message',
		text: say(m, step.text),
		...(media ? { media } : {}),
		...(buttons ? { buttons } : {}),
	});
	m.effects.push({ kind: 'log', stepId: step.id, output: 'sent' });
	// Buttons the visitor can see (a label may render empty): the bot waits for the choice, as a question does.
	if (buttons?.some((label) => label.trim() !== '')) {
		wait(m, { for: 'choice', stepId: step.id });
		return undefined;
	}
	if (!continueAfter) return step.next ?? finish(m, step);
	// Resumed from its typing pause: carry on from here.
	m.state.status = 'running';
	go(m, step, step.next);
	return undefined;
}

function finish(m: Machine, step: BotStep): undefined {
	m.effects.push({ kind: 'log', stepId: step.id, output: 'end of the flow' });
	stop(m, 'finished', null);
	return undefined;
}

function ask(m: Machine, step: Extract<BotStep, { type: 'data_entry' }>, prompt: string) {
	const buttons =
		step.input === 'buttons'
			? step.choices?.map((c) => say(m, c.label))
			: step.input === 'rating'
				? ['1', '2', '3', '4', '5']
				: undefined;
	m.effects.push({ kind: 'message', text: say(m, prompt), ...(buttons ? { buttons } : {}), ask: step.input });
	wait(m, { for: 'answer', stepId: step.id });
}

/** Why an answer is refused by the step's input type and validations; null when it is taken. */
function refusal(m: Machine, step: Extract<BotStep, { type: 'data_entry' }>, text: string): string | null {
	const v = step.validation;
	const value = text.trim();
	if (value === '') return v?.required === false ? null : 'an answer is required';
	const typed = typedFormat(step.input);
	for (const format of [typed, v?.format]) {
		if (format && !checkAnswer(format, value).ok) return `not a valid ${format}`;
	}
	if (step.input === 'rating' && !/^[1-5]$/.test(value)) return 'a rating from 1 to 5';
	if (step.input === 'buttons' && !step.choices?.some((c) => sameAnswer(render(m, c.label), value))) {
		return 'one of the choices';
	}
	if (v?.minLength !== undefined && value.length < v.minLength) return `at least ${v.minLength} characters`;
	if (v?.maxLength !== undefined && value.length > v.maxLength) return `at most ${v.maxLength} characters`;
	if (v?.min !== undefined || v?.max !== undefined) {
		const n = Number(value.replace(',', '.'));
		if (!Number.isFinite(n) || (v.min !== undefined && n < v.min) || (v.max !== undefined && n > v.max)) {
			return `a number from ${v.min ?? '…'} to ${v.max ?? '…'}`;
		}
	}
	if (v?.pattern !== undefined && !new RegExp(v.pattern, 'u').test(value.slice(0, MAX_MATCHED_TEXT)))
		return 'the expected pattern';
	if (v?.condition && !evaluate(v.condition, { answer: value, vars: m.state.variables }))
		return 'the custom validation';
	return null;
}

/** The format an input type implies (an e-mail input is checked as an e-mail), if any. */
function typedFormat(input: Extract<BotStep, { type: 'data_entry' }>['input']): AnswerFormat | undefined {
	return input === 'email' || input === 'phone' || input === 'number' || input === 'date' || input === 'datetime'
		? input
		: undefined;
}

function receiveAnswer(
	m: Machine,
	step: Extract<BotStep, { type: 'data_entry' }>,
	event: Extract<BotEvent, { type: 'answer' | 'file' }>,
) {
	let value: unknown;
	let problem: string | null;
	if (step.input === 'file') {
		problem = event.type === 'file' ? null : 'a file';
		value = event.type === 'file' ? { ref: event.ref, name: event.name } : null;
	} else if (event.type === 'file') {
		problem = 'a typed answer';
	} else {
		problem = refusal(m, step, event.text);
		const text = event.text.trim();
		const format = step.validation?.format ?? typedFormat(step.input);
		const checked = format && text !== '' ? checkAnswer(format, text) : null;
		value = checked?.ok ? checked.value : step.input === 'rating' ? Number(text) : text;
	}
	m.effects.push({
		kind: 'log',
		stepId: step.id,
		input: event.type === 'file' ? event.name : event.text,
		...(problem ? { error: problem } : {}),
	});
	if (problem) return reject(m, step);
	const remote = step.validation?.integration;
	if (remote) {
		// The answer passed the local checks; an outside system decides now (an order number that exists): its
		// call sees the answer as `answer`, and a 2xx accepts it.
		const variables = { ...m.state.variables, answer: value };
		const request = renderTemplates(
			{ ...remote, id: step.id, type: 'integration' } as Extract<BotStep, { type: 'integration' }>,
			(source, maxLength) => renderTemplateSync(source, { ...m.context, variables, now: m.now }, maxLength),
		);
		m.effects.push({ kind: 'action', step: request });
		wait(m, { for: 'validation', stepId: step.id, value });
		return;
	}
	accept(m, step, value);
}

/** An answer refused: asked again, or, out of retries, off to `onRetriesExhausted` (the end otherwise). */
function reject(m: Machine, step: Extract<BotStep, { type: 'data_entry' }>) {
	const attempts = m.state.attempts;
	if (attempts >= step.retries) {
		m.state.waiting = null;
		if (step.onRetriesExhausted) run(m, step.onRetriesExhausted);
		else stop(m, 'finished', `no valid answer to "${step.id}"`);
		return;
	}
	ask(m, step, step.validation?.message ?? step.prompt);
	m.state.attempts = attempts + 1;
}

/** The outside system's verdict on an answer the local checks took. */
function receiveVerdict(
	m: Machine,
	step: Extract<BotStep, { type: 'data_entry' }>,
	waiting: Extract<Waiting, { for: 'validation' }>,
	event: Extract<BotEvent, { type: 'result' }>,
) {
	m.effects.push({
		kind: 'log',
		stepId: step.id,
		output: event.ok ? 'accepted by the validation call' : undefined,
		...(event.ok ? {} : { error: `refused by the validation call: ${event.error ?? 'failed'}` }),
	});
	if (!event.ok) return reject(m, step);
	Object.assign(m.state.variables, mappedValues(step.validation?.integration?.response, event.data));
	accept(m, step, waiting.value);
}

/** A valid answer: kept, then on to the next step (or the rating's reason). */
function accept(m: Machine, step: Extract<BotStep, { type: 'data_entry' }>, value: unknown) {
	m.state.variables[step.variable] = value;
	m.state.variables.answer = value;
	m.state.waiting = null;
	if (step.input === 'rating' && step.askReason) {
		m.effects.push({ kind: 'message', text: say(m, step.reasonPrompt ?? 'Could you tell us why?') });
		wait(m, { for: 'reason', stepId: step.id });
		return;
	}
	const chosen =
		step.input === 'buttons' ? step.choices?.find((c) => sameAnswer(render(m, c.label), String(value))) : undefined;
	// A choice is kept as its value, else as its label as written ("pro" typed is the choice "Pro").
	if (chosen) {
		const kept = render(m, chosen.value ?? chosen.label);
		m.state.variables[step.variable] = kept;
		m.state.variables.answer = kept;
	}
	go(m, step, chosen?.next ?? step.next);
}

/** A typed answer is a button's when it is its label, case and accents aside ("suporte tecnico" is "Suporte técnico"). */
function sameAnswer(label: string, typed: string): boolean {
	return foldText(label) === foldText(typed);
}

/**
 * The visitor's answer to a message's buttons: a button (clicked, or its label typed) leads to its own `next`,
 * else to the step's. Text that matches no button is not asked again (a message has no validation or retries):
 * it is the visitor's answer all the same, and goes to the step's `next`, where a Decision may read it.
 */
function receiveChoice(
	m: Machine,
	step: Extract<BotStep, { type: 'send_message' }>,
	event: Extract<BotEvent, { type: 'answer' | 'file' }>,
) {
	const buttons = (step.buttons ?? []).map((item) => ({
		...quickReply(item),
		label: render(m, quickReply(item).label),
	}));
	const typed = event.type === 'answer' ? event.text.trim() : null;
	const index = typed === null ? -1 : buttons.findIndex((b) => sameAnswer(b.label, typed));
	const chosen = buttons[index];
	// A choice is kept as its label as written ("sales" typed is the button "Sales"), as a Data Entry's is.
	m.state.variables.answer = chosen?.label ?? (event.type === 'file' ? { ref: event.ref, name: event.name } : typed);
	m.effects.push({
		kind: 'log',
		stepId: step.id,
		input: event.type === 'file' ? event.name : event.text,
		output: chosen ? { button: index } : 'no button: next',
	});
	m.state.waiting = null;
	go(m, step, chosen?.next ?? step.next);
}

function choose(m: Machine, step: Extract<BotStep, { type: 'decision' }>, loaded: Facts): string {
	const facts: Facts = { ...loaded, answer: m.state.variables.answer, vars: m.state.variables };
	const index = step.branches.findIndex((branch) => evaluate(branch.condition, facts));
	m.effects.push({ kind: 'log', stepId: step.id, output: index < 0 ? 'default' : { branch: index } });
	return index < 0 ? step.default : (step.branches[index]?.next as string);
}

function decide(m: Machine, step: Extract<BotStep, { type: 'decision' }>, facts: Facts) {
	m.state.waiting = null;
	run(m, choose(m, step, facts));
}

/** The step with every template rendered (`renderTemplates`), for the runner to perform. */
function renderAction(m: Machine, step: ActionStep): ActionStep {
	return renderTemplates(step, (source, maxLength) => render(m, source, maxLength));
}

function receiveResult(m: Machine, step: BotStep, event: Extract<BotEvent, { type: 'result' }>) {
	m.state.waiting = null;
	m.effects.push({
		kind: 'log',
		stepId: step.id,
		output: event.ok ? (event.data ?? 'done') : undefined,
		...(event.ok ? {} : { error: event.error ?? 'failed' }),
	});
	if (step.type === 'update_deal' && event.noDeal) {
		if (step.onNoDeal) run(m, step.onNoDeal);
		else go(m, step, step.next);
		return;
	}
	if (!event.ok) {
		const onError = 'onError' in step ? step.onError : undefined;
		if (onError) run(m, onError);
		else stop(m, 'failed', `${step.id}: ${event.error ?? 'failed'}`);
		return;
	}
	if (step.type === 'integration') Object.assign(m.state.variables, mappedValues(step.response, event.data));
	if (step.type === 'create_deal' && event.data && typeof event.data === 'object' && 'id' in event.data) {
		m.state.variables.deal_id = (event.data as { id: unknown }).id;
	}
	go(m, step, 'next' in step ? step.next : undefined);
}
