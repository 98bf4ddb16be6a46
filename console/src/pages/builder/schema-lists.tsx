/**
 * The parts of a schema's form that hold several values: a choice among variants (a trigger's kinds), a list
 * (buttons, choices, branches, media) with move and remove buttons, and a record (headers, custom fields, a
 * response mapping) as name and value rows.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { TEMPLATE_RECORDS } from '../../../../src/model/step-links';
import { t } from '../../i18n';
import { en as fieldWords } from '../../words/builder-fields';
import { blank, type JsonSchema } from './schema';
import { type FieldProps, type FormParts, fieldLabel, humanize } from './schema-fields';
import { TemplateField } from './template-field';

/** One schema of several, chosen by its discriminator (`kind`, `type`…): a select, then the chosen one's fields. */
export function Variants(props: FieldProps & { id: string; variants: JsonSchema[]; parts: FormParts }) {
	const { ObjectFields } = props.parts;
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
				aria-label={fieldLabel(key)}
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
export function ListField(
	props: FieldProps & {
		id: string;
		items: JsonSchema;
		nullable: boolean;
		minItems?: number;
		maxItems?: number;
		parts: FormParts;
	},
) {
	const { Field } = props.parts;
	const list = Array.isArray(props.value) ? (props.value as unknown[]) : [];
	// The list's own bounds (10 buttons, 5 media, a branch at least): the API's, kept in the form.
	const canRemove = list.length > (props.minItems ?? 0);
	const canAdd = props.maxItems === undefined || list.length < props.maxItems;
	const set = (next: unknown[]) => props.onChange(next.length === 0 && !props.required ? undefined : next);
	const itemName = itemLabel(props.name);
	return (
		<div class="schema-list" id={props.id}>
			{list.map((item, i) => (
				<div class="schema-item" key={i}>
					<Field
						name={`${props.name}-item`}
						label={`${itemName} ${i + 1}`}
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
							aria-label={t('builder.moveUp', { what: `${itemName} ${i + 1}` })}
							disabled={i === 0}
							onClick={() => set(swap(list, i, i - 1))}
						>
							↑
						</button>
						<button
							type="button"
							aria-label={t('builder.moveDown', { what: `${itemName} ${i + 1}` })}
							disabled={i === list.length - 1}
							onClick={() => set(swap(list, i, i + 1))}
						>
							↓
						</button>
						<button
							type="button"
							aria-label={t('builder.remove', { what: `${itemName} ${i + 1}` })}
							disabled={!canRemove}
							onClick={() => set(list.filter((_, j) => j !== i))}
						>
							✕
						</button>
					</div>
				</div>
			))}
			{canAdd && (
				<button type="button" onClick={() => set([...list, blank(props.items)])}>
					{t('builder.add', { what: itemName.toLowerCase() })}
				</button>
			)}
		</div>
	);
}

/** One item of a list field in the console's language ("Choice", "Opção"), or its name made singular. */
function itemLabel(key: string): string {
	const word = `builder.item.${key}`;
	if (word in fieldWords) return t(word as keyof typeof fieldWords);
	const label = humanize(key);
	if (/(ch|sh|x|ss)es$/.test(label)) return label.slice(0, -2);
	if (/ies$/.test(label)) return `${label.slice(0, -3)}y`;
	return label.replace(/s$/, '');
}
const swap = <T,>(list: T[], a: number, b: number) => {
	const copy = [...list];
	[copy[a], copy[b]] = [copy[b] as T, copy[a] as T];
	return copy;
};

/**
 * A record (`headers`, `custom_fields`, `response`): name and value rows. The rows are the form's own, so a
 * name being typed may for a moment be empty or another row's; the record written keeps the rows with a name,
 * the last of a repeated one winning. A record changed from elsewhere (undo) brings its rows back.
 */
export function RecordField(props: FieldProps & { id: string }) {
	const toRows = (value: unknown) => Object.entries((value as Record<string, string> | undefined) ?? {});
	const [rows, setRows] = useState<Array<[string, string]>>(() => toRows(props.value));
	const written = useRef<unknown>(props.value);
	useEffect(() => {
		if (props.value === written.current) return;
		written.current = props.value;
		setRows(toRows(props.value));
	}, [props.value]);
	const set = (next: Array<[string, string]>) => {
		setRows(next);
		const named = next.filter(([key]) => key.trim() !== '');
		const record = named.length === 0 && !props.required ? undefined : Object.fromEntries(named);
		written.current = record;
		props.onChange(record);
	};
	const templates = TEMPLATE_RECORDS.has(props.name);
	return (
		<div class="schema-record" id={props.id}>
			{rows.map(([key, value], i) => (
				<div class="record-row" key={i}>
					<input
						aria-label={t('builder.recordKey', { n: i + 1 })}
						value={key}
						onInput={(e) => set(rows.map((row, j) => (j === i ? [e.currentTarget.value, row[1]] : row)))}
					/>
					{templates ? (
						<TemplateField
							id={`${props.id}-${i}`}
							value={String(value)}
							long={false}
							onChange={(text) => set(rows.map((row, j) => (j === i ? [row[0], text] : row)))}
							variables={props.ctx.variables}
							described={{ 'aria-label': t('builder.recordValue', { n: i + 1 }) }}
						/>
					) : (
						<input
							aria-label={t('builder.recordValue', { n: i + 1 })}
							value={String(value)}
							onInput={(e) => set(rows.map((row, j) => (j === i ? [row[0], e.currentTarget.value] : row)))}
						/>
					)}
					<button
						type="button"
						aria-label={t('builder.remove', { what: key || t('builder.recordKey', { n: i + 1 }) })}
						onClick={() => set(rows.filter((_, j) => j !== i))}
					>
						✕
					</button>
				</div>
			))}
			<button type="button" onClick={() => set([...rows, ['', '']])}>
				{t('builder.addEntry')}
			</button>
		</div>
	);
}
