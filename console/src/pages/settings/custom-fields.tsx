import { useState } from 'preact/hooks';
import {
	type CustomField,
	type CustomFieldEntity,
	useCustomFieldChanges,
	useCustomFields,
} from '../../data/custom-fields';
import { t } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { FieldProblem, fieldProblems, invalid, problemUnder, Section } from './form';

const ENTITIES = ['contact', 'deal'] as const;
const TYPES = ['text', 'number', 'date', 'boolean', 'select'] as const;

/** A select's options as typed, one a line: blank lines are not options. */
const optionLines = (text: string) =>
	text
		.split('\n')
		.map((line) => line.trim())
		.filter(Boolean);

/**
 * Settings › Custom fields (admins): the contact and deal fields, each with its label, type and options,
 * changed in place and deleted; a new one defined below. The API judges every value (its 422 shows under the
 * field it names) and keeps its protections: a key its entity has already, or a field (or an option) the
 * widget's pre-chat form asks for, is refused with its reason.
 */
export function CustomFieldsPage() {
	return (
		<div class="page settings-page">
			<header class="settings-header">
				<h1>{t('fields.title')}</h1>
				<p class="muted">{t('fields.intro')}</p>
			</header>
			{ENTITIES.map((entity) => (
				<Section key={entity} id={`fields-${entity}`} title={t(`fields.entity.${entity}`)}>
					<FieldList entity={entity} />
				</Section>
			))}
			<NewField />
		</div>
	);
}

function FieldList({ entity }: { entity: CustomFieldEntity }) {
	const fields = useCustomFields(entity);
	if (fields.error) return <Problem error={fields.error} retry={() => fields.refetch()} />;
	if (fields.data?.data.length === 0) return <p class="muted">{t('fields.none')}</p>;
	return (
		<ul class="plain field-definitions">
			{fields.data?.data.map((field) => (
				<FieldRow key={field.id} field={field} />
			))}
		</ul>
	);
}

function FieldRow({ field }: { field: CustomField }) {
	const { update, remove } = useCustomFieldChanges();
	const [editing, setEditing] = useState(false);
	const [label, setLabel] = useState(field.label);
	const [options, setOptions] = useState((field.options ?? []).join('\n'));
	const [required, setRequired] = useState(field.required);
	const problems = fieldProblems(update.error);
	const id = `cf-${field.id}`;
	const start = () => {
		setLabel(field.label);
		setOptions((field.options ?? []).join('\n'));
		setRequired(field.required);
		update.reset();
		setEditing(true);
	};
	return (
		<li class="field-definition" data-testid="custom-field" data-key={field.key}>
			<div class="member-row">
				<div class="who">
					<strong>{field.label}</strong> <code>{field.key}</code>
					<div class="muted small">
						{t(`fields.type.${field.type}`)}
						{field.options && ` · ${field.options.join(', ')}`}
						{field.required && ` · ${t('fields.required')}`}
					</div>
				</div>
				<div class="actions">
					<button type="button" aria-expanded={editing} onClick={() => (editing ? setEditing(false) : start())}>
						{t('fields.edit', { label: field.label })}
					</button>
					<button
						type="button"
						class="danger"
						disabled={remove.isPending}
						onClick={() => confirm(t('fields.deleteConfirm', { label: field.label })) && remove.mutate(field.id)}
					>
						{t('fields.delete', { label: field.label })}
					</button>
				</div>
			</div>
			{remove.error && <Problem error={remove.error} />}
			{editing && (
				<form
					class="field-edit-form"
					noValidate
					onSubmit={(event) => {
						event.preventDefault();
						const body = {
							label,
							required,
							...(field.type === 'select' ? { options: optionLines(options) } : {}),
						};
						update.mutate({ id: field.id, body }, { onSuccess: () => setEditing(false) });
					}}
				>
					<TextField
						id={`${id}-label`}
						label={t('fields.label')}
						value={label}
						onChange={setLabel}
						problem={problems.get('label')}
					/>
					{field.type === 'select' && (
						<OptionsField
							id={`${id}-options`}
							value={options}
							onChange={setOptions}
							problem={problemUnder(problems, 'options')}
						/>
					)}
					<RequiredBox checked={required} onChange={setRequired} />
					{update.error !== null && problems.size === 0 && <Problem error={update.error} />}
					<div class="actions">
						<button type="submit" class="primary" disabled={update.isPending}>
							{t('common.save')}
						</button>
						<button type="button" onClick={() => setEditing(false)}>
							{t('common.cancel')}
						</button>
					</div>
				</form>
			)}
		</li>
	);
}

function TextField(props: {
	id: string;
	label: string;
	value: string;
	problem: string | undefined;
	onChange(v: string): void;
}) {
	return (
		<div class="field">
			<label for={props.id}>{props.label}</label>
			<input
				id={props.id}
				value={props.value}
				onInput={(e) => props.onChange(e.currentTarget.value)}
				{...invalid(props.id, props.problem)}
			/>
			<FieldProblem id={props.id} message={props.problem} />
		</div>
	);
}

function RequiredBox(props: { checked: boolean; onChange(checked: boolean): void }) {
	return (
		<label class="inline">
			<input type="checkbox" checked={props.checked} onChange={(e) => props.onChange(e.currentTarget.checked)} />{' '}
			{t('fields.required')}
		</label>
	);
}

function OptionsField(props: { id: string; value: string; problem: string | undefined; onChange(v: string): void }) {
	return (
		<div class="field">
			<label for={props.id}>{t('fields.options')}</label>
			<textarea
				id={props.id}
				rows={4}
				value={props.value}
				onInput={(e) => props.onChange(e.currentTarget.value)}
				{...invalid(props.id, props.problem)}
			/>
			<FieldProblem id={props.id} message={props.problem} />
		</div>
	);
}

function NewField() {
	const { create } = useCustomFieldChanges();
	const [entity, setEntity] = useState<CustomFieldEntity>('contact');
	const [key, setKey] = useState('');
	const [label, setLabel] = useState('');
	const [type, setType] = useState<(typeof TYPES)[number]>('text');
	const [options, setOptions] = useState('');
	const [required, setRequired] = useState(false);
	const submit = useSubmit(async () => {
		await create.mutateAsync({
			entity,
			key,
			label,
			type,
			required,
			...(type === 'select' ? { options: optionLines(options) } : {}),
		});
		setKey('');
		setLabel('');
		setOptions('');
		setRequired(false);
	});
	const problems = fieldProblems(submit.error);
	const text = (id: string, name: 'key' | 'label', value: string, set: (v: string) => void) => (
		<TextField id={id} label={t(`fields.${name}`)} value={value} onChange={set} problem={problems.get(name)} />
	);
	return (
		<Section id="new-field" title={t('fields.create')}>
			<form
				noValidate
				onSubmit={(event) => {
					event.preventDefault();
					void submit.submit();
				}}
			>
				<div class="grid-2">
					<div class="field">
						<label for="new-field-entity">{t('fields.entity')}</label>
						<select
							id="new-field-entity"
							value={entity}
							onChange={(e) => setEntity(e.currentTarget.value as CustomFieldEntity)}
						>
							{ENTITIES.map((e) => (
								<option key={e} value={e}>
									{t(`fields.entity.${e}`)}
								</option>
							))}
						</select>
					</div>
					<div class="field">
						<label for="new-field-type">{t('fields.type')}</label>
						<select
							id="new-field-type"
							value={type}
							onChange={(e) => setType(e.currentTarget.value as (typeof TYPES)[number])}
						>
							{TYPES.map((ty) => (
								<option key={ty} value={ty}>
									{t(`fields.type.${ty}`)}
								</option>
							))}
						</select>
					</div>
					{text('new-field-key', 'key', key, setKey)}
					{text('new-field-label', 'label', label, setLabel)}
				</div>
				{type === 'select' && (
					<OptionsField
						id="new-field-options"
						value={options}
						onChange={setOptions}
						problem={problemUnder(problems, 'options')}
					/>
				)}
				<RequiredBox checked={required} onChange={setRequired} />
				{submit.error !== null && problems.size === 0 && <Problem error={submit.error} />}
				<div class="actions">
					<button type="submit" class="primary" disabled={submit.busy}>
						{t('fields.create.submit')}
					</button>
				</div>
			</form>
		</Section>
	);
}
