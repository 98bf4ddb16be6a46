/**
 * A condition as groups of rows: a group matches all or any of its rows (or, reversed, none of them hold), a
 * row compares a fact with a value, and a group may hold groups (two levels below the top). The API's
 * problems show at the row and field they name. The kernel's one condition form: rules, assignment rules, and
 * the bot and scenario builders' Decision, Conditional Logic and custom validations.
 */
import { t } from '../../i18n';
import {
	type ConditionNode,
	emptyGroup,
	type GroupNode,
	itemsPath,
	type LeafNode,
	newKey,
	type Operator,
} from './draft';
import { type Fact, factAt, OPERATORS_FOR } from './facts';
import { Check, invalid, type Problems, problemAt } from './fields';
import { ValueInput, valueFor } from './value-input';
import './condition-editor.css';

const MAX_NESTING = 2;

export function ConditionEditor(props: {
	id: string;
	group: GroupNode;
	facts: readonly Fact[];
	problems: Problems;
	onChange: (group: GroupNode) => void;
	/** Where the condition is in the body the API judges, for its problems: `condition` (a rule's), `branches.0.condition`… */
	path?: string;
}) {
	return (
		<GroupEditor
			id={props.id}
			group={props.group}
			path={props.path ?? 'condition'}
			depth={0}
			facts={props.facts}
			problems={props.problems}
			onChange={props.onChange}
		/>
	);
}

function newLeaf(facts: readonly Fact[]): LeafNode {
	const fact = facts[0] ?? factAt([], 'contact.name');
	const operator = OPERATORS_FOR[fact.kind][0] ?? 'eq';
	return { kind: 'leaf', key: newKey(), fact: fact.path, operator, value: valueFor(fact, operator, undefined) };
}

function GroupEditor(props: {
	id: string;
	group: GroupNode;
	path: string;
	depth: number;
	facts: readonly Fact[];
	problems: Problems;
	onChange: (group: GroupNode) => void;
	onRemove?: () => void;
}) {
	const { group, id } = props;
	const at = itemsPath(group, props.path);
	const set = (changes: Partial<GroupNode>) => props.onChange({ ...group, ...changes });
	const setItem = (i: number, item: ConditionNode | null) =>
		set({ items: group.items.flatMap((old, j) => (j !== i ? [old] : item ? [item] : [])) });
	const problem = problemAt(props.problems, props.path) ?? problemAt(props.problems, at);
	return (
		<fieldset
			class={`condition-group depth-${props.depth}`}
			aria-label={t('rules.group.label', { n: props.depth + 1 })}
		>
			<div class="group-head">
				<label for={`${id}-match`}>{t('rules.group.match')}</label>
				<select
					id={`${id}-match`}
					value={group.match}
					onChange={(e) => set({ match: e.currentTarget.value as GroupNode['match'] })}
				>
					<option value="all">{t('rules.group.all')}</option>
					<option value="any">{t('rules.group.any')}</option>
				</select>
				<Check
					id={`${id}-negate`}
					label={t('rules.group.negate')}
					checked={group.negate}
					onChange={(negate) => set({ negate })}
				/>
				{props.onRemove && (
					<button type="button" class="link danger" onClick={props.onRemove}>
						{t('rules.group.remove')}
					</button>
				)}
			</div>
			{problem && <p class="field-problem">{problem}</p>}
			{group.items.length === 0 && props.depth === 0 && <p class="muted empty-note">{t('rules.condition.none')}</p>}
			<ol class="condition-items">
				{group.items.map((item, i) => (
					<li key={item.key}>
						{item.kind === 'leaf' ? (
							<ConditionRow
								id={`${id}-${item.key}`}
								n={i + 1}
								leaf={item}
								path={`${at}.${i}`}
								facts={props.facts}
								problems={props.problems}
								onChange={(leaf) => setItem(i, leaf)}
								onRemove={() => setItem(i, null)}
							/>
						) : (
							<GroupEditor
								{...props}
								id={`${id}-${item.key}`}
								group={item}
								path={`${at}.${i}`}
								depth={props.depth + 1}
								onChange={(child) => setItem(i, child)}
								onRemove={() => setItem(i, null)}
							/>
						)}
					</li>
				))}
			</ol>
			<div class="group-actions">
				<button type="button" onClick={() => set({ items: [...group.items, newLeaf(props.facts)] })}>
					{t('rules.condition.add')}
				</button>
				{props.depth < MAX_NESTING && (
					<button
						type="button"
						onClick={() =>
							set({
								items: [
									...group.items,
									{ ...emptyGroup(group.match === 'all' ? 'any' : 'all'), items: [newLeaf(props.facts)] },
								],
							})
						}
					>
						{t('rules.group.add')}
					</button>
				)}
			</div>
		</fieldset>
	);
}

/** The facts as the picker shows them: under their section's heading, the row's own first if unknown. */
function FactOptions({ facts, current }: { facts: readonly Fact[]; current: Fact }) {
	const all = facts.some((f) => f.path === current.path) ? facts : [current, ...facts];
	const sections = [...new Set(all.map((f) => f.section))];
	return (
		<>
			{sections.map((section) => (
				<optgroup key={section} label={section}>
					{all
						.filter((f) => f.section === section)
						.map((f) => (
							<option key={f.path} value={f.path}>
								{f.label}
							</option>
						))}
				</optgroup>
			))}
		</>
	);
}

function ConditionRow(props: {
	id: string;
	n: number;
	leaf: LeafNode;
	path: string;
	facts: readonly Fact[];
	problems: Problems;
	onChange: (leaf: LeafNode) => void;
	onRemove: () => void;
}) {
	const { leaf, id, path } = props;
	const fact = factAt(props.facts, leaf.fact);
	const operators = OPERATORS_FOR[fact.kind].includes(leaf.operator)
		? OPERATORS_FOR[fact.kind]
		: [leaf.operator, ...OPERATORS_FOR[fact.kind]];
	const factProblem = problemAt(props.problems, `${path}.fact`) ?? problemAt(props.problems, path);
	const operatorProblem = problemAt(props.problems, `${path}.operator`);
	const valueProblem = problemAt(props.problems, `${path}.value`, true);
	const problems = [factProblem, operatorProblem, valueProblem].filter(Boolean);
	const label = (what: string) => `${what} (${t('rules.condition.n', { n: props.n })})`;
	return (
		<fieldset class="condition-row" aria-label={t('rules.condition.n', { n: props.n })}>
			<select
				id={`${id}-fact`}
				aria-label={label(t('rules.condition.fact'))}
				value={leaf.fact}
				{...invalid(id, factProblem)}
				onChange={(e) => {
					const next = factAt(props.facts, e.currentTarget.value);
					const allowed = OPERATORS_FOR[next.kind];
					const operator: Operator = allowed.includes(leaf.operator) ? leaf.operator : (allowed[0] ?? 'eq');
					props.onChange({ ...leaf, fact: next.path, operator, value: valueFor(next, operator, leaf.value) });
				}}
			>
				<FactOptions facts={props.facts} current={fact} />
			</select>
			<select
				id={`${id}-operator`}
				aria-label={label(t('rules.condition.operator'))}
				value={leaf.operator}
				{...invalid(id, operatorProblem)}
				onChange={(e) => {
					const operator = e.currentTarget.value as Operator;
					props.onChange({ ...leaf, operator, value: valueFor(fact, operator, leaf.value) });
				}}
			>
				{operators.map((op) => (
					<option key={op} value={op}>
						{t(`rules.op.${op}`)}
					</option>
				))}
			</select>
			<ValueInput
				id={`${id}-value`}
				label={label(t('rules.condition.value'))}
				fact={fact}
				operator={leaf.operator}
				value={leaf.value}
				problem={valueProblem}
				problemId={`${id}-problem`}
				onChange={(value) => props.onChange({ ...leaf, value })}
			/>
			<button
				type="button"
				class="icon"
				aria-label={t('rules.condition.remove', { n: props.n })}
				title={t('rules.condition.remove', { n: props.n })}
				onClick={props.onRemove}
			>
				×
			</button>
			{problems.length > 0 && (
				<p class="field-problem row-problem" id={`${id}-problem`}>
					{problems.join(' · ')}
				</p>
			)}
		</fieldset>
	);
}
