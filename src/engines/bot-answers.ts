/**
 * A bot waiting for the visitor: a Data Entry's answer (checked by its input type and validations, maybe by an
 * outside call, asked again or given up on) and a choice among a message's buttons.
 */
import { type BotStep, quickReply } from './bot-definition';
import { type BotEvent, type Machine, render, say, stop, type Waiting, wait } from './bot-run';
import { evaluate, MAX_MATCHED_TEXT, mappedValues } from './conditions';
import { foldText } from './keywords';
import { renderTemplates } from './step-graph';
import { renderTemplateSync } from './templates';
import { type AnswerFormat, checkAnswer } from './values';

export function ask(m: Machine, step: Extract<BotStep, { type: 'data_entry' }>, prompt: string) {
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

export function receiveAnswer(
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
		if (step.onRetriesExhausted) m.run(step.onRetriesExhausted);
		else stop(m, 'finished', `no valid answer to "${step.id}"`);
		return;
	}
	ask(m, step, step.validation?.message ?? step.prompt);
	m.state.attempts = attempts + 1;
}

/** The outside system's verdict on an answer the local checks took. */
export function receiveVerdict(
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
	m.go(step, chosen?.next ?? step.next);
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
export function receiveChoice(
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
	m.go(step, chosen?.next ?? step.next);
}
