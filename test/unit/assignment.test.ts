import { describe, expect, it } from 'vitest';
import {
	type AssignmentPolicy,
	type AssignmentSnapshot,
	candidates,
	choose,
	matchingRule,
	type OperatorSnapshot,
} from '../../src/engines/assignment';

const op = (id: string, over: Partial<OperatorSnapshot> = {}): OperatorSnapshot => ({
	id,
	enabled: true,
	status: 'online',
	groupIds: [],
	capacity: null,
	load: 0,
	...over,
});

const policy = (over: Partial<AssignmentPolicy> = {}): AssignmentPolicy => ({
	strategy: 'round_robin',
	onlyOnline: true,
	respectStatus: true,
	considerBusinessHours: false,
	...over,
});

const snapshot = (operators: OperatorSnapshot[], over: Partial<AssignmentSnapshot> = {}): AssignmentSnapshot => ({
	operators,
	cursor: null,
	lastAgentId: null,
	withinBusinessHours: true,
	...over,
});

/** Assigns `n` conversations one decision at a time, as the workspace's object does; the count per operator. */
function assignMany(p: AssignmentPolicy, operators: OperatorSnapshot[], n: number) {
	let cursor: string | null = null;
	const loads = new Map(operators.map((o) => [o.id, o.load]));
	for (let i = 0; i < n; i++) {
		const current = operators.map((o) => ({ ...o, load: loads.get(o.id) ?? 0 }));
		const decision = choose(p, snapshot(current, { cursor }));
		if (decision.operatorId === null) break;
		cursor = decision.cursor;
		loads.set(decision.operatorId, (loads.get(decision.operatorId) ?? 0) + 1);
	}
	return loads;
}

describe('who may take a conversation', () => {
	it('leaves out each operator for its reason, under each option', () => {
		const team = [
			op('a'),
			op('b', { status: 'away' }),
			op('c', { status: 'busy' }),
			op('d', { status: 'offline' }),
			op('e', { enabled: false }),
			op('f', { capacity: 2, load: 2 }),
			op('g', { groupIds: ['sales'] }),
		];
		const cases: Array<[string, Partial<AssignmentPolicy>, string[]]> = [
			['only online', {}, ['a', 'g']],
			['availability respected', { onlyOnline: false }, ['a', 'b', 'g']],
			['any status but offline', { onlyOnline: false, respectStatus: false }, ['a', 'b', 'c', 'g']],
			['a group', { groupId: 'sales' }, ['g']],
		];
		for (const [name, over, expected] of cases) {
			expect(
				candidates(policy(over), snapshot(team)).eligible.map((o) => o.id),
				name,
			).toEqual(expected);
		}
		const { excluded } = candidates(policy(), snapshot(team));
		expect(Object.fromEntries(excluded.map((e) => [e.id, e.reason]))).toEqual({
			b: 'not online',
			c: 'not online',
			d: 'not online',
			e: 'disabled',
			f: 'at capacity',
		});
		const closed = choose(policy({ considerBusinessHours: true }), snapshot(team, { withinBusinessHours: false }));
		expect(closed.operatorId).toBeNull();
		expect(closed.reason).toContain('outside business hours');
	});
});

describe('choosing', () => {
	it('round robin: 1,000 conversations over 5 operators end within one of even, in turn', () => {
		const team = ['e', 'a', 'c', 'b', 'd'].map((id) => op(id));
		const loads = assignMany(policy(), team, 1000);
		expect([...loads.values()]).toEqual([200, 200, 200, 200, 200]);
		const odd = assignMany(policy(), team, 1003);
		const counts = [...odd.values()];
		expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
		let cursor: string | null = null;
		const order: string[] = [];
		for (let i = 0; i < 7; i++) {
			const d = choose(policy(), snapshot(team, { cursor }));
			order.push(d.operatorId as string);
			cursor = d.cursor;
		}
		expect(order).toEqual(['a', 'b', 'c', 'd', 'e', 'a', 'b']);
	});

	it('load balanced: the fewest open conversations, ties in turn, never over capacity', () => {
		const team = [op('a', { load: 3 }), op('b', { load: 1 }), op('c', { load: 1, capacity: 2 })];
		expect(choose(policy({ strategy: 'load_balanced' }), snapshot(team)).operatorId).toBe('b');
		expect(choose(policy({ strategy: 'load_balanced' }), snapshot(team, { cursor: 'b' })).operatorId).toBe('c');
		const loads = assignMany(policy({ strategy: 'load_balanced' }), team, 6);
		expect(Object.fromEntries(loads)).toEqual({ a: 5, b: 4, c: 2 });
		const full = assignMany(policy({ strategy: 'load_balanced' }), [op('x', { capacity: 3 })], 10);
		expect(full.get('x')).toBe(3);
	});

	it('last agent: the same operator while it can, else the fallback', () => {
		const team = [op('a', { load: 5 }), op('b'), op('c', { status: 'offline' })];
		const p = policy({ strategy: 'last_agent', fallback: 'load_balanced' });
		expect(choose(p, snapshot(team, { lastAgentId: 'a' }))).toMatchObject({
			operatorId: 'a',
			reason: 'the operator who last served the contact',
		});
		const fell = choose(p, snapshot(team, { lastAgentId: 'c' }));
		expect(fell.operatorId).toBe('b');
		expect(fell.reason).toContain('the last operator cannot take it');
		expect(choose(policy({ strategy: 'last_agent' }), snapshot(team)).operatorId).toBe('a');
	});

	it('group based: in turn within the group only', () => {
		const team = [op('a', { groupIds: ['support'] }), op('b'), op('c', { groupIds: ['support', 'sales'] })];
		const p = policy({ strategy: 'group_based', groupId: 'support' });
		expect(choose(p, snapshot(team)).operatorId).toBe('a');
		expect(choose(p, snapshot(team, { cursor: 'a' })).operatorId).toBe('c');
		expect(choose(p, snapshot(team, { cursor: 'c' })).operatorId).toBe('a');
		expect(choose(policy({ strategy: 'group_based', groupId: 'billing' }), snapshot(team)).operatorId).toBeNull();
	});

	it('priority-based: the highest-priority rule whose condition holds decides', () => {
		const vip = policy({ strategy: 'group_based', groupId: 'vip' });
		const rules = [
			{ id: 'default', priority: 0, condition: null, policy: policy() },
			{
				id: 'vip',
				priority: 10,
				condition: { fact: 'contact.tags', operator: 'contains' as const, value: 'vip' },
				policy: vip,
			},
		];
		expect(matchingRule(rules, { contact: { tags: ['vip'] } })?.id).toBe('vip');
		expect(matchingRule(rules, { contact: { tags: [] } })?.id).toBe('default');
		expect(matchingRule([], {})).toBeUndefined();
	});
});
