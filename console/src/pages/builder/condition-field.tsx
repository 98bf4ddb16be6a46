/**
 * A step's condition (a Decision's branch, a Conditional Logic's, a custom validation) in the kernel's one
 * condition form, the rules' (../rules/condition-editor): the same groups, facts and value pickers everywhere a
 * condition is written. The form keeps its own tree of keyed rows while it edits; a condition changed from
 * elsewhere (undo, a version opened) rebuilds it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Directory } from '../../data/workspace';
import { t } from '../../i18n';
import { ConditionEditor } from '../rules/condition-editor';
import { conditionOf, type GroupNode, groupOf } from '../rules/draft';
import { type Fact, recordFacts } from '../rules/facts';
import { isVariable } from './variables';

/** What a condition at a step may read: a bot's the answer, its variables and the records; a scenario's its variables. */
export type FactScope = 'bot' | 'answer' | 'scenario';

export function flowFacts(scope: FactScope, variables: string[], directory: Directory | undefined): Fact[] {
	const section = t('builder.facts.flow');
	const kept = variables
		.filter((name) => isVariable(name) && name !== 'answer')
		.map((name): Fact => ({ path: `vars.${name}`, label: name, section, kind: 'text' }));
	const answer: Fact = { path: 'answer', label: t('builder.fact.answer'), section, kind: 'text' };
	if (scope === 'scenario') return kept;
	if (scope === 'answer') return [answer, ...kept];
	return [answer, ...kept, ...recordFacts(directory)];
}

export function ConditionField(props: {
	id: string;
	value: unknown;
	onChange: (value: unknown) => void;
	/** Its path in the step, for the API's problems (`branches.0.condition`). */
	path: string;
	facts: Fact[];
	problems: Map<string, string>;
}) {
	const [group, setGroup] = useState<GroupNode>(() => groupOf(props.value));
	const written = useRef<unknown>(props.value);
	useEffect(() => {
		if (props.value !== written.current) {
			written.current = props.value;
			setGroup(groupOf(props.value));
		}
	}, [props.value]);
	const change = (next: GroupNode) => {
		setGroup(next);
		// An empty group is no condition the API takes: it is sent as it is and refused at its field.
		const condition = conditionOf(next) ?? { all: [] };
		written.current = condition;
		props.onChange(condition);
	};
	return (
		<ConditionEditor
			id={props.id}
			group={group}
			facts={props.facts}
			problems={props.problems}
			onChange={change}
			path={props.path}
		/>
	);
}
