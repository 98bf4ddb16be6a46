/**
 * A Liquid template's text, with the variable picker: the variables this step can read (the contact, the
 * conversation, the agent, dates, what earlier steps collected or received) and a filter, inserted as
 * `{{ name | filter }}` where the caret is.
 */
import { useRef, useState } from 'preact/hooks';
import { t } from '../../i18n';

/** Liquid filters a builder reaches for, with their usual arguments. */
export const FILTERS = [
	'',
	'default: "there"',
	'capitalize',
	'upcase',
	'downcase',
	'truncate: 40',
	'date: "%d/%m/%Y"',
	'date: "%H:%M"',
	'plus: 1',
	'json',
	'url_encode',
] as const;

export function TemplateField(props: {
	id: string;
	value: string;
	long: boolean;
	onChange: (value: string) => void;
	variables: string[];
	described: Record<string, unknown>;
}) {
	const field = useRef<HTMLTextAreaElement>(null);
	const [open, setOpen] = useState(false);
	const [filter, setFilter] = useState('');
	const insert = (name: string) => {
		const tag = filter ? `{{ ${name} | ${filter} }}` : `{{ ${name} }}`;
		const element = field.current;
		const at = element?.selectionStart ?? props.value.length;
		const end = element?.selectionEnd ?? at;
		props.onChange(props.value.slice(0, at) + tag + props.value.slice(end));
		setOpen(false);
		requestAnimationFrame(() => {
			element?.focus();
			element?.setSelectionRange(at + tag.length, at + tag.length);
		});
	};
	return (
		<div class="template-field">
			<textarea
				ref={field}
				id={props.id}
				rows={props.long ? 3 : 1}
				value={props.value}
				onInput={(e) => props.onChange(e.currentTarget.value)}
				{...props.described}
			/>
			<button
				type="button"
				class="variable-button"
				aria-expanded={open}
				aria-label={t('builder.insertVariable')}
				title={t('builder.insertVariable')}
				onClick={() => setOpen(!open)}
			>
				{'{ }'}
			</button>
			{open && (
				<div class="variable-picker">
					<label>
						{t('builder.filter')}
						<select value={filter} onChange={(e) => setFilter(e.currentTarget.value)}>
							{FILTERS.map((f) => (
								<option key={f} value={f}>
									{f || t('builder.noFilter')}
								</option>
							))}
						</select>
					</label>
					<ul>
						{props.variables.map((name) => (
							<li key={name}>
								<button type="button" onClick={() => insert(name)}>
									{name}
								</button>
							</li>
						))}
					</ul>
				</div>
			)}
		</div>
	);
}
