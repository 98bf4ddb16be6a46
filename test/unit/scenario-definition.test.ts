import { describe, expect, it } from 'vitest';
import { scenarioDefinitionSchema, scenarioProblems } from '../../src/engines/scenario-definition';
import { orderScenario } from './scenario-fixtures';

const problems = (definition: unknown) => scenarioProblems(definition).map((p) => `${p.path.join('.')}: ${p.message}`);
const withStep = (i: number, changes: Record<string, unknown>) => ({
	...orderScenario,
	steps: orderScenario.steps.map((step, j) => (j === i ? { ...step, ...changes } : step)),
});

describe('scenario definitions', () => {
	it('accepts the order-to-conversation scenario, and a follow-up with the other actions', () => {
		expect(problems(orderScenario)).toEqual([]);
		const types = new Set(scenarioDefinitionSchema.parse(orderScenario).steps.map((s) => s.type));
		expect([...types].sort()).toEqual(
			[
				'apply_tag',
				'condition',
				'create_contact',
				'create_conversation',
				'create_deal',
				'end',
				'find_contact',
				'http_request',
				'loop',
				'send_message',
				'set_variables',
			].sort(),
		);
		const followUp = {
			start: 'find',
			steps: [
				{
					id: 'find',
					type: 'find_conversation',
					contact: '{{ contact_id }}',
					channel: 'widget',
					variable: 'conversation',
					next: 'update',
					onNotFound: 'done',
				},
				{
					id: 'update',
					type: 'update_contact',
					contact: '{{ contact_id }}',
					custom_fields: { plan: '{{ plan }}' },
					next: 'won',
				},
				{
					id: 'won',
					type: 'update_deal',
					contact: '{{ contact_id }}',
					funnels: ['Orders'],
					stage: 'Won',
					next: 'done',
					onNoDeal: 'done',
				},
				{ id: 'done', type: 'end' },
			],
		};
		expect(problems(followUp)).toEqual([]);
	});

	it('points each problem at its step and field', () => {
		const cases: [unknown, string][] = [
			[withStep(0, { next: 'nowhere' }), 'steps.0.next: no step "nowhere"'],
			[withStep(3, { text: 'Hi {% if %}' }), 'steps.3.text: not a valid template'],
			[withStep(5, { body: '{"order": "{{ order.id }}"}' }), 'steps.5.body: in a JSON body'],
			[withStep(5, { url: undefined }), 'steps.5.url: required (or a preset)'],
			[withStep(6, { items: 'order.items' }), 'steps.6.items: must be a variable path'],
			[withStep(6, { max: 5000 }), 'steps.6.max'],
			[
				withStep(8, { branches: [{ condition: { fact: 'vars.x', operator: 'in', value: 1 }, next: 'done' }] }),
				'steps.8.branches.0.condition',
			],
			[withStep(1, { name: undefined, email: undefined }), 'steps.1.email: give at least one of name, email, phone'],
			[withStep(9, { values: {} }), 'steps.9.values: give at least one variable'],
			[withStep(2, { channel: 'API!' }), 'steps.2.channel'],
			[withStep(0, { by: 'nickname' }), 'steps.0.by'],
			[withStep(4, { nxet: 'erp' }), 'steps.4'],
		];
		for (const [definition, expected] of cases) expect(problems(definition).join('\n'), expected).toContain(expected);
		const dealless = {
			...orderScenario,
			steps: [...orderScenario.steps.slice(0, 10), { id: 'done', type: 'update_deal', stage: 'Won' }],
		};
		expect(problems(dealless).join('\n')).toContain('steps.10.contact: give the contact whose deal it is');
	});

	it('repeats only through a Loop: a cycle elsewhere, or a loop body linking back, is refused', () => {
		const cycle = withStep(9, { next: 'vip' });
		expect(problems(cycle)).toHaveLength(1);
		expect(problems(cycle)[0]).toMatch(/^steps\.8: the steps (vip → mark|mark → vip) form a cycle/);
		const backToLoop = withStep(7, { next: 'each' });
		expect(problems(backToLoop).join('\n')).toMatch(/form a cycle: a scenario repeats only through a Loop step/);
		const orphan = { ...orderScenario, steps: [...orderScenario.steps, { id: 'orphan', type: 'end' }] };
		expect(problems(orphan)).toEqual(['steps.12: "orphan" is never reached from "find"']);
	});
});
