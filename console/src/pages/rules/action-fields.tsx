/**
 * The parts every action form is made of: its props (the action, where the API names its fields, the
 * problems), a text field and a picker of ids, each with the API's problem under it.
 */
import type { RuleAction } from './draft';
import { Field, invalid, type Problems, problemAt } from './fields';

export type Of<T extends RuleAction['type']> = Extract<RuleAction, { type: T }>;

export interface FormProps<A extends RuleAction> {
	id: string;
	action: A;
	at: string;
	problems: Problems;
	onChange: (action: RuleAction) => void;
	/** What a template field of this rule can read: its trigger's variables (src/model/rule-variables.ts). */
	liquid: string;
}

/** A text field of the action: `field` names both the field and the API's path. */
export function Text<A extends RuleAction>(
	props: FormProps<A> & { field: string; label: string; value: string | undefined; multiline?: boolean; hint?: string },
) {
	const id = `${props.id}-${props.field}`;
	const problem = problemAt(props.problems, `${props.at}.${props.field}`, true);
	const attrs = {
		id,
		value: props.value ?? '',
		...invalid(id, problem),
		onInput: (e: { currentTarget: { value: string } }) =>
			props.onChange({ ...props.action, [props.field]: e.currentTarget.value } as RuleAction),
	};
	return (
		<Field id={id} label={props.label} problem={problem} hint={props.hint}>
			{props.multiline ? <textarea rows={3} {...attrs} /> : <input {...attrs} />}
		</Field>
	);
}

/** A select of `[value, label]` choices for one of the action's id fields, the current id kept if unknown. */
export function Pick<A extends RuleAction>(
	props: FormProps<A> & {
		field: string;
		label: string;
		value: string | undefined;
		choices: Array<[string, string]>;
		empty: string;
		set: (value: string) => RuleAction;
	},
) {
	const id = `${props.id}-${props.field}`;
	const problem = problemAt(props.problems, `${props.at}.${props.field}`, true);
	const value = props.value ?? '';
	const known = value === '' || props.choices.some(([v]) => v === value);
	return (
		<Field id={id} label={props.label} problem={problem}>
			<select
				id={id}
				value={value}
				{...invalid(id, problem)}
				onChange={(e) => props.onChange(props.set(e.currentTarget.value))}
			>
				<option value="">{props.empty}</option>
				{!known && <option value={value}>{value}</option>}
				{props.choices.map(([v, label]) => (
					<option key={v} value={v}>
						{label}
					</option>
				))}
			</select>
		</Field>
	);
}
