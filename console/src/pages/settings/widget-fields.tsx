import { useState } from 'preact/hooks';
import { useContactFieldDefinitions } from '../../data/widget';
import { t } from '../../i18n';
import { FieldProblem, invalid, Section } from './form';
import type { SectionProps } from './widget-appearance';
import type { WidgetSettings } from './widget-draft';

type CustomField = WidgetSettings['customFields'][number];
const REQUIRED = ['name', 'email', 'phone'] as const;

/**
 * Settings › Widget › Form: what the visitor is asked before the conversation starts. Extra fields are
 * contact custom fields (their answers are stored there), so adding one starts from a defined field.
 */
export function PrechatForm({ draft, change, problems }: SectionProps) {
	const definitions = useContactFieldDefinitions();
	const defined = definitions.data?.data ?? [];
	const unused = defined.filter((d) => !draft.customFields.some((f) => f.name === d.key));
	const [adding, setAdding] = useState('');
	const setFields = (update: (fields: CustomField[]) => CustomField[]) =>
		change((s) => ({ ...s, customFields: update(s.customFields) }));
	const add = () => {
		const definition = defined.find((d) => d.key === adding);
		const isChoice = definition?.type === 'select' || definition?.type === 'boolean';
		const options = definition?.type === 'boolean' ? ['true', 'false'] : (definition?.options ?? []);
		setFields((fields) => [
			...fields,
			{
				name: definition?.key ?? '',
				label: definition?.label ?? '',
				type: isChoice ? 'select' : 'text',
				...(isChoice ? { options } : {}),
				required: false,
			},
		]);
		setAdding('');
	};
	return (
		<Section id="form" title={t('widget.form')} intro={t('widget.form.intro')}>
			<fieldset class="choice">
				<legend>{t('widget.requiredFields')}</legend>
				{REQUIRED.map((field) => (
					<label key={field} class="inline">
						<input
							type="checkbox"
							checked={draft.requiredFields.includes(field)}
							onChange={(e) => {
								const on = e.currentTarget.checked;
								change((s) => ({
									...s,
									requiredFields: on
										? REQUIRED.filter((f) => f === field || s.requiredFields.includes(f))
										: s.requiredFields.filter((f) => f !== field),
								}));
							}}
						/>
						{t(`widget.required.${field}`)}
					</label>
				))}
			</fieldset>
			<h3>{t('widget.customFields')}</h3>
			{problems.get('customFields') && <p class="field-problem">{problems.get('customFields')}</p>}
			{draft.customFields.length === 0 && <p class="muted">{t('widget.customFields.none')}</p>}
			<datalist id="contact-field-keys">
				{defined.map((d) => (
					<option key={d.id} value={d.key}>
						{d.label}
					</option>
				))}
			</datalist>
			{draft.customFields.map((field, index) => (
				<CustomFieldRow
					key={index}
					field={field}
					index={index}
					problems={problems}
					onChange={(next) => setFields((fields) => fields.map((f, i) => (i === index ? next : f)))}
					onRemove={() => setFields((fields) => fields.filter((_, i) => i !== index))}
				/>
			))}
			<div class="add-row">
				<label for="add-custom-field" class="visually-hidden">
					{t('widget.customFields.pick')}
				</label>
				<select id="add-custom-field" value={adding} onChange={(e) => setAdding(e.currentTarget.value)}>
					<option value="">{t('widget.customFields.pick')}</option>
					{unused.map((d) => (
						<option key={d.id} value={d.key}>
							{d.label} ({d.key})
						</option>
					))}
				</select>
				<button type="button" onClick={add} disabled={draft.customFields.length >= 20}>
					{adding ? t('widget.customFields.add') : t('widget.customFields.addBlank')}
				</button>
			</div>
			{definitions.isSuccess && defined.length === 0 && <p class="hint muted">{t('widget.customFields.define')}</p>}
		</Section>
	);
}

function CustomFieldRow(props: {
	field: CustomField;
	index: number;
	problems: Map<string, string>;
	onChange: (field: CustomField) => void;
	onRemove: () => void;
}) {
	const { field, index } = props;
	const id = (part: string) => `custom-${index}-${part}`;
	const problem = (part: string) => props.problems.get(`customFields.${index}.${part}`);
	return (
		<fieldset class="custom-field">
			<legend>{t('widget.customFields.row', { n: index + 1 })}</legend>
			<div class="grid-2">
				<div class="field">
					<label for={id('name')}>{t('widget.customFields.name')}</label>
					<input
						id={id('name')}
						list="contact-field-keys"
						value={field.name}
						maxLength={40}
						onInput={(e) => props.onChange({ ...field, name: e.currentTarget.value })}
						{...invalid(id('name'), problem('name'))}
					/>
					<FieldProblem id={id('name')} message={problem('name')} />
				</div>
				<div class="field">
					<label for={id('label')}>{t('widget.customFields.label')}</label>
					<input
						id={id('label')}
						value={field.label}
						maxLength={80}
						onInput={(e) => props.onChange({ ...field, label: e.currentTarget.value })}
						{...invalid(id('label'), problem('label'))}
					/>
					<FieldProblem id={id('label')} message={problem('label')} />
				</div>
				<div class="field">
					<label for={id('type')}>{t('widget.customFields.type')}</label>
					<select
						id={id('type')}
						value={field.type}
						onChange={(e) => {
							const type = e.currentTarget.value as CustomField['type'];
							props.onChange(
								type === 'select'
									? { ...field, type, options: field.options ?? [] }
									: { ...field, type, options: undefined },
							);
						}}
						{...invalid(id('type'), problem('type'))}
					>
						<option value="text">{t('widget.customFields.text')}</option>
						<option value="select">{t('widget.customFields.select')}</option>
					</select>
					<FieldProblem id={id('type')} message={problem('type')} />
				</div>
				{field.type === 'select' && (
					<div class="field">
						<label for={id('options')}>{t('widget.customFields.options')}</label>
						<textarea
							id={id('options')}
							rows={3}
							value={(field.options ?? []).join('\n')}
							onInput={(e) => props.onChange({ ...field, options: e.currentTarget.value.split('\n') })}
							{...invalid(id('options'), problem('options'))}
						/>
						<FieldProblem id={id('options')} message={problem('options')} />
					</div>
				)}
			</div>
			<div class="row-actions">
				<label class="inline">
					<input
						type="checkbox"
						checked={field.required}
						onChange={(e) => props.onChange({ ...field, required: e.currentTarget.checked })}
					/>
					{t('widget.customFields.required')}
				</label>
				<button type="button" class="danger" onClick={props.onRemove}>
					{t('widget.customFields.remove', { n: index + 1 })}
				</button>
			</div>
		</fieldset>
	);
}
