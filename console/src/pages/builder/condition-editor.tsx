/**
 * The kernel's conditions as a form: a group matches all, any or none of its rows; a row is a comparison
 * (fact, operator, value) or a nested group. It writes the API's own shape (`{ all: [...] }`, `{ any }`,
 * `{ not: { any } }`, leaves `{ fact, operator, value }`), and leaves a condition it was given untouched
 * until it is edited.
 */
import { t } from '../../i18n';
import type { FormContext } from './schema-form';

type Leaf = { fact: string; operator: string; value?: unknown };
type Condition = Leaf | { all: Condition[] } | { any: Condition[] } | { not: Condition };
type Mode = 'all' | 'any' | 'none';

const OPERATORS = [
	'eq',
	'neq',
	'contains',
	'not_contains',
	'starts_with',
	'ends_with',
	'gt',
	'gte',
	'lt',
	'lte',
	'in',
	'not_in',
	'is_set',
	'is_empty',
	'matches',
	'any',
] as const;
const NO_VALUE = new Set(['is_set', 'is_empty', 'any']);
const LIST_VALUE = new Set(['in', 'not_in']);

/** Facts every document can read; the variables of the step come first. */
const FACTS = [
	'answer',
	'contact.name',
	'contact.email',
	'contact.phone',
	'contact.tags',
	'contact.conversationCount',
	'conversation.channel',
	'conversation.status',
	'conversation.tags',
	'businessHours.open',
	'agents.available',
	'deal.status',
	'deal.stage',
	'deal.value',
];

/** A group's rows and mode, whatever shape the condition has. */
function asGroup(condition: Condition): { mode: Mode; rows: Condition[] } {
	if ('all' in condition) return { mode: 'all', rows: condition.all };
	if ('any' in condition) return { mode: 'any', rows: condition.any };
	if ('not' in condition) {
		const inner = condition.not;
		if ('any' in inner) return { mode: 'none', rows: inner.any };
		return { mode: 'none', rows: [inner] };
	}
	return { mode: 'all', rows: [condition] };
}

function fromGroup(mode: Mode, rows: Condition[]): Condition {
	if (mode === 'all') return { all: rows };
	if (mode === 'any') return { any: rows };
	return { not: { any: rows } };
}

const isLeaf = (c: Condition): c is Leaf => 'fact' in c;

export function ConditionEditor(props: {
	value: object;
	onChange: (value: Condition) => void;
	path: (string | number)[];
	ctx: FormContext;
	depth?: number;
}) {
	const depth = props.depth ?? 0;
	const { mode, rows } = asGroup(props.value as Condition);
	const set = (nextMode: Mode, nextRows: Condition[]) => props.onChange(fromGroup(nextMode, nextRows));
	const id = `${props.ctx.idPrefix}-${props.path.join('-')}`;
	const facts = [...props.ctx.variables.map((v) => `vars.${v}`), ...FACTS];
	return (
		<div class="condition-group" data-depth={depth}>
			<label class="group-mode">
				{t('builder.match')}
				<select value={mode} onChange={(e) => set(e.currentTarget.value as Mode, rows)}>
					<option value="all">{t('builder.match.all')}</option>
					<option value="any">{t('builder.match.any')}</option>
					<option value="none">{t('builder.match.none')}</option>
				</select>
			</label>
			<datalist id={`${id}-facts`}>
				{facts.map((fact) => (
					<option key={fact} value={fact} />
				))}
			</datalist>
			{rows.map((row, i) => {
				const replace = (next: Condition | undefined) =>
					set(mode, next === undefined ? rows.filter((_, j) => j !== i) : rows.map((r, j) => (j === i ? next : r)));
				const problem =
					props.ctx.problems.get([...props.path, mode === 'none' ? 'not' : mode, i].join('.')) ??
					props.ctx.problems.get([...props.path, 'not', 'any', i].join('.'));
				return (
					<div class="condition-row" key={i}>
						{isLeaf(row) ? (
							<LeafRow leaf={row} onChange={replace} listId={`${id}-facts`} label={`${i + 1}`} />
						) : (
							<ConditionEditor
								value={row}
								onChange={replace}
								path={[...props.path, mode, i]}
								ctx={props.ctx}
								depth={depth + 1}
							/>
						)}
						<button
							type="button"
							aria-label={t('builder.removeRow', { n: i + 1 })}
							disabled={rows.length === 1}
							onClick={() => replace(undefined)}
						>
							✕
						</button>
						{problem && <p class="field-problem">{problem}</p>}
					</div>
				);
			})}
			<div class="group-actions">
				<button
					type="button"
					onClick={() => set(mode, [...rows, { fact: facts[0] ?? 'answer', operator: 'eq', value: '' }])}
				>
					{t('builder.addRow')}
				</button>
				{depth < 2 && (
					<button
						type="button"
						onClick={() => set(mode, [...rows, { any: [{ fact: facts[0] ?? 'answer', operator: 'eq', value: '' }] }])}
					>
						{t('builder.addGroup')}
					</button>
				)}
			</div>
		</div>
	);
}

/** A value as typed: `true`/`false` and numbers as such, the rest as text. */
function typed(text: string): unknown {
	if (text === 'true') return true;
	if (text === 'false') return false;
	if (/^-?\d+(\.\d+)?$/.test(text.trim())) return Number(text);
	return text;
}

function shown(value: unknown): string {
	if (Array.isArray(value)) return value.map(String).join(', ');
	if (value === undefined || value === null) return '';
	return String(value);
}

function LeafRow(props: { leaf: Leaf; onChange: (leaf: Leaf) => void; listId: string; label: string }) {
	const { leaf } = props;
	const setValue = (text: string) =>
		props.onChange({
			...leaf,
			value: LIST_VALUE.has(leaf.operator) ? text.split(',').map((part) => typed(part.trim())) : typed(text),
		});
	return (
		<div class="condition-leaf">
			<input
				aria-label={t('builder.fact', { n: props.label })}
				list={props.listId}
				value={leaf.fact}
				onInput={(e) => props.onChange({ ...leaf, fact: e.currentTarget.value })}
			/>
			<select
				aria-label={t('builder.operator', { n: props.label })}
				value={leaf.operator}
				onChange={(e) => {
					const operator = e.currentTarget.value;
					const { value: _old, ...rest } = leaf;
					if (NO_VALUE.has(operator)) props.onChange({ ...rest, operator });
					else if (LIST_VALUE.has(operator))
						props.onChange({ ...rest, operator, value: shown(leaf.value) ? shown(leaf.value).split(', ') : [] });
					else
						props.onChange({
							...rest,
							operator,
							value: Array.isArray(leaf.value) ? shown(leaf.value) : (leaf.value ?? ''),
						});
				}}
			>
				{OPERATORS.map((op) => (
					<option key={op} value={op}>
						{t(`builder.op.${op}`)}
					</option>
				))}
			</select>
			{!NO_VALUE.has(leaf.operator) && (
				<input
					aria-label={t('builder.value', { n: props.label })}
					value={shown(leaf.value)}
					placeholder={LIST_VALUE.has(leaf.operator) ? t('builder.listHint') : ''}
					onInput={(e) => setValue(e.currentTarget.value)}
				/>
			)}
		</div>
	);
}
