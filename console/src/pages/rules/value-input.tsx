/**
 * A condition row's value, as the fact and operator want it: nothing for "is set", a list for "is any of",
 * an operator or a group from the directory, a tag from the workspace's tags, a number, yes or no, a choice.
 */
import { useDirectory, useTags } from '../../data/workspace';
import { t } from '../../i18n';
import { type Leaf, LIST_VALUE, NO_VALUE, type Operator } from './draft';
import type { Fact } from './facts';

type Value = Leaf['value'];
type Scalar = string | number | boolean | null;

/** The value a row starts with after its fact or operator changed, keeping what still fits. */
export function valueFor(fact: Fact, operator: Operator, previous: Value): Value {
	if (NO_VALUE.includes(operator)) return undefined;
	const list = Array.isArray(previous) ? previous : previous === undefined || previous === '' ? [] : [previous];
	if (LIST_VALUE.includes(operator)) return list;
	const one = list[0];
	if (fact.kind === 'boolean') return typeof one === 'boolean' ? one : true;
	if (fact.kind === 'number') return typeof one === 'number' ? one : 0;
	if (fact.kind === 'choice' && (one === undefined || !fact.options?.includes(String(one)))) {
		return fact.options?.[0] ?? '';
	}
	return one === undefined || one === null ? '' : typeof one === 'boolean' ? String(one) : one;
}

/** Choices of a picker fact as [value, label]: a status, an operator's name, a group's name, a tag. */
function usePicks(fact: Fact): Array<[string, string]> | null {
	const directory = useDirectory().data;
	const tags = useTags().data;
	if (fact.kind === 'operator') return (directory?.operators ?? []).map((o) => [o.id, o.name]);
	if (fact.kind === 'group') return (directory?.groups ?? []).map((g) => [g.id, g.name]);
	if (fact.kind === 'choice') return (fact.options ?? []).map((o) => [o, o]);
	if (fact.kind === 'tags' || fact.kind === 'tag') return (tags ?? []).map((tag) => [tag.name, tag.name]);
	return null;
}

export function ValueInput(props: {
	id: string;
	label: string;
	fact: Fact;
	operator: Operator;
	value: Value;
	problem: string | undefined;
	/** The element that says the problem (the row's). */
	problemId: string;
	onChange: (value: Value) => void;
}) {
	const { id, fact, operator, value } = props;
	const picks = usePicks(fact);
	if (NO_VALUE.includes(operator)) return <span class="no-value muted">—</span>;
	const common = {
		id,
		'aria-label': props.label,
		...(props.problem ? { 'aria-invalid': true as const, 'aria-describedby': props.problemId } : {}),
	};
	const withCurrent = (list: Array<[string, string]>, current: Scalar[]) => [
		...list,
		...current.filter((c) => !list.some(([v]) => v === String(c))).map((c): [string, string] => [String(c), String(c)]),
	];
	if (LIST_VALUE.includes(operator)) {
		const current = Array.isArray(value) ? value : [];
		if (picks && fact.kind !== 'tag' && fact.kind !== 'tags') {
			return (
				<select
					{...common}
					multiple
					size={Math.min(4, Math.max(2, picks.length))}
					onChange={(e) => props.onChange([...e.currentTarget.selectedOptions].map((o) => o.value))}
				>
					{withCurrent(picks, current).map(([v, label]) => (
						<option key={v} value={v} selected={current.some((c) => String(c) === v)}>
							{label}
						</option>
					))}
				</select>
			);
		}
		// Free values and tags (new names allowed): typed, comma separated.
		return (
			<input
				{...common}
				placeholder={t('rules.value.list')}
				value={current.join(', ')}
				onChange={(e) =>
					props.onChange(
						e.currentTarget.value
							.split(',')
							.map((v) => v.trim())
							.filter((v) => v !== '')
							.map((v) => (fact.kind === 'number' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v)),
					)
				}
			/>
		);
	}
	const one = Array.isArray(value) ? value[0] : value;
	if (fact.kind === 'boolean') {
		return (
			<select
				{...common}
				value={String(one === true)}
				onChange={(e) => props.onChange(e.currentTarget.value === 'true')}
			>
				<option value="true">{t('rules.value.yes')}</option>
				<option value="false">{t('rules.value.no')}</option>
			</select>
		);
	}
	if (fact.kind === 'number') {
		return (
			<input
				{...common}
				type="number"
				value={typeof one === 'number' ? one : ''}
				onInput={(e) => props.onChange(e.currentTarget.value === '' ? '' : Number(e.currentTarget.value))}
			/>
		);
	}
	if (picks && (fact.kind === 'operator' || fact.kind === 'group' || fact.kind === 'choice')) {
		const current = one === undefined || one === null ? '' : String(one);
		return (
			<select {...common} value={current} onChange={(e) => props.onChange(e.currentTarget.value)}>
				{current === '' && <option value="">{t('rules.value.choose')}</option>}
				{withCurrent(picks, current === '' ? [] : [current]).map(([v, label]) => (
					<option key={v} value={v}>
						{label}
					</option>
				))}
			</select>
		);
	}
	const listId = `${id}-suggestions`;
	return (
		<>
			<input
				{...common}
				list={picks ? listId : undefined}
				placeholder={operator === 'matches' ? t('rules.value.pattern') : ''}
				value={one === undefined || one === null ? '' : String(one)}
				onInput={(e) => props.onChange(e.currentTarget.value)}
			/>
			{picks && (
				<datalist id={listId}>
					{picks.map(([v]) => (
						<option key={v} value={v} />
					))}
				</datalist>
			)}
		</>
	);
}
