/**
 * Auto-assignment as pure functions over a snapshot of the team (who is there, their presence, groups,
 * capacities and loads), the contact's last operator, the round-robin cursor and whether the workspace is
 * within business hours. Two steps, kept apart as the best implementations keep them: `candidates` says who
 * may take the conversation (and why each other operator may not), `choose` picks one of them by the
 * strategy. Nobody eligible means the conversation waits in the workspace's queue.
 *
 * The workspace's Durable Object holds the snapshot and calls these one decision at a time, so two
 * conversations arriving together never land out of turn; D1 stays the record of who is assigned.
 */
import type { Condition, Facts } from './conditions';
import { evaluate } from './conditions';

export const ASSIGNMENT_STRATEGIES = ['round_robin', 'load_balanced', 'last_agent', 'group_based'] as const;
export type AssignmentStrategy = (typeof ASSIGNMENT_STRATEGIES)[number];

export type Availability = 'online' | 'away' | 'busy' | 'offline';

export interface OperatorSnapshot {
	id: string;
	/** A disabled operator takes nothing. */
	enabled: boolean;
	status: Availability;
	groupIds: readonly string[];
	/** The most open conversations it takes; null for no limit. */
	capacity: number | null;
	/** Its open conversations now. */
	load: number;
}

export interface AssignmentPolicy {
	strategy: AssignmentStrategy;
	/** What `last_agent` does when that operator cannot take it (round robin when left out). */
	fallback?: Exclude<AssignmentStrategy, 'last_agent'>;
	/** Only operators of this group (`group_based` needs one). */
	groupId?: string | null;
	/** Only operators whose status is `online`. */
	onlyOnline: boolean;
	/** Without `onlyOnline`: leave out `busy` and `offline` operators (`away` ones may still take work). */
	respectStatus: boolean;
	/** Outside business hours nobody is assigned: the conversation waits for the team. */
	considerBusinessHours: boolean;
}

export interface AssignmentSnapshot {
	operators: readonly OperatorSnapshot[];
	/** The operator round robin gave the last conversation to; null before the first. */
	cursor: string | null;
	/** The operator who last served the contact; null when none did. */
	lastAgentId: string | null;
	withinBusinessHours: boolean;
}

export type Exclusion =
	| 'disabled'
	| 'not online'
	| 'busy'
	| 'offline'
	| 'not in the group'
	| 'at capacity'
	| 'outside business hours';

/** Why the operator may not take the conversation, or null when it may. */
function exclusion(policy: AssignmentPolicy, snapshot: AssignmentSnapshot, op: OperatorSnapshot): Exclusion | null {
	if (!op.enabled) return 'disabled';
	if (policy.considerBusinessHours && !snapshot.withinBusinessHours) return 'outside business hours';
	if (policy.onlyOnline && op.status !== 'online') return 'not online';
	if (policy.respectStatus && (op.status === 'busy' || op.status === 'offline')) return op.status;
	if (op.status === 'offline') return 'offline';
	const group = policy.groupId ?? null;
	if (group !== null && !op.groupIds.includes(group)) return 'not in the group';
	if (op.capacity !== null && op.load >= op.capacity) return 'at capacity';
	return null;
}

/** Who may take the conversation, in id order, and why each other operator may not. */
export function candidates(policy: AssignmentPolicy, snapshot: AssignmentSnapshot) {
	const eligible: OperatorSnapshot[] = [];
	const excluded: Array<{ id: string; reason: Exclusion }> = [];
	for (const op of [...snapshot.operators].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
		const reason = exclusion(policy, snapshot, op);
		if (reason === null) eligible.push(op);
		else excluded.push({ id: op.id, reason });
	}
	return { eligible, excluded };
}

export interface Decision {
	/** The operator chosen; null when nobody may take it (it waits in the queue). */
	operatorId: string | null;
	/** How it was chosen, for the assignment log. */
	reason: string;
	/** The round-robin cursor after this decision. */
	cursor: string | null;
}

/** The first of `ops` (in id order) after `cursor`, wrapping around: the next in turn. */
function nextInTurn(ops: readonly OperatorSnapshot[], cursor: string | null): OperatorSnapshot | undefined {
	return ops.find((op) => cursor === null || op.id > cursor) ?? ops[0];
}

function select(
	strategy: Exclude<AssignmentStrategy, 'last_agent'>,
	eligible: readonly OperatorSnapshot[],
	cursor: string | null,
): { op: OperatorSnapshot | undefined; reason: string } {
	if (strategy === 'load_balanced') {
		const least = Math.min(...eligible.map((op) => op.load));
		// Ties are taken in turn, so equal loads do not always fall to the same operator.
		return {
			op: nextInTurn(
				eligible.filter((op) => op.load === least),
				cursor,
			),
			reason: `fewest open conversations (${least})`,
		};
	}
	return {
		op: nextInTurn(eligible, cursor),
		reason: strategy === 'group_based' ? 'next in turn in the group' : 'next in turn',
	};
}

/** The operator the conversation goes to under `policy`, or null (and why) when nobody may take it. */
export function choose(policy: AssignmentPolicy, snapshot: AssignmentSnapshot): Decision {
	const { eligible, excluded } = candidates(policy, snapshot);
	if (eligible.length === 0) {
		const why = excluded.length === 0 ? 'no operators' : excluded.map((e) => `${e.id}: ${e.reason}`).join('; ');
		return { operatorId: null, reason: `nobody can take it (${why})`, cursor: snapshot.cursor };
	}
	if (policy.strategy === 'last_agent') {
		const last = eligible.find((op) => op.id === snapshot.lastAgentId);
		if (last)
			return { operatorId: last.id, reason: 'the operator who last served the contact', cursor: snapshot.cursor };
	}
	const strategy = policy.strategy === 'last_agent' ? (policy.fallback ?? 'round_robin') : policy.strategy;
	const { op, reason } = select(strategy, eligible, snapshot.cursor);
	const chosen = op as OperatorSnapshot;
	const fell = policy.strategy === 'last_agent' ? `the last operator cannot take it; ${reason}` : reason;
	return { operatorId: chosen.id, reason: fell, cursor: chosen.id };
}

/** An assignment rule: when its condition holds (or it has none), its policy decides. */
export interface AssignmentRule {
	id: string;
	priority: number;
	condition: Condition | null;
	policy: AssignmentPolicy;
}

/** Priority-based assignment: the highest-priority rule whose condition holds (then the first listed). */
export function matchingRule(rules: readonly AssignmentRule[], facts: Facts): AssignmentRule | undefined {
	return [...rules]
		.map((rule, index) => ({ rule, index }))
		.sort((a, b) => b.rule.priority - a.rule.priority || a.index - b.index)
		.find(({ rule }) => rule.condition === null || evaluate(rule.condition, facts))?.rule;
}
