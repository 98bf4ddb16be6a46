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

import { ask, receiveAnswer, receiveChoice, receiveVerdict } from './bot-answers';
import { type BotDefinition, type BotStep, quickReply } from './bot-definition';
import {
	type ActionStep,
	type BotEvent,
	type Effect,
	type Machine,
	type RunContext,
	type RunState,
	render,
	STEP_BUDGET,
	say,
	stop,
	wait,
} from './bot-run';
import { evaluate, type FactRoot, type Facts, mappedValues, referencedFacts } from './conditions';
import { renderTemplates } from './step-graph';
import { TemplateError } from './templates';

export {
	type ActionStep,
	BOT_RUN_STATUSES,
	type BotEvent,
	type Effect,
	newRun,
	type RunContext,
	type RunState,
	STEP_BUDGET,
} from './bot-run';

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
		go: (from, to) => go(m, from, to),
		run: (id) => run(m, id),
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
