/**
 * The rule forms' state and the API's JSON, both ways. A condition is edited as a tree of groups (match all
 * or any, optionally negated) over rows; each node keeps a key so the list stays stable while rows move. The
 * JSON sent is the kernel's shape: `{ all: [...] }`, `{ any: [...] }`, `{ not: ... }` over leaves. Nothing is
 * dropped on the way out (an empty nested group is sent as it is), so the paths of the API's 422 problems
 * (`condition.all.1.any.0.value`) name the row the form shows at that place.
 */
import type { Schemas } from '../../api/client';

export type Operator = Schemas['ConditionLeaf']['operator'];
export type Leaf = Schemas['ConditionLeaf'];
export type Condition = Schemas['Condition'];
export type RuleAction = Schemas['RuleAction'];
export type RuleTrigger = Schemas['RuleTrigger'];
export type TriggerKind = RuleTrigger['kind'];
export type ActionType = RuleAction['type'];

export interface LeafNode {
	kind: 'leaf';
	key: number;
	fact: string;
	operator: Operator;
	value?: Leaf['value'];
}

export interface GroupNode {
	kind: 'group';
	key: number;
	match: 'all' | 'any';
	negate: boolean;
	items: ConditionNode[];
}

export type ConditionNode = LeafNode | GroupNode;

let lastKey = 0;
/** A key for a new row, group or action: unique for the page's life. */
export const newKey = () => ++lastKey;

/** Operators that compare with nothing, and those that compare with a list. */
export const NO_VALUE: readonly Operator[] = ['any', 'is_set', 'is_empty'];
export const LIST_VALUE: readonly Operator[] = ['in', 'not_in'];

export function emptyGroup(match: 'all' | 'any' = 'all'): GroupNode {
	return { kind: 'group', key: newKey(), match, negate: false, items: [] };
}

function nodeOf(condition: Condition): ConditionNode {
	if ('all' in condition) return { ...emptyGroup('all'), items: condition.all.map(nodeOf) };
	if ('any' in condition) return { ...emptyGroup('any'), items: condition.any.map(nodeOf) };
	if ('not' in condition) {
		const inner = nodeOf(condition.not);
		return inner.kind === 'group' && !inner.negate
			? { ...inner, negate: true }
			: { ...emptyGroup('all'), negate: true, items: [inner] };
	}
	return { kind: 'leaf', key: newKey(), fact: condition.fact, operator: condition.operator, value: condition.value };
}

/** The form's top group for a rule's condition (a lone row or nothing becomes a group of all). */
export function groupOf(condition: unknown): GroupNode {
	if (condition === null || condition === undefined || typeof condition !== 'object') return emptyGroup();
	const node = nodeOf(condition as Condition);
	return node.kind === 'group' ? node : { ...emptyGroup(), items: [node] };
}

function conditionOfNode(node: ConditionNode): Condition {
	if (node.kind === 'leaf') {
		const leaf: Leaf = { fact: node.fact, operator: node.operator };
		if (!NO_VALUE.includes(node.operator)) leaf.value = node.value ?? '';
		return leaf;
	}
	const items = node.items.map(conditionOfNode);
	const group: Condition = node.match === 'all' ? { all: items } : { any: items };
	return node.negate ? { not: group } : group;
}

/** The API's condition for the form's top group: null when it holds no row (the rule always fires). */
export function conditionOf(group: GroupNode): Condition | null {
	return group.items.length === 0 && !group.negate ? null : conditionOfNode(group);
}

/**
 * The condition field of a rule's body. The API takes null ("no condition") but the generated type lost the
 * `nullable` of its `allOf`: the cast says what the document means.
 */
export function conditionField(group: GroupNode): { condition: Condition } {
	return { condition: conditionOf(group) as Condition };
}

/** The path the API names a node's problems by, below `at` (a group's items sit under `all`/`any`). */
export function itemsPath(group: GroupNode, at: string): string {
	return `${at}${group.negate ? '.not' : ''}.${group.match}`;
}

/** A trigger of `kind` with the defaults its form starts with. */
export function triggerOf(kind: TriggerKind, fields: readonly string[]): RuleTrigger {
	switch (kind) {
		case 'new_contact':
			return { kind, windowDays: 30 };
		case 'custom_field_updated':
			return { kind, field: fields[0] ?? '' };
		case 'conversation_waiting':
			return { kind, minutes: 15 };
		default:
			return { kind } as RuleTrigger;
	}
}

/** An action of `type` as its form starts. */
export function actionOf(type: ActionType): RuleAction {
	switch (type) {
		case 'send_message':
			return { type, text: '' };
		case 'start_bot':
			return { type, botId: '' };
		case 'assign':
			return { type, operatorId: '' };
		case 'apply_tag':
			return { type, tag: '', remove: false, target: 'conversation' };
		case 'update_contact':
			return { type };
		case 'create_task':
			return { type, title: '' };
		case 'save_to_crm':
			return { type };
		case 'notify':
			return { type, text: '', operatorIds: [] };
	}
}

const filled = (value: string | undefined) => value !== undefined && value.trim() !== '';

/**
 * The action as the API takes it: optional fields the form left empty are left out (an empty quick reply, a
 * custom value, a due time), so the JSON says only what the form shows.
 */
export function cleanAction(action: RuleAction): RuleAction {
	switch (action.type) {
		case 'send_message': {
			const buttons = (action.buttons ?? []).filter(filled);
			return { type: action.type, text: action.text, ...(buttons.length > 0 ? { buttons } : {}) };
		}
		case 'update_contact': {
			const fields = Object.entries(action.custom_fields ?? {}).filter(([, v]) => filled(v));
			return {
				type: action.type,
				...(filled(action.name) ? { name: action.name } : {}),
				...(filled(action.email) ? { email: action.email } : {}),
				...(filled(action.phone) ? { phone: action.phone } : {}),
				...(fields.length > 0 ? { custom_fields: Object.fromEntries(fields) } : {}),
			};
		}
		case 'create_task':
			return {
				type: action.type,
				title: action.title,
				...(filled(action.assigneeId) ? { assigneeId: action.assigneeId } : {}),
				...(action.dueInMinutes === undefined ? {} : { dueInMinutes: action.dueInMinutes }),
			};
		case 'assign':
			return action.groupId !== undefined
				? { type: action.type, groupId: action.groupId }
				: { type: action.type, operatorId: action.operatorId ?? '' };
		default:
			return action;
	}
}

/** Moves the item at `from` by `by` places (−1 up, +1 down); the same list when it cannot move. */
export function moved<T>(list: readonly T[], from: number, by: number): T[] {
	const to = from + by;
	if (to < 0 || to >= list.length) return [...list];
	const next = [...list];
	const [item] = next.splice(from, 1);
	if (item !== undefined) next.splice(to, 0, item);
	return next;
}
