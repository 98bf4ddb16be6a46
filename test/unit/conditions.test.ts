import { describe, expect, it } from 'vitest';
import {
	type Condition,
	conditionProblems,
	evaluate,
	type Facts,
	referencedFacts,
	unsafePattern,
} from '../../src/engines/conditions';

const facts: Facts = {
	answer: ' Yes ',
	vars: { email: 'ana@example.com', orderTotal: '1500', cpf: '529.982.247-25', score: 7 },
	contact: {
		name: 'Ana Souza',
		email: null,
		customFields: { plan: 'pro', seats: 12, trial: false },
		conversationCount: 3,
		tags: ['vip', 'Lead'],
	},
	businessHours: { open: true },
	agents: { available: 0 },
	deal: { status: 'open', stage: 'Proposal' },
};

describe('conditions', () => {
	it('evaluates every operator, text without case or surrounding spaces, numbers as numbers', () => {
		const cases: [Condition, boolean][] = [
			[{ fact: 'answer', operator: 'eq', value: 'yes' }, true],
			[{ fact: 'answer', operator: 'neq', value: 'no' }, true],
			[{ fact: 'vars.orderTotal', operator: 'gt', value: 999.99 }, true],
			[{ fact: 'vars.orderTotal', operator: 'gte', value: '1500' }, true],
			[{ fact: 'vars.score', operator: 'lt', value: 7 }, false],
			[{ fact: 'vars.score', operator: 'lte', value: 7 }, true],
			// "10" is not less than "9" as text would have it.
			[{ fact: 'contact.customFields.seats', operator: 'gt', value: '9' }, true],
			[{ fact: 'contact.name', operator: 'contains', value: 'SOUZA' }, true],
			[{ fact: 'contact.name', operator: 'not_contains', value: 'silva' }, true],
			[{ fact: 'vars.email', operator: 'starts_with', value: 'ana@' }, true],
			[{ fact: 'vars.email', operator: 'ends_with', value: '.com' }, true],
			[{ fact: 'deal.stage', operator: 'in', value: ['New', 'proposal'] }, true],
			[{ fact: 'deal.stage', operator: 'not_in', value: ['Won', 'Lost'] }, true],
			[{ fact: 'contact.email', operator: 'is_empty' }, true],
			[{ fact: 'contact.name', operator: 'is_set' }, true],
			[{ fact: 'vars.missing', operator: 'is_set' }, false],
			[{ fact: 'vars.cpf', operator: 'matches', value: '^\\d{3}\\.\\d{3}\\.\\d{3}-\\d{2}$' }, true],
			[{ fact: 'contact.tags', operator: 'contains', value: 'lead' }, true],
			[{ fact: 'contact.tags', operator: 'in', value: ['spam', 'VIP'] }, true],
			[{ fact: 'contact.customFields.trial', operator: 'eq', value: false }, true],
			[{ fact: 'businessHours.open', operator: 'eq', value: true }, true],
			[{ fact: 'agents.available', operator: 'gt', value: 0 }, false],
			[{ fact: 'contact.conversationCount', operator: 'gte', value: 3 }, true],
			// `any` matches whatever the answer; a missing fact fails the comparisons.
			[{ fact: 'answer', operator: 'any' }, true],
			[{ fact: 'vars.missing', operator: 'eq', value: 'x' }, false],
			[{ fact: 'vars.missing', operator: 'gt', value: 1 }, false],
		];
		for (const [condition, expected] of cases)
			expect(evaluate(condition, facts), JSON.stringify(condition)).toBe(expected);
	});

	it('nests all, any and not', () => {
		const condition: Condition = {
			all: [
				{
					any: [
						{ fact: 'deal.status', operator: 'eq', value: 'won' },
						{ fact: 'contact.tags', operator: 'contains', value: 'vip' },
					],
				},
				{ not: { fact: 'agents.available', operator: 'gt', value: 0 } },
			],
		};
		expect(evaluate(condition, facts)).toBe(true);
		expect(evaluate({ not: condition }, facts)).toBe(false);
		expect(evaluate(condition, { ...facts, agents: { available: 2 } })).toBe(false);
	});

	it('names the fact roots a condition reads, so the caller loads only those', () => {
		const condition: Condition = {
			any: [{ fact: 'answer', operator: 'any' }, { not: { fact: 'businessHours.open', operator: 'eq', value: true } }],
		};
		expect([...referencedFacts(condition)].sort()).toEqual(['answer', 'businessHours']);
	});

	it('refuses a bad shape, a wrong value for its operator, and patterns that could run for ever', () => {
		const problems = (condition: unknown) =>
			conditionProblems(condition).map((p) => `${p.path.join('.')}: ${p.message}`);
		expect(problems({ fact: 'answer', operator: 'eq', value: 'x' })).toEqual([]);
		expect(problems({ fact: 'password', operator: 'eq', value: 'x' })[0]).toContain('fact');
		expect(problems({ fact: 'answer', operator: 'in', value: 'x' })[0]).toContain('value');
		expect(problems({ fact: 'answer', operator: 'eq' })[0]).toContain('value');
		expect(problems({ all: [] })).not.toEqual([]);
		let deep: unknown = { fact: 'answer', operator: 'any' };
		for (let i = 0; i < 7; i++) deep = { not: deep };
		expect(problems(deep)).toEqual([': nested deeper than 6 levels']);
		for (const pattern of [
			'(a+)+$',
			'(\\w*)*x',
			'(a|aa){2,}',
			'(x+x+)+y',
			'(.*)\\1',
			'[',
			'a'.repeat(201),
			'^(a?a)+$',
			'^\\d*\\d*\\d*\\d*\\d*$',
			'(?:a+)+',
		]) {
			expect(unsafePattern(pattern), pattern).not.toBeNull();
			expect(problems({ fact: 'answer', operator: 'matches', value: pattern })[0], pattern).toContain('value');
		}
		for (const pattern of [
			'^\\d{5}-?\\d{3}$',
			'(ab)+',
			'[a-z]+(\\.[a-z]+)?',
			'^(yes|sim|si)$',
			'^(?:\\d{3}\\.){2}\\d{3}-\\d{2}$',
			'a+?b',
		]) {
			expect(unsafePattern(pattern), pattern).toBeNull();
		}
	});
});
