import { describe, expect, it } from 'vitest';
import { type BotDefinition, botDefinitionSchema } from '../../src/engines/bot-definition';
import {
	advance,
	type BotEvent,
	type Effect,
	newRun,
	type RunContext,
	type RunState,
	STEP_BUDGET,
} from '../../src/engines/bot-interpreter';
import { leadBot } from './bot-fixtures';

const context: RunContext = {
	contact: { id: 'ctc_1', name: 'Ana Souza', email: null, phone: null },
	conversation: { id: 'conv_1', channel: 'widget' },
	agent: null,
	timeZone: 'America/Sao_Paulo',
};
const T0 = Date.UTC(2026, 10, 23, 13, 0);

/** An event as a test writes it: an answer to a step's effect names the step the run waits on, unless told. */
type Fed = BotEvent extends infer E
	? E extends { stepId: string }
		? Omit<E, 'stepId'> & { stepId?: string }
		: E
	: never;

/** Drives a run: each call feeds one event and keeps the state and every effect. */
function driver(definition: unknown) {
	const bot: BotDefinition = botDefinitionSchema.parse(definition);
	let state: RunState = newRun();
	let now = T0;
	const all: Effect[] = [];
	return {
		feed(fed: Fed, at = now) {
			now = at;
			const event = (
				'stepId' in fed || !['timer', 'facts', 'result'].includes(fed.type)
					? fed
					: { ...fed, stepId: state.waiting?.stepId ?? '' }
			) as BotEvent;
			const out = advance(bot, state, event, context, now);
			state = out.state;
			all.push(...out.effects);
			return out.effects.filter((e) => e.kind !== 'log');
		},
		get state() {
			return state;
		},
		get log() {
			return all.filter((e): e is Extract<Effect, { kind: 'log' }> => e.kind === 'log');
		},
	};
}

const texts = (effects: Effect[]) => effects.flatMap((e) => (e.kind === 'message' ? [e.text] : []));

describe('the bot interpreter', () => {
	it('runs the lead-qualification bot end to end, asking for what it needs and rendering templates', () => {
		const run = driver(leadBot);
		// Typing first, then the greeting once the pause is over.
		expect(run.feed({ type: 'start' })).toEqual([
			{ kind: 'typing', on: true },
			{ kind: 'timer', stepId: 'hello', at: T0 + 1000 },
		]);
		// Early: the timer is set again, nothing else.
		expect(run.feed({ type: 'timer' }, T0 + 500)).toEqual([{ kind: 'timer', stepId: 'hello', at: T0 + 1000 }]);
		expect(texts(run.feed({ type: 'timer' }, T0 + 1000))).toEqual([
			'Hi! I am the *Acme* assistant.',
			'What is your name?',
		]);
		expect(texts(run.feed({ type: 'answer', text: 'Ana' }))).toEqual(['Thanks Ana! Your e-mail?']);
		// An invalid answer is re-asked with the validation's message.
		expect(texts(run.feed({ type: 'answer', text: 'ana@' }))).toEqual(['That does not look like an e-mail.']);
		expect(texts(run.feed({ type: 'answer', text: 'Ana@Example.com' }))).toEqual(['Your CPF?']);
		const buttons = run.feed({ type: 'answer', text: '529.982.247-25' });
		expect(buttons).toEqual([{ kind: 'message', text: 'Team size?', buttons: ['1-10', '11+'], ask: 'buttons' }]);
		expect(run.feed({ type: 'answer', text: '1-10' })).toEqual([
			{
				kind: 'action',
				step: { id: 'small', type: 'apply_tag', tag: 'smb', remove: false, target: 'conversation', next: 'hours' },
			},
		]);
		expect(run.feed({ type: 'result', ok: true })).toEqual([
			{ kind: 'facts', stepId: 'hours', roots: ['businessHours'] },
		]);
		const deal = run.feed({ type: 'facts', facts: { businessHours: { open: true } } });
		expect(deal).toEqual([
			{
				kind: 'action',
				step: expect.objectContaining({
					type: 'create_deal',
					funnel: 'Sales',
					stage: 'New',
					name: 'Ana (1-10)',
					value: '1.500,00',
				}),
			},
		]);
		const call = run.feed({ type: 'result', ok: true, data: { id: 'deal_1' } });
		// The same result again, late: it answers a step the run no longer waits on, and changes nothing.
		expect(run.feed({ type: 'result', stepId: 'deal', ok: true, data: { id: 'deal_2' } })).toEqual([]);
		expect(call).toEqual([
			{ kind: 'action', step: expect.objectContaining({ type: 'integration', body: '{"email": "ana@example.com"}' }) },
		]);
		expect(run.feed({ type: 'result', ok: true, data: { id: 'L-9' } })).toEqual([
			{ kind: 'action', step: expect.objectContaining({ type: 'assign', groupId: 'grp_sales' }) },
		]);
		expect(texts(run.feed({ type: 'result', ok: true }))).toEqual(['Thanks, Ana!']);
		expect(run.state).toMatchObject({
			status: 'finished',
			variables: {
				name: 'Ana',
				email: 'ana@example.com',
				cpf: '52998224725',
				size: '1-10',
				deal_id: 'deal_1',
				lead_id: 'L-9',
			},
		});
		// The step log says what happened at each step, refusals included.
		expect(run.log.filter((l) => l.error).map((l) => [l.stepId, l.error])).toEqual([
			['ask-email', 'not a valid email'],
		]);
	});

	it('takes the path for exhausted retries, the default path and an error path', () => {
		const exhausted = driver(leadBot);
		exhausted.feed({ type: 'start' });
		exhausted.feed({ type: 'timer' }, T0 + 1000);
		exhausted.feed({ type: 'answer', text: 'Ana' });
		for (const attempt of ['x', 'y']) {
			exhausted.feed({ type: 'answer', text: attempt });
			expect(exhausted.state.status, attempt).toBe('waiting');
		}
		const handoff = exhausted.feed({ type: 'answer', text: 'z' });
		expect(handoff).toEqual([{ kind: 'message', text: 'A person will take it from here.' }, { kind: 'transfer' }]);
		expect(exhausted.state.status).toBe('transferred');

		const failing = driver(leadBot);
		failing.feed({ type: 'start' }, T0);
		for (const event of [
			{ type: 'timer' },
			{ type: 'answer', text: 'Bo' },
			{ type: 'answer', text: 'bo@example.com' },
			{ type: 'answer', text: '529.982.247-25' },
			{ type: 'answer', text: '11+' },
		] as BotEvent[]) {
			failing.feed(event, T0 + 1000);
		}
		// "11+" has no link of its own: the step's next (the decision) comes straight away.
		expect(failing.state.waiting).toMatchObject({ for: 'facts', stepId: 'hours' });
		failing.feed({ type: 'facts', facts: { businessHours: { open: true } } });
		expect(texts(failing.feed({ type: 'result', ok: false, error: 'no funnel "Sales"' }))).toEqual([
			'A person will take it from here.',
		]);
	});

	it('hands a notify step to the runner with its text rendered, then goes on, or takes its error path', () => {
		const notifying = {
			start: 'tell',
			steps: [
				{ id: 'tell', type: 'notify', text: '{{ contact.name }} wants a demo', operatorIds: ['op_1'], next: 'bye' },
				{ id: 'bye', type: 'end', message: 'Someone will write soon.' },
				{ id: 'sorry', type: 'end', message: 'Please write again later.' },
			],
		};
		const run = driver(notifying);
		expect(run.feed({ type: 'start' })).toEqual([
			{
				kind: 'action',
				step: { id: 'tell', type: 'notify', text: 'Ana Souza wants a demo', operatorIds: ['op_1'], next: 'bye' },
			},
		]);
		expect(run.state.waiting).toEqual({ for: 'result', stepId: 'tell' });
		expect(texts(run.feed({ type: 'result', ok: true, data: { eventId: 'evt_1' } }))).toEqual([
			'Someone will write soon.',
		]);
		expect(run.state.status).toBe('finished');

		const [tell, ...rest] = notifying.steps;
		const refused = driver({ ...notifying, steps: [{ ...tell, onError: 'sorry' }, ...rest] });
		refused.feed({ type: 'start' });
		expect(texts(refused.feed({ type: 'result', ok: false, error: 'text: rendered empty' }))).toEqual([
			'Please write again later.',
		]);
	});

	it('waits out a delay once however often its timer fires, and a reply cancels it when asked', () => {
		const bot = {
			start: 'wait',
			steps: [
				{ id: 'wait', type: 'delay', seconds: 60, cancelOnReply: true, next: 'after' },
				{ id: 'after', type: 'send_message', text: 'Still there?', next: 'done' },
				{ id: 'done', type: 'end' },
			],
		};
		const run = driver(bot);
		expect(run.feed({ type: 'start' })).toEqual([{ kind: 'timer', stepId: 'wait', at: T0 + 60_000 }]);
		expect(run.feed({ type: 'timer' }, T0 + 30_000)).toEqual([{ kind: 'timer', stepId: 'wait', at: T0 + 60_000 }]);
		expect(texts(run.feed({ type: 'timer' }, T0 + 60_000))).toEqual(['Still there?']);
		expect(run.feed({ type: 'timer', stepId: 'wait' }, T0 + 61_000)).toEqual([]);
		expect(run.state.status).toBe('finished');

		const replied = driver(bot);
		replied.feed({ type: 'start' });
		expect(replied.feed({ type: 'answer', text: 'hello?' })).toEqual([
			{ kind: 'cancel_timer' },
			{ kind: 'message', text: 'Still there?' },
		]);
		// The reply is the run's answer, for what comes next.
		expect(replied.state.variables.answer).toBe('hello?');
		const kept = driver({ ...bot, steps: [{ ...bot.steps[0], cancelOnReply: false }, ...bot.steps.slice(1)] });
		kept.feed({ type: 'start' });
		expect(kept.feed({ type: 'answer', text: 'hello?' })).toEqual([]);
	});

	it('stops for an operator, asks a rating’s reason, and ends a runaway at the step budget', () => {
		const run = driver(leadBot);
		run.feed({ type: 'start' });
		// During the typing pause: the timer goes, and so does the indicator.
		expect(run.feed({ type: 'takeover' })).toEqual([{ kind: 'cancel_timer' }, { kind: 'typing', on: false }]);
		expect(run.state).toMatchObject({ status: 'stopped', reason: 'an operator took over' });
		expect(run.feed({ type: 'timer', stepId: 'hello' }, T0 + 1000)).toEqual([]);

		const rating = driver({
			start: 'rate',
			steps: [
				{
					id: 'rate',
					type: 'data_entry',
					prompt: 'How did we do?',
					input: 'rating',
					variable: 'score',
					askReason: true,
					next: 'bye',
				},
				{ id: 'bye', type: 'end', message: 'Thanks for the {{ score }}!' },
			],
		});
		expect(rating.feed({ type: 'start' })).toEqual([
			{ kind: 'message', text: 'How did we do?', buttons: ['1', '2', '3', '4', '5'], ask: 'rating' },
		]);
		expect(texts(rating.feed({ type: 'answer', text: '4' }))).toEqual(['Could you tell us why?']);
		expect(texts(rating.feed({ type: 'answer', text: 'Quick answers' }))).toEqual(['Thanks for the 4!']);
		expect(rating.state.variables).toMatchObject({ score: 4, score_reason: 'Quick answers' });

		// A loop that never waits (definitions refuse it; the interpreter still guards against it).
		const spin = driver({
			start: 'a',
			steps: [
				{
					id: 'a',
					type: 'decision',
					branches: [{ condition: { fact: 'answer', operator: 'any' }, next: 'b' }],
					default: 'b',
				},
				{
					id: 'b',
					type: 'decision',
					branches: [{ condition: { fact: 'answer', operator: 'any' }, next: 'a' }],
					default: 'a',
				},
			],
		});
		spin.feed({ type: 'start' });
		expect(spin.state).toMatchObject({ status: 'failed' });
		expect(spin.state.reason).toContain(`more than ${STEP_BUDGET} steps`);
	});

	it('takes the no-deal path of a deal update and keeps variables from an integration’s answer', () => {
		const run = driver({
			start: 'lookup',
			steps: [
				{
					id: 'lookup',
					type: 'integration',
					method: 'GET',
					url: 'https://api.example.com/orders/{{ vars.order }}',
					response: { status: 'order.status', first: 'items.0.sku', method: 'order.constructor' },
					next: 'move',
					onError: 'sorry',
				},
				{ id: 'move', type: 'update_deal', funnels: ['Sales'], stage: 'Won', next: 'done', onNoDeal: 'none' },
				{ id: 'none', type: 'end', message: 'No deal; order {{ status }}, first {{ first }}.' },
				{ id: 'sorry', type: 'end' },
				{ id: 'done', type: 'end' },
			],
		});
		run.feed({ type: 'start' });
		run.feed({ type: 'result', ok: true, data: { order: { status: 'shipped' }, items: [{ sku: 'TENT-2' }] } });
		expect(texts(run.feed({ type: 'result', ok: true, noDeal: true }))).toEqual([
			'No deal; order shipped, first TENT-2.',
		]);
		// A path to an inherited property reads nothing (data, never methods).
		expect(run.state.variables.method).toBeUndefined();
	});

	it('asks an outside system to validate an answer: a 2xx accepts it, anything else re-prompts', () => {
		const run = driver({
			start: 'order',
			steps: [
				{
					id: 'order',
					type: 'data_entry',
					prompt: 'Your order number?',
					input: 'text',
					variable: 'order',
					validation: {
						pattern: '^[A-Z]-\\d+$',
						message: 'No such order. Your order number?',
						integration: {
							method: 'GET',
							url: 'https://shop.example.com/orders/{{ answer }}',
							response: { order_status: 'status' },
						},
					},
					next: 'done',
				},
				{ id: 'done', type: 'end', message: 'Order {{ order }} is {{ order_status }}.' },
			],
		});
		run.feed({ type: 'start' });
		// The local checks refuse first, without a call.
		expect(texts(run.feed({ type: 'answer', text: 'nope' }))).toEqual(['No such order. Your order number?']);
		const call = run.feed({ type: 'answer', text: 'A-404' });
		expect(call).toEqual([
			{
				kind: 'action',
				step: {
					id: 'order',
					type: 'integration',
					method: 'GET',
					url: 'https://shop.example.com/orders/A-404',
					response: { order_status: 'status' },
				},
			},
		]);
		expect(run.state.variables.order).toBeUndefined();
		expect(texts(run.feed({ type: 'result', ok: false, error: 'the answer was HTTP 404' }))).toEqual([
			'No such order. Your order number?',
		]);
		run.feed({ type: 'answer', text: 'A-7' });
		expect(texts(run.feed({ type: 'result', ok: true, data: { status: 'shipped' } }))).toEqual([
			'Order A-7 is shipped.',
		]);
		expect(run.state).toMatchObject({ status: 'finished', variables: { order: 'A-7', order_status: 'shipped' } });
	});
});

describe('a Send Message with quick-reply buttons', () => {
	const menu = {
		start: 'menu',
		steps: [
			{
				id: 'menu',
				type: 'send_message',
				text: 'How can we help, {{ contact.name }}?',
				buttons: [{ label: 'Sales', next: 'sales' }, { label: 'Suporte técnico', next: 'support' }, 'Other'],
				next: 'other',
			},
			{ id: 'sales', type: 'end', message: 'Sales it is.' },
			{ id: 'support', type: 'end', message: 'Support it is.' },
			{ id: 'other', type: 'end', message: 'Tell us more: {{ answer }}' },
		],
	};

	it('waits for the visitor’s choice with its buttons shown, then takes that button’s link', () => {
		const run = driver(menu);
		expect(run.feed({ type: 'start' })).toEqual([
			{ kind: 'message', text: 'How can we help, Ana Souza?', buttons: ['Sales', 'Suporte técnico', 'Other'] },
		]);
		expect(run.state).toMatchObject({ status: 'waiting', waiting: { for: 'choice', stepId: 'menu' } });
		expect(texts(run.feed({ type: 'answer', text: 'Sales' }))).toEqual(['Sales it is.']);
		expect(run.state.status).toBe('finished');
		expect(run.log.find((e) => e.stepId === 'menu' && e.input !== undefined)).toMatchObject({
			input: 'Sales',
			output: { button: 0 },
		});
	});

	it('counts a typed label as the choice, whatever its case and accents', () => {
		for (const typed of ['  suporte TECNICO ', 'Suporte Técnico']) {
			const run = driver(menu);
			run.feed({ type: 'start' });
			expect(texts(run.feed({ type: 'answer', text: typed })), typed).toEqual(['Support it is.']);
		}
	});

	it('takes the step’s next for a button without a link of its own, and for text that matches no button', () => {
		const other = driver(menu);
		other.feed({ type: 'start' });
		expect(texts(other.feed({ type: 'answer', text: 'other' }))).toEqual(['Tell us more: Other']);
		const free = driver(menu);
		free.feed({ type: 'start' });
		expect(texts(free.feed({ type: 'answer', text: 'I want a refund' }))).toEqual(['Tell us more: I want a refund']);
		expect(free.log.find((e) => e.stepId === 'menu' && e.input !== undefined)).toMatchObject({
			input: 'I want a refund',
			output: 'no button: next',
		});
	});

	it('waits with old label-only buttons too, then goes to next; a step with no next ends there', () => {
		const old = driver({
			start: 'ask',
			steps: [
				{ id: 'ask', type: 'send_message', text: 'Ready?', buttons: ['Yes', 'No'], typingSeconds: 1, next: 'go' },
				{ id: 'go', type: 'end', message: 'Off we go ({{ answer }}).' },
			],
		});
		old.feed({ type: 'start' });
		expect(texts(old.feed({ type: 'timer' }, T0 + 1000))).toEqual(['Ready?']);
		expect(old.state.waiting).toEqual({ for: 'choice', stepId: 'ask' });
		expect(texts(old.feed({ type: 'answer', text: 'no' }))).toEqual(['Off we go (No).']);
		const last = driver({ start: 'ask', steps: [{ id: 'ask', type: 'send_message', text: 'Bye?', buttons: ['Bye'] }] });
		last.feed({ type: 'start' });
		expect(last.state.status).toBe('waiting');
		last.feed({ type: 'answer', text: 'Bye' });
		expect(last.state.status).toBe('finished');
	});
});
