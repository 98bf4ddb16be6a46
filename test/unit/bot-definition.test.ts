import { describe, expect, it } from 'vitest';
import { botProblems } from '../../src/engines/bot-definition';
import { leadBot } from './bot-fixtures';

const problems = (definition: unknown) => botProblems(definition).map((p) => `${p.path.join('.')}: ${p.message}`);
const withStep = (i: number, changes: Record<string, unknown>) => ({
	...leadBot,
	steps: leadBot.steps.map((step, j) => (j === i ? { ...step, ...changes } : step)),
});

describe('bot definitions', () => {
	it('accepts a thirteen-step lead-qualification bot', () => {
		expect(problems(leadBot)).toEqual([]);
	});

	it('points each problem at its step and field', () => {
		const cases: [unknown, string][] = [
			[withStep(3, { validation: { pattern: '(a+)+$' } }), 'steps.3.validation.pattern: a repeated group'],
			[withStep(3, { validation: { pattern: '[' } }), 'steps.3.validation.pattern: not a valid regular expression'],
			[withStep(1, { next: 'nowhere' }), 'steps.1.next: no step "nowhere"'],
			[withStep(0, { text: 'Hi {% if %}' }), 'steps.0.text: not a valid template'],
			[withStep(10, { seconds: 8 * 24 * 3600 }), 'steps.10.seconds: at most 604800 (7 days)'],
			[withStep(9, { operatorId: 'op_1' }), 'steps.9.operatorId: give an operatorId or a groupId'],
			[withStep(4, { choices: undefined }), 'steps.4.choices: a button selection needs its choices'],
			[
				withStep(6, { branches: [{ condition: { fact: 'answer', operator: 'in', value: 'x' }, next: 'deal' }] }),
				'steps.6.branches.0.condition',
			],
			[withStep(2, { input: 'telepathy' }), 'steps.2.input'],
			[{ ...leadBot, start: 'missing' }, 'start: no step "missing"'],
			[withStep(1, { id: 'hello' }), 'steps.1.id: "hello" is the id of another step'],
			[withStep(1, { nxet: 'ask-email' }), 'steps.1'],
			[withStep(7, { custom_fields: { type: '{{ plan' } }), 'steps.7.custom_fields.type: not a valid template'],
			[
				withStep(3, { validation: { condition: { fact: 'contact.email', operator: 'is_set' } } }),
				'steps.3.validation.condition: a custom validation reads answer and vars only',
			],
			[withStep(8, { url: undefined }), 'steps.8.url: required (or a preset)'],
			[
				withStep(8, { body: '{"email": "{{ email }}"}' }),
				'steps.8.body: in a JSON body, write each value with the json filter',
			],
			[
				withStep(3, { validation: { integration: { url: 'https://shop.example.com/{{ answer }}' } } }),
				'steps.3.validation.integration.method: required (or a preset)',
			],
			[
				withStep(8, { preset: { product: 'hubspot', operation: 'create_deal', token: 't' } }),
				'steps.8.method: a preset builds the request: leave this out',
			],
			[
				withStep(8, {
					method: undefined,
					url: undefined,
					body: undefined,
					preset: { product: 'salesforce', operation: 'create_opportunity', token: 't' },
				}),
				'steps.8.preset.baseUrl: required for Salesforce',
			],
			[
				withStep(8, {
					method: undefined,
					url: undefined,
					body: undefined,
					preset: { product: 'pipedrive', operation: 'custom', token: '{{ nope', method: 'GET', path: '/v1/x' },
				}),
				'steps.8.preset.token: not a valid template',
			],
		];
		for (const [definition, expected] of cases) {
			expect(problems(definition).join('\n'), expected).toContain(expected);
		}
	});

	it('refuses a step the start never reaches, and a loop that never waits for the visitor', () => {
		const orphan = { ...leadBot, steps: [...leadBot.steps, { id: 'orphan', type: 'end' }] };
		expect(problems(orphan)).toEqual(['steps.13: "orphan" is never reached from "hello"']);
		const spin = {
			start: 'a',
			steps: [
				{ id: 'a', type: 'apply_tag', tag: 'x', next: 'b' },
				{ id: 'b', type: 'delay', seconds: 5, next: 'a' },
			],
		};
		expect(problems(spin)[0]).toMatch(/loop .* never waits for the visitor/);
		const self = { start: 'a', steps: [{ id: 'a', type: 'send_message', text: 'again', next: 'a' }] };
		expect(problems(self)[0]).toMatch(/loop a never waits/);
		// A Data Entry beside the loop, not in it, does not make it wait.
		const beside = {
			start: 'a',
			steps: [
				{
					id: 'a',
					type: 'decision',
					branches: [{ condition: { fact: 'answer', operator: 'any' }, next: 'b' }],
					default: 'c',
				},
				{
					id: 'b',
					type: 'decision',
					branches: [{ condition: { fact: 'answer', operator: 'any' }, next: 'a' }],
					default: 'a',
				},
				{ id: 'c', type: 'data_entry', prompt: 'x', input: 'text', variable: 'x', next: 'a' },
			],
		};
		expect(problems(beside)[0]).toMatch(/loop .* never waits/);
		// A loop through a question is a re-ask: fine.
		const ask = {
			start: 'q',
			steps: [
				{ id: 'q', type: 'data_entry', prompt: 'Again?', input: 'text', variable: 'again', next: 'd' },
				{
					id: 'd',
					type: 'decision',
					branches: [{ condition: { fact: 'vars.again', operator: 'eq', value: 'yes' }, next: 'q' }],
					default: 'bye',
				},
				{ id: 'bye', type: 'end' },
			],
		};
		expect(problems(ask)).toEqual([]);
	});
});

describe('quick-reply buttons with links', () => {
	const menu = (buttons: unknown[], extra: Record<string, unknown> = {}) => ({
		start: 'menu',
		steps: [
			{ id: 'menu', type: 'send_message', text: 'Pick one', buttons, next: 'other', ...extra },
			{ id: 'sales', type: 'end' },
			{ id: 'other', type: 'end' },
		],
	});

	it('accepts buttons with their own next beside label-only ones', () => {
		expect(problems(menu([{ label: 'Sales', next: 'sales' }, 'Other', { label: 'More' }]))).toEqual([]);
	});

	it('checks a button’s link and counts it for reachability', () => {
		expect(problems(menu([{ label: 'Sales', next: 'nowhere' }]))).toEqual([
			'steps.0.buttons.0.next: no step "nowhere"',
		]);
		expect(problems(menu(['Sales', 'Other']))).toEqual(['steps.1: "sales" is never reached from "menu"']);
		expect(problems(menu([{ label: 'Sales', nxet: 'sales' }]))[0]).toMatch(/^steps\.0\.buttons\.0/);
	});

	it('refuses two equal labels when one has a link of its own (the choice would be ambiguous)', () => {
		expect(problems(menu([{ label: 'Sales', next: 'sales' }, 'sales']))).toEqual([
			'steps.0.buttons.1: "sales" is the label of another button',
		]);
	});

	it('lets a loop wait at a message with buttons', () => {
		const loop = {
			start: 'menu',
			steps: [
				{
					id: 'menu',
					type: 'send_message',
					text: 'Again?',
					buttons: [{ label: 'Yes', next: 'tag' }, 'No'],
					next: 'bye',
				},
				{ id: 'tag', type: 'apply_tag', tag: 'again', next: 'menu' },
				{ id: 'bye', type: 'end' },
			],
		};
		expect(problems(loop)).toEqual([]);
	});
});
