/**
 * A Liquid template's text, with the variable picker: the variables this step can read (the contact, the
 * conversation, the agent, dates, what earlier steps collected or received) and a filter, inserted as
 * `{{ name | filter }}` where the caret is; and a preview of the text rendered with sample values by the API's
 * own engine (POST /v3/templates/preview), so filters, dates and the workspace's time zone are the real ones.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useTemplatePreview } from '../../data/builder';
import { t } from '../../i18n';
import { isVariable } from './variables';

/** Liquid filters a builder reaches for, with their usual arguments. */
const FILTERS = [
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

/** Quiet time after the last key before the preview asks the API again. */
const PREVIEW_DELAY_MS = 300;

/**
 * The sample values a preview renders with: for a bot (whose templates read the conversation's contact, agent
 * and conversation) a sample of each, its custom fields included; for a scenario nothing in their place, so its
 * own `contact` variable is what they read; and `sample <name>` for each plain variable.
 */
function sampleValues(variables: string[]) {
	// The engine's own names (`now`…) get no sample: it sets them itself.
	const names = variables.filter(isVariable);
	const sample = (list: string[]) => Object.fromEntries(list.map((name) => [name, `sample ${name}`]));
	const custom = variables
		.filter((name) => name.startsWith('contact.custom_fields.'))
		.map((name) => name.slice('contact.custom_fields.'.length));
	const conversational = variables.includes('contact.name');
	return {
		...(conversational
			? {
					contact: {
						name: 'Ana Souza',
						email: 'ana@example.com',
						phone: '+5511999990000',
						customFields: sample(custom),
					},
					agent: { name: 'Marta' },
					conversation: { id: 'conv_sample', channel: 'widget' },
				}
			: {}),
		variables: sample(names),
	};
}

/** `text` once it has stayed the same for `delay` ms. */
function useSettled(text: string, delay: number): string {
	const [settled, setSettled] = useState(text);
	useEffect(() => {
		const timer = setTimeout(() => setSettled(text), delay);
		return () => clearTimeout(timer);
	}, [text, delay]);
	return settled;
}

/** The field's text rendered with sample values, or why the API refuses it. */
function TemplatePreview(props: { id: string; fieldId: string; template: string; variables: string[] }) {
	const template = useSettled(props.template, PREVIEW_DELAY_MS);
	const samples = sampleValues(props.variables);
	// The last rendering stays while the next loads, so the output does not flicker with each pause.
	const preview = useTemplatePreview(template, samples);
	// The field is already named where the builder looks: the API's `json.template: ` adds nothing here.
	const problem = preview.error?.message.replace(/^json\.template: /, '');
	return (
		<div class="template-preview">
			<label for={props.id}>{t('builder.previewLabel')}</label>
			<output id={props.id} for={props.fieldId} aria-live="polite" class={problem ? 'preview-problem' : undefined}>
				{problem ?? preview.data ?? '…'}
			</output>
		</div>
	);
}

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
	const [previewing, setPreviewing] = useState(false);
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
		<>
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
				<button
					type="button"
					class="preview-button"
					aria-pressed={previewing}
					title={t('builder.previewHint')}
					onClick={() => setPreviewing(!previewing)}
				>
					{t('builder.preview')}
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
			{previewing && (
				<TemplatePreview
					id={`${props.id}-preview`}
					fieldId={props.id}
					template={props.value}
					variables={props.variables}
				/>
			)}
		</>
	);
}
