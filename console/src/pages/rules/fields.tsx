/**
 * Small parts of the rule forms: a labelled field with the API's problem under it, and the lookup of a 422's
 * problems by the path the API names (`actions.1.text`), which the settings pages' `fieldProblems` reads.
 */
import type { ComponentChildren } from 'preact';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';
import { FieldProblem, fieldProblems, invalid } from '../settings/form';

export type Problems = Map<string, string>;
export { fieldProblems, invalid };

/** The problem named at `path`, or (with `below`) at a path under it: a list's item for the list's field. */
export function problemAt(problems: Problems, path: string, below = false): string | undefined {
	const exact = problems.get(path);
	if (exact !== undefined || !below) return exact;
	for (const [key, message] of problems) if (key.startsWith(`${path}.`)) return message;
	return undefined;
}

/** A label, the control (given `invalid(id, problem)` by the caller), and the problem under it. */
export function Field(props: {
	id: string;
	label: string;
	problem?: string | undefined;
	hint?: string;
	class?: string;
	children: ComponentChildren;
}) {
	return (
		<div class={`field ${props.class ?? ''}`}>
			<label for={props.id}>{props.label}</label>
			{props.children}
			{props.hint && <p class="hint muted">{props.hint}</p>}
			<FieldProblem id={props.id} message={props.problem} />
		</div>
	);
}

/** A checkbox with its label after it. */
export function Check(props: { id: string; label: string; checked: boolean; onChange: (on: boolean) => void }) {
	return (
		<div class="check">
			<input
				id={props.id}
				type="checkbox"
				checked={props.checked}
				onChange={(e) => props.onChange(e.currentTarget.checked)}
			/>
			<label for={props.id}>{props.label}</label>
		</div>
	);
}

/** A Delete button that asks first, naming what it deletes. */
export function DeleteButton(props: { name: string; busy: boolean; onDelete: () => void }) {
	return (
		<button
			type="button"
			class="danger"
			aria-label={t('rules.deleteNamed', { name: props.name })}
			disabled={props.busy}
			onClick={() => {
				if (window.confirm(t('rules.confirmDelete', { name: props.name }))) props.onDelete();
			}}
		>
			{t('rules.delete')}
		</button>
	);
}

/** A rule's on/off switch in a list, named after the rule. */
export function EnabledSwitch(props: {
	name: string;
	enabled: boolean;
	busy: boolean;
	onChange: (on: boolean) => void;
}) {
	return (
		<input
			type="checkbox"
			role="switch"
			aria-checked={props.enabled}
			class="switch-input"
			aria-label={t('rules.enable', { name: props.name })}
			checked={props.enabled}
			disabled={props.busy}
			onChange={(e) => props.onChange(e.currentTarget.checked)}
		/>
	);
}

/** A save's failure in the save bar: a count when the API named fields (each shows its own), else its message. */
export function SaveProblem({ error, problems }: { error: unknown; problems: Problems }) {
	if (error === null) return null;
	if (problems.size === 0) return <Problem error={error} />;
	return (
		<p class="error" role="alert">
			{t('rules.fixFields', { n: problems.size })}
		</p>
	);
}
