/**
 * Conditions of the automation kernel: one JSON shape for a bot's Decision steps, a rule's conditions and a
 * scenario's logic. A condition is a group (`all`: AND, `any`: OR, `not`), nested, over leaves that compare a
 * fact with a value. The evaluator is pure: it reads a snapshot of facts the caller loaded, and
 * `referencedFacts` tells the caller which to load, so a condition about the visitor's answer costs no query.
 *
 * Facts are named by dotted paths under a few roots:
 * - `answer` (the visitor's last answer) and `vars.<name>` (collected input, API response data, calculated
 *   values; `integration` results are variables too);
 * - `contact.<field>` (`name`, `email`, `phone`, `customFields.<key>`, `conversationCount`, `tags`);
 * - `conversation.<field>` (`channel`, `status`, `tags`);
 * - `businessHours.open` (the workspace's schedule, now), `agents.available` (operators available now);
 * - `deal.<field>` (the contact's deal the flow is about: `status`, `stage`, `value`).
 *
 * Text comparisons ignore case and surrounding spaces ("Yes " equals "yes"); a number compares as a number
 * when both sides read as one. A list fact (tags) `contains` a value when one of its items equals it.
 */
import { z } from '@hono/zod-openapi';
import { type SchemaRule, schemaRules, when } from '../lib/schema-rules';

export const FACT_ROOTS = ['answer', 'vars', 'contact', 'conversation', 'businessHours', 'agents', 'deal'] as const;
export type FactRoot = (typeof FACT_ROOTS)[number];

export const OPERATORS = [
	'any',
	'eq',
	'neq',
	'gt',
	'gte',
	'lt',
	'lte',
	'contains',
	'not_contains',
	'starts_with',
	'ends_with',
	'in',
	'not_in',
	'is_set',
	'is_empty',
	'matches',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** The longest regular expression accepted, and the longest text one is run on (the rest is not looked at). */
const MAX_PATTERN = 200;
export const MAX_MATCHED_TEXT = 300;
/** Variable repetitions a pattern may hold in all (matching time grows as the text's length to this power). */
const MAX_VARIABLE_REPEATS = 3;
/** Nesting and size bounds of one condition. */
const MAX_DEPTH = 6;
const MAX_LEAVES = 50;

// One expression for the shape and the root, so the document's `pattern` is the whole rule.
const factPath = z
	.string()
	.min(1)
	.max(120)
	.regex(
		new RegExp(`^(?:${FACT_ROOTS.join('|')})(?:\\.[A-Za-z0-9_]+)*$`),
		`must be a dotted path from one of ${FACT_ROOTS.join(', ')}, such as contact.customFields.plan`,
	);

/** Operators that compare with a list of values, and those that need no value; the others compare with one. */
const LIST_OPERATORS: readonly Operator[] = ['in', 'not_in'];
const UNARY_OPERATORS: readonly Operator[] = ['any', 'is_set', 'is_empty'];

/** A rule's branch that holds for a leaf whose operator is one of `operators`. */
const operatorIn = (operators: readonly Operator[]): SchemaRule => ({
	required: ['operator'],
	properties: { operator: { enum: operators } },
});

const scalar = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);

/** Why a pattern is refused: too long, invalid, or open to catastrophic backtracking; null when it is fine. */
export function unsafePattern(pattern: string): string | null {
	if (pattern.length > MAX_PATTERN) return `longer than ${MAX_PATTERN} characters`;
	try {
		new RegExp(pattern, 'iu');
	} catch {
		return 'not a valid regular expression';
	}
	// JavaScript's engine backtracks and a match cannot be interrupted, so patterns that can take more than
	// polynomial time are refused, and the others get short input (MAX_MATCHED_TEXT):
	// - a backreference;
	// - a repeated group that itself holds a variable repetition or an alternation ((a+)+, (a?a)+, (a|aa){2,});
	// - more than MAX_VARIABLE_REPEATS variable repetitions in all (\d*\d*\d*\d* is polynomial of that degree).
	// A fixed count ({5}) is no variable repetition; `?` is one, unless it makes a group `(?:` or a
	// quantifier lazy. A linear-time engine would lift these limits.
	if (/\\[1-9]|\\k</.test(pattern)) return 'backreferences are not allowed';
	const stack: Array<{ repeats: boolean; alternates: boolean }> = [];
	let current = { repeats: false, alternates: false };
	let variable = 0;
	/** The quantifier starting at `i`: whether it varies, whether it may repeat more than once, its length. */
	const quantifierAt = (i: number): { variable: boolean; many: boolean; length: number } | null => {
		const c = pattern[i];
		if (c === '*' || c === '+') return { variable: true, many: true, length: 1 };
		if (c === '?') return { variable: true, many: false, length: 1 };
		if (c !== '{') return null;
		const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
		if (!m) return null;
		const max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
		return { variable: m[2] !== undefined && m[3] !== m[1], many: max > 1, length: m[0].length };
	};
	for (let i = 0; i < pattern.length; i++) {
		const c = pattern[i];
		if (c === '\\') {
			i++;
			continue;
		}
		if (c === '[') {
			let close = i + 1;
			while (close < pattern.length && pattern[close] !== ']') close += pattern[close] === '\\' ? 2 : 1;
			i = close;
			continue;
		}
		if (c === '(') {
			stack.push(current);
			current = { repeats: false, alternates: false };
			// `(?:`, `(?=`, `(?<name>`: group syntax, not a quantifier.
			if (pattern[i + 1] === '?') i++;
			continue;
		}
		if (c === ')') {
			const inner = current;
			current = stack.pop() ?? { repeats: false, alternates: false };
			const q = quantifierAt(i + 1);
			if (q?.variable) {
				// An optional group ((x+)?) is taken once at most: only a group repeated more often is at risk.
				if (q.many && (inner.repeats || inner.alternates)) {
					return 'a repeated group holding a repetition or an alternation can run for ever';
				}
				variable++;
				current.repeats = true;
				i += q.length;
				if (pattern[i + 1] === '?') i++;
			} else if (q) {
				i += q.length;
			}
			if (inner.repeats) current.repeats = true;
			continue;
		}
		if (c === '|') {
			current.alternates = true;
			continue;
		}
		const q = quantifierAt(i);
		if (q) {
			if (q.variable) {
				variable++;
				current.repeats = true;
			}
			i += q.length - 1;
			// A `?` right after a quantifier makes it lazy: no repetition of its own.
			if (pattern[i + 1] === '?') i++;
		}
	}
	if (variable > MAX_VARIABLE_REPEATS) {
		return `more than ${MAX_VARIABLE_REPEATS} variable repetitions (*, +, ?, {n,m}) make matching too slow`;
	}
	return null;
}

export const conditionLeafSchema = z
	.strictObject({
		fact: factPath.openapi({ description: 'What is compared: a dotted fact path.', example: 'answer' }),
		operator: z.enum(OPERATORS).openapi({
			description:
				'`any` matches whatever the value (the branch for any answer at all), `in` is "is any of" (value: a list), `matches` a regular expression.',
		}),
		value: z
			.union([scalar, z.array(scalar).max(100)])
			.optional()
			.openapi({ description: 'What it is compared with.' }),
	})
	.superRefine((leaf, ctx) => {
		const needsList = LIST_OPERATORS.includes(leaf.operator);
		const needsNone = UNARY_OPERATORS.includes(leaf.operator);
		if (needsList && !Array.isArray(leaf.value)) {
			ctx.addIssue({ code: 'custom', path: ['value'], message: `${leaf.operator} compares with a list` });
		} else if (!needsList && !needsNone && (leaf.value === undefined || Array.isArray(leaf.value))) {
			ctx.addIssue({ code: 'custom', path: ['value'], message: `${leaf.operator} compares with one value` });
		}
		if (leaf.operator === 'matches' && typeof leaf.value === 'string') {
			const problem = unsafePattern(leaf.value);
			if (problem) ctx.addIssue({ code: 'custom', path: ['value'], message: problem });
		} else if (leaf.operator === 'matches') {
			ctx.addIssue({ code: 'custom', path: ['value'], message: 'matches takes a regular expression' });
		}
	})
	// The refinement above is invisible to the generator: the document states what JSON Schema can of it.
	.openapi(
		'ConditionLeaf',
		schemaRules({
			description: `A fact compared with a value: a list for ${LIST_OPERATORS.join(' and ')}, a regular expression for matches (one that cannot backtrack without end), no value needed for ${UNARY_OPERATORS.join(', ')}, one value (not a list) for the others.`,
			...when(
				operatorIn(LIST_OPERATORS),
				{ required: ['value'], properties: { value: { type: 'array' } } },
				when(
					operatorIn(['matches']),
					{ required: ['value'], properties: { value: { type: 'string' } } },
					when(operatorIn(OPERATORS.filter((operator) => !UNARY_OPERATORS.includes(operator))), {
						required: ['value'],
						properties: { value: { not: { type: 'array' } } },
					}),
				),
			),
		}),
	);

export type ConditionLeaf = z.infer<typeof conditionLeafSchema>;
export type Condition = ConditionLeaf | { all: Condition[] } | { any: Condition[] } | { not: Condition };

// Named, so the OpenAPI document refers to it by name where it nests (a recursive schema has no inline form).
export const conditionSchema: z.ZodType<Condition> = z
	.lazy(() =>
		z.union([
			conditionLeafSchema,
			z.strictObject({
				all: z.array(conditionSchema).min(1).max(MAX_LEAVES).openapi({ description: 'Every one holds (AND).' }),
			}),
			z.strictObject({
				any: z.array(conditionSchema).min(1).max(MAX_LEAVES).openapi({ description: 'One at least holds (OR).' }),
			}),
			z.strictObject({ not: conditionSchema }).openapi({ description: 'The condition inside does not hold (NOT).' }),
		]),
	)
	.openapi('Condition', {
		description: `A leaf comparing a fact with a value, or a group: \`all\` (AND), \`any\` (OR), \`not\`, nested ${MAX_DEPTH} levels deep at most, with ${MAX_LEAVES} comparisons at most in all.`,
	});

/**
 * `conditionProblems`, and, for a condition that may read only some roots (a scenario's: `vars`; a custom
 * validation's: `answer` and `vars`), the roots it reads beyond them, said as `rule`.
 */
export function conditionProblemsWithin(
	condition: unknown,
	roots: readonly FactRoot[],
	rule: string,
): Array<{ path: (string | number)[]; message: string }> {
	const problems = conditionProblems(condition);
	if (problems.length > 0) return problems;
	const others = [...referencedFacts(condition as Condition)].filter((root) => !roots.includes(root));
	return others.length > 0 ? [{ path: [], message: `${rule}, not ${others.join(', ')}` }] : [];
}

/** Checks a condition's shape and bounds (depth, leaves): the problems, each with its path; empty when fine. */
export function conditionProblems(condition: unknown): Array<{ path: (string | number)[]; message: string }> {
	const parsed = conditionSchema.safeParse(condition);
	if (!parsed.success) {
		return parsed.error.issues.slice(0, 10).map((issue) => ({
			path: issue.path.filter((p): p is string | number => typeof p !== 'symbol'),
			message: issue.message,
		}));
	}
	let leaves = 0;
	let deepest = 0;
	const walk = (node: Condition, depth: number) => {
		deepest = Math.max(deepest, depth);
		if ('all' in node) for (const child of node.all) walk(child, depth + 1);
		else if ('any' in node) for (const child of node.any) walk(child, depth + 1);
		else if ('not' in node) walk(node.not, depth + 1);
		else leaves++;
	};
	walk(parsed.data, 1);
	const problems: Array<{ path: (string | number)[]; message: string }> = [];
	if (deepest > MAX_DEPTH) problems.push({ path: [], message: `nested deeper than ${MAX_DEPTH} levels` });
	if (leaves > MAX_LEAVES) problems.push({ path: [], message: `more than ${MAX_LEAVES} comparisons` });
	return problems;
}

/** The fact roots a condition reads: what the caller loads before evaluating it. */
export function referencedFacts(condition: Condition): Set<FactRoot> {
	const roots = new Set<FactRoot>();
	const walk = (node: Condition) => {
		if ('all' in node) node.all.forEach(walk);
		else if ('any' in node) node.any.forEach(walk);
		else if ('not' in node) walk(node.not);
		else roots.add(node.fact.split('.')[0] as FactRoot);
	};
	walk(condition);
	return roots;
}

/** The snapshot a condition is evaluated against: nested plain values under the fact roots. */
export type Facts = Partial<Record<FactRoot, unknown>>;

/** The value at a dotted path of the facts, or of any JSON (own properties only); undefined when absent. */
export function factValue(facts: unknown, path: string): unknown {
	let value: unknown = facts;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
		value = (value as Record<string, unknown>)[key];
	}
	return value;
}

/** A request's `response` mapping applied to its answer: each variable and the value at its path. */
export function mappedValues(mapping: Record<string, string> | undefined, data: unknown): Record<string, unknown> {
	return Object.fromEntries(Object.entries(mapping ?? {}).map(([name, path]) => [name, factValue(data, path)]));
}

/** A value as text to compare: JSON for an object (data from an integration may hold a `toString` key). */
const text = (value: unknown) =>
	(typeof value === 'object' && value !== null ? (JSON.stringify(value) ?? '') : String(value)).trim().toLowerCase();

/** A number when the value is one or reads as one ("1500", " 2.5 "); undefined otherwise. */
function asNumber(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
	if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
	return undefined;
}

function isEmpty(value: unknown): boolean {
	if (value === undefined || value === null) return true;
	if (typeof value === 'string') return value.trim() === '';
	if (Array.isArray(value)) return value.length === 0;
	return false;
}

function equal(a: unknown, b: unknown): boolean {
	if (typeof a === 'boolean' || typeof b === 'boolean') return text(a) === text(b);
	const x = asNumber(a);
	const y = asNumber(b);
	if (x !== undefined && y !== undefined) return x === y;
	if (a === null || a === undefined || b === null || b === undefined) return a == null && b == null;
	return text(a) === text(b);
}

function compare(a: unknown, b: unknown): number | undefined {
	const x = asNumber(a);
	const y = asNumber(b);
	if (x !== undefined && y !== undefined) return x - y;
	if (typeof a === 'string' && typeof b === 'string') return text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0;
	return undefined;
}

function leafHolds(leaf: ConditionLeaf, facts: Facts): boolean {
	const actual = factValue(facts, leaf.fact);
	const expected = leaf.value;
	const list = Array.isArray(expected) ? expected : [expected];
	switch (leaf.operator) {
		case 'any':
			return true;
		case 'is_set':
			return !isEmpty(actual);
		case 'is_empty':
			return isEmpty(actual);
		case 'eq':
			return Array.isArray(actual) ? false : equal(actual, expected);
		case 'neq':
			return Array.isArray(actual) ? true : !equal(actual, expected);
		case 'gt':
		case 'gte':
		case 'lt':
		case 'lte': {
			const order = compare(actual, expected);
			if (order === undefined) return false;
			return leaf.operator === 'gt'
				? order > 0
				: leaf.operator === 'gte'
					? order >= 0
					: leaf.operator === 'lt'
						? order < 0
						: order <= 0;
		}
		case 'contains':
		case 'not_contains': {
			const holds = Array.isArray(actual)
				? actual.some((item) => equal(item, expected))
				: actual != null && text(actual).includes(text(expected));
			return leaf.operator === 'contains' ? holds : !holds;
		}
		case 'starts_with':
			return actual != null && !Array.isArray(actual) && text(actual).startsWith(text(expected));
		case 'ends_with':
			return actual != null && !Array.isArray(actual) && text(actual).endsWith(text(expected));
		case 'in':
		case 'not_in': {
			const holds = Array.isArray(actual)
				? actual.some((item) => list.some((value) => equal(item, value)))
				: list.some((value) => equal(actual, value));
			return leaf.operator === 'in' ? holds : !holds;
		}
		case 'matches': {
			if (actual == null || Array.isArray(actual) || typeof expected !== 'string') return false;
			if (unsafePattern(expected) !== null) return false;
			return new RegExp(expected, 'iu').test(String(actual).slice(0, MAX_MATCHED_TEXT));
		}
	}
}

/** Whether the condition holds for these facts. Pure: the same facts give the same answer. */
export function evaluate(condition: Condition, facts: Facts): boolean {
	if ('all' in condition) return condition.all.every((child) => evaluate(child, facts));
	if ('any' in condition) return condition.any.some((child) => evaluate(child, facts));
	if ('not' in condition) return !evaluate(condition.not, facts);
	return leafHolds(condition, facts);
}
