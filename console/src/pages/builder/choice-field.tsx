/**
 * Fields that hold ids of the workspace's things (a funnel, a stage) as pickers of their names: one among
 * them, with "a template or variable" kept for a field the API renders (a funnel named by `{{ funnel }}`), or
 * several as checkboxes. A value that is none of the choices (typed before, or a template) stays as it is.
 */
import { useState } from 'preact/hooks';
import { t } from '../../i18n';
import { TemplateField } from './template-field';

export interface Choice {
	value: string;
	label: string;
}

/** The select's value for "a template or variable": no id or name can be it. */
const TEMPLATE = '\u0000template';

export function ChoiceOrTemplate(props: {
	id: string;
	label: string;
	value: string;
	choices: Choice[];
	onChange: (value: string) => void;
	variables: string[];
	described: Record<string, unknown>;
}) {
	const known = props.choices.some((c) => c.value === props.value);
	// Chosen by the person; a value none of the choices hold (while they load, or written before) shows as text.
	const [templating, setTemplating] = useState(false);
	const showTemplate = templating || (props.value !== '' && !known);
	return (
		<>
			<select
				id={props.id}
				value={showTemplate ? TEMPLATE : props.value}
				onChange={(e) => {
					const picked = e.currentTarget.value;
					setTemplating(picked === TEMPLATE);
					if (picked !== TEMPLATE) props.onChange(picked);
					else if (known) props.onChange('');
				}}
				{...props.described}
			>
				<option value="">—</option>
				{props.choices.map((c) => (
					<option key={c.value} value={c.value}>
						{c.label}
					</option>
				))}
				<option value={TEMPLATE}>{t('builder.useTemplate')}</option>
			</select>
			{showTemplate && (
				<TemplateField
					id={`${props.id}-template`}
					value={props.value}
					long={false}
					onChange={props.onChange}
					variables={props.variables}
					described={{ 'aria-label': t('builder.templateOf', { what: props.label }) }}
				/>
			)}
		</>
	);
}

/** Several of the choices, as checkboxes; values that are none of them are shown, checked, by themselves. */
export function ChoiceChecks(props: {
	id: string;
	label: string;
	value: string[];
	choices: Choice[];
	onChange: (value: string[]) => void;
}) {
	const others = props.value.filter((v) => !props.choices.some((c) => c.value === v));
	return (
		<fieldset id={props.id} class="choice-checks" aria-label={props.label}>
			{[...props.choices, ...others.map((v) => ({ value: v, label: v }))].map((c) => (
				<label key={c.value} class="inline">
					<input
						type="checkbox"
						checked={props.value.includes(c.value)}
						onChange={(e) =>
							props.onChange(
								e.currentTarget.checked ? [...props.value, c.value] : props.value.filter((v) => v !== c.value),
							)
						}
					/>
					{c.label}
				</label>
			))}
		</fieldset>
	);
}
