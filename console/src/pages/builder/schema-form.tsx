/**
 * A form drawn from a JSON Schema of the API: a step's fields (or a bot's trigger) with the API's own
 * descriptions as hints. Texts, numbers, switches and choices are plain inputs; lists get add, remove and
 * move buttons; records get key and value rows; a link is a picker among the steps (the keyboard's way to
 * draw an edge); a condition gets the condition editor; a template gets the variable picker. The problem the
 * API named for a field is shown under it.
 */
import type { ComponentChildren } from 'preact';
import { t } from '../../i18n';
import type { Fact } from '../rules/facts';
import { ConditionField } from './condition-field';
import { isLinkField, type JsonSchema, resolve } from './schema';
import { TemplateField } from './template-field';

export interface FormContext {
	/** The ids of the document's steps, for link pickers. */
	stepIds: string[];
	/** The variables a template at this step can read, for the picker. */
	variables: string[];
	/** Problems by field path (`validation.pattern`). */
	problems: Map<string, string>;
	/** Unique id prefix of this form's inputs. */
	idPrefix: string;
	/** Pickers for fields that hold an id: `operatorId` → the operators by name. */
	options?: Record<string, Array<{ value: string; label: string }>>;
	/** What a condition at this path may compare (a custom validation reads the answer and variables only). */
	facts?: (path: (string | number)[]) => Fact[];
}

type Path = (string | number)[];

/** "onRetriesExhausted" → "On retries exhausted"; "custom_fields" → "Custom fields". */
export function humanize(key: string): string {
	const words = key
		.replace(/_/g, ' ')
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.toLowerCase();
	return words.charAt(0).toUpperCase() + words.slice(1);
}

const typeOf = (s: JsonSchema) => (Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type);
const nullable = (s: JsonSchema) => Array.isArray(s.type) && s.type.includes('null');
const isCondition = (s: JsonSchema) => Boolean(s.$ref?.endsWith('/Condition')) || isConditionUnion(s);
const isConditionUnion = (s: JsonSchema) =>
	Boolean(s.anyOf?.some((o) => o.$ref?.endsWith('/ConditionLeaf')) && s.anyOf?.some((o) => o.properties?.all));

/** The fields of an object schema, each drawn by `Field`. */
export function ObjectFields(props: {
	schema: JsonSchema;
	value: Record<string, unknown>;
	onChange: (value: Record<string, unknown>) => void;
	path: Path;
	ctx: FormContext;
	skip?: string[];
}) {
	const schema = resolve(props.schema);
	const required = new Set(schema.required ?? []);
	return (
		<>
			{Object.entries(schema.properties ?? {}).map(([key, property]) => {
				if (props.skip?.includes(key)) return null;
				const set = (v: unknown) => {
					const next = { ...props.value };
					if (v === undefined) delete next[key];
					else next[key] = v;
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

interface FieldProps {
	name: string;
	schema: JsonSchema;
	value: unknown;
	required: boolean;
	onChange: (value: unknown) => void;
	path: Path;
	ctx: FormContext;
}

/** One field of a schema, labelled and hinted, with its problem. */
export function Field(props: FieldProps) {
	const { name, ctx } = props;
	const schema = resolve(props.schema);
	const id = `${ctx.idPrefix}-${props.path.join('-')}`;
	const problem = ctx.problems.get(props.path.join('.'));
	const label = humanize(name);
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
		if (props.value === undefined && optional) {
			return wrap(
				<button
					id={id}
					type="button"
					onClick={() =>
						props.onChange({
							all: [{ fact: ctx.facts?.(props.path)[0]?.path ?? 'answer', operator: 'eq', value: '' }],
						})
					}
				>
					{t('builder.addCondition')}
				</button>,
				false,
				false,
			);
		}
		return wrap(
			<div id={id} class="condition-box">
				<ConditionField
					id={id}
					value={props.value}
					onChange={props.onChange}
					path={props.path.join('.')}
					facts={ctx.facts?.(props.path) ?? []}
					problems={ctx.problems}
				/>
				{optional && (
					<button type="button" class="link-button" onClick={() => props.onChange(undefined)}>
						{t('builder.removeCondition')}
					</button>
				)}
			</div>,
			false,
			false,
		);
	}
	const variants = schema.oneOf ?? schema.anyOf;
	if (variants?.every((v) => typeOf(resolve(v)) === 'object')) {
		return wrap(<Variants {...props} id={id} variants={variants.map(resolve)} />);
	}
	const options = ctx.options?.[name];
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
				<ListField {...props} id={id} items={schema.items ? resolve(schema.items) : {}} nullable={nullable(schema)} />,
			);
		case 'object': {
			if (schema.properties) {
				if (props.value === undefined && optional) {
					return wrap(
						<button id={id} type="button" onClick={() => props.onChange({})}>
							{t('builder.add', { what: label.toLowerCase() })}
						</button>,
						false,
						false,
					);
				}
				return wrap(
					<fieldset id={id} class="schema-object">
						<ObjectFields
							schema={schema}
							value={(props.value as Record<string, unknown>) ?? {}}
							onChange={props.onChange}
							path={props.path}
							ctx={ctx}
						/>
						{optional && (
							<button type="button" class="link-button" onClick={() => props.onChange(undefined)}>
								{t('builder.remove', { what: label.toLowerCase() })}
							</button>
						)}
					</fieldset>,
				);
			}
			return wrap(<RecordField {...props} id={id} />);
		}
		default: {
			const text = typeof props.value === 'string' ? props.value : '';
			const set = (v: string) => props.onChange(v === '' && optional ? undefined : v);
			const long = (schema.maxLength ?? 0) >= 1000;
			// A builder's own name for a step is no template; short texts (a button's label) are plain fields too.
			if (name === 'id' || name === 'title' || schema.pattern || (schema.maxLength ?? 0) <= 60) {
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

/** One schema of several, chosen by its discriminator (`kind`, `type`…): a select, then the chosen one's fields. */
function Variants(props: FieldProps & { id: string; variants: JsonSchema[] }) {
	const key =
		Object.keys(props.variants[0]?.properties ?? {}).find((k) =>
			props.variants.every((v) => v.properties?.[k]?.enum?.length === 1),
		) ?? 'kind';
	const current = (props.value as Record<string, unknown> | undefined) ?? {};
	const index = Math.max(
		0,
		props.variants.findIndex((v) => v.properties?.[key]?.enum?.[0] === current[key]),
	);
	const chosen = props.variants[index] as JsonSchema;
	return (
		<fieldset class="schema-object" id={props.id}>
			<select
				aria-label={humanize(key)}
				value={String(index)}
				onChange={(e) => {
					const variant = props.variants[Number(e.currentTarget.value)];
					props.onChange({ [key]: variant?.properties?.[key]?.enum?.[0] });
				}}
			>
				{props.variants.map((v, i) => (
					<option key={String(v.properties?.[key]?.enum?.[0])} value={String(i)}>
						{v.properties?.[key]?.description ?? String(v.properties?.[key]?.enum?.[0])}
					</option>
				))}
			</select>
			<ObjectFields
				schema={chosen}
				value={current}
				onChange={props.onChange}
				path={props.path}
				ctx={props.ctx}
				skip={[key]}
			/>
		</fieldset>
	);
}

/** A list: each item its own field, with move and remove buttons, and an add button under them. */
function ListField(props: FieldProps & { id: string; items: JsonSchema; nullable: boolean }) {
	const list = Array.isArray(props.value) ? (props.value as unknown[]) : [];
	const set = (next: unknown[]) => props.onChange(next.length === 0 && !props.required ? undefined : next);
	const label = humanize(props.name);
	return (
		<div class="schema-list" id={props.id}>
			{list.map((item, i) => (
				<div class="schema-item" key={i}>
					<Field
						name={`${singular(props.name)} ${i + 1}`}
						schema={props.items}
						value={item}
						required
						onChange={(v) => set(list.map((old, j) => (j === i ? v : old)))}
						path={[...props.path, i]}
						ctx={props.ctx}
					/>
					<div class="item-actions">
						<button
							type="button"
							aria-label={t('builder.moveUp', { what: `${singular(label)} ${i + 1}` })}
							disabled={i === 0}
							onClick={() => set(swap(list, i, i - 1))}
						>
							↑
						</button>
						<button
							type="button"
							aria-label={t('builder.moveDown', { what: `${singular(label)} ${i + 1}` })}
							disabled={i === list.length - 1}
							onClick={() => set(swap(list, i, i + 1))}
						>
							↓
						</button>
						<button
							type="button"
							aria-label={t('builder.remove', { what: `${singular(label)} ${i + 1}` })}
							onClick={() => set(list.filter((_, j) => j !== i))}
						>
							✕
						</button>
					</div>
				</div>
			))}
			{(props.items.maxItems === undefined || list.length < (props.items.maxItems ?? 0)) && (
				<button type="button" onClick={() => set([...list, blankItem(props.items)])}>
					{t('builder.add', { what: singular(label).toLowerCase() })}
				</button>
			)}
		</div>
	);
}

function blankItem(schema: JsonSchema): unknown {
	const type = typeOf(schema);
	if (type === 'object') {
		const value: Record<string, unknown> = {};
		for (const key of schema.required ?? []) {
			const p = schema.properties?.[key] ? resolve(schema.properties[key] as JsonSchema) : {};
			value[key] = p.enum ? p.enum[0] : typeOf(p) === 'number' || typeOf(p) === 'integer' ? 0 : '';
		}
		return value;
	}
	if (schema.enum) return schema.enum[0];
	return type === 'number' || type === 'integer' ? 0 : '';
}

/** "Branches" → "Branch", "Choices" → "Choice", "Entries" → "Entry": an item of a list field. */
const singular = (label: string) => {
	if (/(ch|sh|x|ss)es$/.test(label)) return label.slice(0, -2);
	if (/ies$/.test(label)) return `${label.slice(0, -3)}y`;
	return label.replace(/s$/, '');
};
const swap = <T,>(list: T[], a: number, b: number) => {
	const copy = [...list];
	[copy[a], copy[b]] = [copy[b] as T, copy[a] as T];
	return copy;
};

/** A record (`headers`, `custom_fields`, `response`): key and value rows. */
function RecordField(props: FieldProps & { id: string }) {
	const record = (props.value as Record<string, string> | undefined) ?? {};
	const entries = Object.entries(record);
	const set = (next: Array<[string, string]>) =>
		props.onChange(next.length === 0 && !props.required ? undefined : Object.fromEntries(next));
	return (
		<div class="schema-record" id={props.id}>
			{entries.map(([key, value], i) => (
				<div class="record-row" key={i}>
					<input
						aria-label={t('builder.recordKey', { n: i + 1 })}
						value={key}
						onInput={(e) => set(entries.map((en, j) => (j === i ? [e.currentTarget.value, en[1]] : en)))}
					/>
					<input
						aria-label={t('builder.recordValue', { n: i + 1 })}
						value={String(value)}
						onInput={(e) => set(entries.map((en, j) => (j === i ? [en[0], e.currentTarget.value] : en)))}
					/>
					<button
						type="button"
						aria-label={t('builder.remove', { what: key })}
						onClick={() => set(entries.filter((_, j) => j !== i))}
					>
						✕
					</button>
				</div>
			))}
			<button type="button" onClick={() => set([...entries, [entries.some(([k]) => k === '') ? ' ' : '', '']])}>
				{t('builder.addEntry')}
			</button>
		</div>
	);
}
