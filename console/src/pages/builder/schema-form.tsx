/**
 * A form drawn from a JSON Schema of the API: a step's fields (or a bot's trigger) with the API's own
 * descriptions as hints. Texts, numbers, switches and choices are plain inputs; lists get add, remove and
 * move buttons; records get key and value rows; a link is a picker among the steps (the keyboard's way to
 * draw an edge); a condition gets the condition editor; a template gets the variable picker. The problem the
 * API named for a field is shown under it.
 */
import type { ComponentChildren } from 'preact';
import { t } from '../../i18n';
import { ChoiceChecks, ChoiceOrTemplate } from './choice-field';
import { ConditionField } from './condition-field';
import { applies, isLinkField, type JsonSchema, resolve } from './schema';
import { type FieldProps, type FormParts, fieldLabel, type ObjectFieldsProps } from './schema-fields';
import { ListField, RecordField, Variants } from './schema-lists';
import { TemplateField } from './template-field';

const SECRETS = new Set(['token', 'password', 'secret', 'apiKey']);

const typeOf = (s: JsonSchema) => (Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type);
const nullable = (s: JsonSchema) => Array.isArray(s.type) && s.type.includes('null');
const isCondition = (s: JsonSchema) => Boolean(s.$ref?.endsWith('/Condition')) || isConditionUnion(s);
const isConditionUnion = (s: JsonSchema) =>
	Boolean(s.anyOf?.some((o) => o.$ref?.endsWith('/ConditionLeaf')) && s.anyOf?.some((o) => o.properties?.all));

/** Whether a text field is a template (with the variable picker) rather than a plain input. */
function isTemplateText(name: string, schema: JsonSchema): boolean {
	// A builder's own name for a step is no template; short texts (a button's label) are plain fields too.
	return !(name === 'id' || name === 'title' || schema.pattern || (schema.maxLength ?? 0) <= 60);
}

/** The fields of an object schema, each drawn by `Field`. */
export function ObjectFields(props: ObjectFieldsProps) {
	const schema = resolve(props.schema);
	const required = new Set(schema.required ?? []);
	const properties = Object.entries(schema.properties ?? {});
	return (
		<>
			{properties.map(([key, property]) => {
				if (props.skip?.includes(key) || !applies(schema, property, props.value)) return null;
				const set = (v: unknown) => {
					const next = { ...props.value };
					if (v === undefined) delete next[key];
					else next[key] = v;
					// A field this change leaves meaningless (the choices of what is no longer a button question) goes
					// with it, as it goes from the form: the document says what the form shows. Undo brings it back.
					for (const [other, otherSchema] of properties) {
						const left = applies(schema, otherSchema, props.value) && !applies(schema, otherSchema, next);
						if (other in next && left) delete next[other];
					}
					props.onChange(next);
				};
				return (
					<Field
						key={key}
						name={key}
						schema={property}
						value={props.value[key]}
						required={required.has(key)}
						onChange={set}
						path={[...props.path, key]}
						ctx={props.ctx}
					/>
				);
			})}
		</>
	);
}

/** One field of a schema, labelled and hinted, with its problem. */
export function Field(props: FieldProps) {
	const { name, ctx } = props;
	const schema = resolve(props.schema);
	const id = `${ctx.idPrefix}-${props.path.join('-')}`;
	const problem = ctx.problems.get(props.path.join('.'));
	const label = props.label ?? fieldLabel(name);
	const described = problem ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-problem` } : {};
	// A button that adds an optional part names itself ("Add validation"): its label is no <label for>.
	const wrap = (control: ComponentChildren, inline = false, labelled = true) => (
		<div class={`schema-field${inline ? ' inline' : ''}${problem ? ' has-problem' : ''}`}>
			<div class="field-head">
				<label for={labelled ? id : undefined}>{label}</label>
				{props.required && (
					<span class="required-mark" title={t('builder.required')} aria-hidden="true">
						*
					</span>
				)}
			</div>
			{control}
			{schema.description && <small class="hint">{schema.description}</small>}
			{problem && (
				<p class="field-problem" id={`${id}-problem`}>
					{problem}
				</p>
			)}
		</div>
	);
	const optional = !props.required;
	/**
	 * An optional part (a validation, a condition): while absent, a button that adds it as `initial()`; once
	 * there, its controls with a link that takes it away.
	 */
	const part = (
		addText: string,
		removeText: string,
		initial: () => unknown,
		controls: (remove: ComponentChildren) => ComponentChildren,
	) => {
		if (props.value === undefined && optional) {
			return wrap(
				<button id={id} type="button" onClick={() => props.onChange(initial())}>
					{addText}
				</button>,
				false,
				false,
			);
		}
		const remove = optional && (
			<button type="button" class="link-button" onClick={() => props.onChange(undefined)}>
				{removeText}
			</button>
		);
		return wrap(controls(remove), false, false);
	};

	if (isLinkField(name) && typeOf(schema) === 'string') {
		return wrap(
			<select
				id={id}
				value={typeof props.value === 'string' ? props.value : ''}
				onChange={(e) => props.onChange(e.currentTarget.value || undefined)}
				{...described}
			>
				<option value="">{t('builder.noLink')}</option>
				{ctx.stepIds.map((stepId) => (
					<option key={stepId} value={stepId}>
						{stepId}
					</option>
				))}
				{typeof props.value === 'string' && props.value && !ctx.stepIds.includes(props.value) && (
					<option value={props.value}>{t('builder.missingStep', { id: props.value })}</option>
				)}
			</select>,
		);
	}
	if (isCondition(props.schema) || isCondition(schema)) {
		return part(
			t('builder.addCondition'),
			t('builder.removeCondition'),
			() => ({ all: [{ fact: ctx.facts?.(props.path)[0]?.path ?? 'answer', operator: 'eq', value: '' }] }),
			(remove) => (
				<div id={id} class="condition-box">
					<ConditionField
						id={id}
						value={props.value}
						onChange={props.onChange}
						path={props.path.join('.')}
						facts={ctx.facts?.(props.path) ?? []}
						problems={ctx.problems}
					/>
					{remove}
				</div>
			),
		);
	}
	const variants = schema.oneOf ?? schema.anyOf;
	// A text or an object (a button as its label alone, or with its own link): edited in full, the text read as
	// the object's first required field, so every item of the list has the same form and its link picker.
	const full = variants?.length === 2 ? variants.map(resolve).find((v) => typeOf(v) === 'object') : undefined;
	const short = full?.required?.[0];
	if (full && short && variants?.some((v) => typeOf(resolve(v)) === 'string')) {
		return wrap(
			<fieldset id={id} class="schema-object">
				<ObjectFields
					schema={full}
					value={
						typeof props.value === 'string'
							? { [short]: props.value }
							: ((props.value as Record<string, unknown>) ?? {})
					}
					onChange={props.onChange}
					path={props.path}
					ctx={ctx}
				/>
			</fieldset>,
			false,
			false,
		);
	}
	if (variants?.every((v) => typeOf(resolve(v)) === 'object')) {
		return wrap(<Variants {...props} id={id} variants={variants.map(resolve)} parts={PARTS} />);
	}
	const options = ctx.options?.[name];
	if (options && typeOf(schema) === 'string' && isTemplateText(name, schema)) {
		return wrap(
			<ChoiceOrTemplate
				id={id}
				label={label}
				value={typeof props.value === 'string' ? props.value : ''}
				choices={options}
				onChange={(v) => props.onChange(v === '' && optional ? undefined : v)}
				variables={ctx.variables}
				described={described}
			/>,
		);
	}
	if (options && typeOf(schema) === 'array' && typeOf(resolve(schema.items ?? {})) === 'string') {
		const list = Array.isArray(props.value) ? props.value.map(String) : [];
		return wrap(
			<ChoiceChecks
				id={id}
				label={label}
				value={list}
				choices={options}
				onChange={(v) => props.onChange(v.length === 0 && optional ? undefined : v)}
			/>,
			false,
			false,
		);
	}
	if (options && typeOf(schema) === 'string') {
		return wrap(
			<select
				id={id}
				value={typeof props.value === 'string' ? props.value : ''}
				onChange={(e) => props.onChange(e.currentTarget.value || undefined)}
				{...described}
			>
				<option value="">—</option>
				{options.map((o) => (
					<option key={o.value} value={o.value}>
						{o.label}
					</option>
				))}
			</select>,
		);
	}
	if (schema.enum) {
		return wrap(
			<select
				id={id}
				value={props.value === undefined ? '' : String(props.value)}
				onChange={(e) => props.onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
				{...described}
			>
				{(optional || props.value === undefined) && <option value="">—</option>}
				{schema.enum.map((option) => (
					<option key={String(option)} value={String(option)}>
						{String(option)}
					</option>
				))}
			</select>,
		);
	}
	switch (typeOf(schema)) {
		case 'boolean':
			return wrap(
				<input
					id={id}
					type="checkbox"
					checked={props.value === undefined ? schema.default === true : props.value === true}
					onChange={(e) => props.onChange(e.currentTarget.checked)}
					{...described}
				/>,
				true,
			);
		case 'number':
		case 'integer':
			return wrap(
				<input
					id={id}
					type="number"
					step={typeOf(schema) === 'integer' ? 1 : 'any'}
					min={schema.minimum}
					max={schema.maximum}
					placeholder={schema.default === undefined ? '' : String(schema.default)}
					value={typeof props.value === 'number' ? props.value : ''}
					onInput={(e) => {
						const raw = e.currentTarget.value;
						props.onChange(raw === '' ? undefined : Number(raw));
					}}
					{...described}
				/>,
			);
		case 'array':
			return wrap(
				<ListField
					{...props}
					id={id}
					items={schema.items ? resolve(schema.items) : {}}
					nullable={nullable(schema)}
					minItems={props.required ? schema.minItems : undefined}
					maxItems={schema.maxItems}
					parts={PARTS}
				/>,
			);
		case 'object': {
			if (schema.properties) {
				return part(
					t('builder.add', { what: label.toLowerCase() }),
					t('builder.remove', { what: label.toLowerCase() }),
					() => ({}),
					(remove) => (
						<fieldset id={id} class="schema-object">
							<ObjectFields
								schema={schema}
								value={(props.value as Record<string, unknown>) ?? {}}
								onChange={props.onChange}
								path={props.path}
								ctx={ctx}
							/>
							{remove}
						</fieldset>
					),
				);
			}
			return wrap(<RecordField {...props} id={id} />);
		}
		default: {
			const text = typeof props.value === 'string' ? props.value : '';
			const set = (v: string) => props.onChange(v === '' && optional ? undefined : v);
			const long = (schema.maxLength ?? 0) >= 1000;
			// A credential is never shown as typed, nor sent to a preview.
			if (SECRETS.has(name)) {
				return wrap(
					<input
						id={id}
						type="password"
						autocomplete="off"
						value={text}
						maxLength={schema.maxLength}
						onInput={(e) => set(e.currentTarget.value)}
						{...described}
					/>,
				);
			}
			if (!isTemplateText(name, schema)) {
				return wrap(
					<input
						id={id}
						value={text}
						maxLength={schema.maxLength}
						onInput={(e) => set(e.currentTarget.value)}
						{...described}
					/>,
				);
			}
			return wrap(
				<TemplateField
					id={id}
					value={text}
					long={long}
					onChange={set}
					variables={ctx.variables}
					described={described}
				/>,
			);
		}
	}
}

/** This form's renderers, handed to its lists and variants to draw their items with. */
const PARTS: FormParts = { Field, ObjectFields };
