import { describe, expect, it } from 'vitest';
import { scenarioDefinitionSchema } from '../../src/engines/scenario-definition';
import {
	advanceScenario,
	newScenarioRun,
	SCENARIO_STEP_BUDGET,
	type ScenarioEffect,
	type ScenarioEvent,
	type ScenarioRunState,
} from '../../src/engines/scenario-interpreter';
import { orderScenario } from './scenario-fixtures';

const T0 = Date.UTC(2026, 10, 23, 13, 0);

/** Drives a run: each call feeds one event; a result answers the key the run waits on unless told. */
function driver(definition: unknown) {
	const scenario = scenarioDefinitionSchema.parse(definition);
	let state: ScenarioRunState = newScenarioRun();
	return {
		feed(event: ScenarioEvent | (Omit<Extract<ScenarioEvent, { type: 'result' }>, 'key'> & { key?: string })) {
			const full = (
				event.type === 'result' && event.key === undefined ? { ...event, key: state.waitingKey ?? '' } : event
			) as ScenarioEvent;
			const out = advanceScenario(scenario, state, full, { timeZone: 'America/Sao_Paulo' }, T0);
			state = out.state;
			return out.effects.filter((e) => e.kind !== 'log');
		},
		get state() {
			return state;
		},
	};
}

const actions = (effects: ScenarioEffect[]) =>
	effects.flatMap((e) => (e.kind === 'action' ? [{ key: e.key, type: e.step.type }] : []));

const order = {
	customer: { name: 'Ana "A"', email: 'ana@example.com' },
	order: { id: 'A-1', total: 1200, items: [{ sku: 'TENT' }, { sku: 'STOVE' }] },
};

describe('the scenario interpreter', () => {
	it('runs the order scenario: each action handed out once under its key, loops keyed by iteration', () => {
		const run = driver(orderScenario);
		const first = run.feed({ type: 'start', variables: order });
		expect(first).toEqual([
			{
				kind: 'action',
				key: 'find',
				attempt: 0,
				step: expect.objectContaining({ type: 'find_contact', value: 'ana@example.com' }),
			},
		]);
		expect(actions(run.feed({ type: 'result', ok: true, notFound: true }))).toEqual([
			{ key: 'create', type: 'create_contact' },
		]);
		const open = run.feed({ type: 'result', ok: true, data: { id: 'ctc_1' } });
		expect(open[0]).toMatchObject({ step: { contact: 'ctc_1', message: 'Order A-1 received!' } });
		const say = run.feed({ type: 'result', ok: true, data: { id: 'conv_1' } });
		expect(say[0]).toMatchObject({
			step: { conversation: 'conv_1', text: 'Hi Ana "A", is the *delivery address* right?' },
		});
		expect(actions(run.feed({ type: 'result', ok: true }))).toEqual([{ key: 'deal', type: 'create_deal' }]);
		const erp = run.feed({ type: 'result', ok: true, data: { id: 'deal_1' } });
		expect(erp[0]).toMatchObject({ step: { body: '{"order": "A-1", "deal": "deal_1"}' } });
		const tags = run.feed({ type: 'result', ok: true, data: { id: 'ERP-9' } });
		expect(tags).toEqual([
			{
				kind: 'action',
				key: 'tag@each:0',
				attempt: 0,
				step: expect.objectContaining({ tag: 'bought-tent', targetId: 'ctc_1' }),
			},
		]);
		expect(actions(run.feed({ type: 'result', ok: true }))).toEqual([{ key: 'tag@each:1', type: 'apply_tag' }]);
		expect(run.feed({ type: 'result', ok: true })).toEqual([{ kind: 'done', status: 'succeeded', error: null }]);
		expect(run.state).toMatchObject({
			status: 'succeeded',
			variables: { contact: { id: 'ctc_1' }, erp_id: 'ERP-9', item: { sku: 'STOVE' }, item_index: 1, segment: 'vip' },
		});
	});

	it('ignores a late or repeated result, and a second start', () => {
		const run = driver(orderScenario);
		run.feed({ type: 'start', variables: order });
		expect(run.feed({ type: 'result', key: 'create', ok: true })).toEqual([]);
		expect(run.feed({ type: 'start', variables: {} })).toEqual([]);
		expect(run.state.waitingKey).toBe('find');
	});

	it('retries a failing request with a growing wait, then takes its error path', () => {
		const run = driver(orderScenario);
		run.feed({ type: 'start', variables: order });
		// Found at once, then the conversation, the message and the deal: the run is at the request.
		for (const data of [{ id: 'ctc_1' }, { id: 'conv_1' }, undefined, { id: 'deal_1' }]) {
			run.feed({ type: 'result', ok: true, ...(data ? { data } : {}) });
		}
		expect(run.state.waitingAt).toBe('erp');
		const waits = [1, 2, 3].map(() => run.feed({ type: 'result', ok: false, retryable: true, error: 'HTTP 503' }));
		expect(waits.map((w) => w.map((e) => (e.kind === 'retry' ? e.delaySeconds : e.kind)))).toEqual([[5], [10], [20]]);
		const last = run.feed({ type: 'result', ok: false, retryable: true, error: 'HTTP 503' });
		expect(last).toEqual([{ kind: 'done', status: 'failed', error: 'order A-1: HTTP 503' }]);
	});

	it('fails a loop over too long a list, or one that is no list, and catches a body failure at the loop', () => {
		const many = {
			...order,
			order: { ...order.order, items: Array.from({ length: 60 }, (_, i) => ({ sku: `S${i}` })) },
		};
		const loopOnly = (onError?: string) => ({
			start: 'each',
			steps: [
				{
					id: 'each',
					type: 'loop',
					items: 'vars.order.items',
					as: 'item',
					do: 'tag',
					max: 50,
					next: 'done',
					...(onError ? { onError } : {}),
				},
				{ id: 'tag', type: 'apply_tag', tag: '{{ item.sku }}', target: 'contact', targetId: 'ctc_1' },
				{ id: 'caught', type: 'end', outcome: 'failed', reason: 'caught: {{ error }}' },
				{ id: 'done', type: 'end' },
			],
		});
		const tooMany = driver(loopOnly());
		expect(tooMany.feed({ type: 'start', variables: many })).toEqual([
			{ kind: 'done', status: 'failed', error: 'each: vars.order.items has 60 items, more than 50' },
		]);
		const notAList = driver(loopOnly());
		notAList.feed({ type: 'start', variables: { order: { items: 'nope' } } });
		expect(notAList.state.error).toBe('each: vars.order.items is not a list');
		const caught = driver(loopOnly('caught'));
		caught.feed({ type: 'start', variables: order });
		expect(caught.feed({ type: 'result', ok: false, error: 'no such tag' })).toEqual([
			{ kind: 'done', status: 'failed', error: 'caught: no such tag' },
		]);
		expect(caught.state.loops).toEqual([]);
	});

	it('stops a run past its step budget', () => {
		const run = driver({
			start: 'each',
			steps: [
				{ id: 'each', type: 'loop', items: 'vars.items', as: 'item', do: 'count', max: 1000 },
				{ id: 'count', type: 'set_variables', values: { last: '{{ item }}' } },
			],
		});
		const effects = run.feed({ type: 'start', variables: { items: Array.from({ length: 200 }, (_, i) => i) } });
		expect(effects).toEqual([{ kind: 'done', status: 'failed', error: `more than ${SCENARIO_STEP_BUDGET} steps` }]);
		expect(run.state.variables.last).toBe('98');
	});

	it('bounds a rendered message by a message’s length and a request body by the templates’ bound, failing the step', () => {
		const scenario = (step: Record<string, unknown>) => ({ start: 's', steps: [{ id: 's', ...step }] });
		const text = 'x'.repeat(10_001);
		const say = driver(scenario({ type: 'send_message', conversation: 'conv_1', text: '{{ text }}' }));
		expect(say.feed({ type: 'start', variables: { text } })).toEqual([
			{ kind: 'done', status: 'failed', error: 's: template: the output is longer than 10000 characters' },
		]);
		const post = { type: 'http_request', method: 'POST', url: 'https://erp.example.com/', body: '{{ text }}' };
		const posted = driver(scenario(post)).feed({ type: 'start', variables: { text } });
		expect(posted).toMatchObject([{ kind: 'action', step: { body: text } }]);
		const flood = driver(scenario(post)).feed({ type: 'start', variables: { text: 'x'.repeat(100_001) } });
		expect(flood).toEqual([
			{ kind: 'done', status: 'failed', error: 's: template: the output is longer than 100000 characters' },
		]);
	});
});
