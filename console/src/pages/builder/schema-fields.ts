/**
 * What the schema form (schema-form.tsx) and its lists, records and variants (schema-lists.tsx) share: the
 * form's context, a field's props, and a field's label. The lists draw their items with the form's own
 * `Field` and `ObjectFields`, handed to them as props (`FormParts`) rather than imported, so the two modules
 * do not import each other.
 */
import type { JSX } from 'preact';
import { t } from '../../i18n';
import { en as fieldWords } from '../../words/builder-fields';
import type { Fact } from '../rules/facts';
import type { JsonSchema } from './schema';

export interface FormContext {
	/** The ids of the document's steps, for link pickers. */
	stepIds: string[];
	/** The variables a template at this step can read, for the picker. */
	variables: string[];
	/** Problems by field path (`validation.pattern`). */
	problems: Map<string, string>;
	/** Unique id prefix of this form's inputs. */
	idPrefix: string;
	/**
	 * Pickers for fields that hold an id, by the field's name: `operatorId` → the operators by name; a template
	 * field keeps "a template or variable" among them, a list of ids is a set of checkboxes.
	 */
	options?: Record<string, Array<{ value: string; label: string }>>;
	/** What a condition at this path may compare (a custom validation reads the answer and variables only). */
	facts?: (path: (string | number)[]) => Fact[];
}

export type Path = (string | number)[];

/** "onRetriesExhausted" → "On retries exhausted"; "custom_fields" → "Custom fields". */
export function humanize(key: string): string {
	const words = key
		.replace(/_/g, ' ')
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.toLowerCase();
	return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A field's name in the console's language ("Typing seconds", "Segundos digitando"), or its property spaced. */
export function fieldLabel(key: string): string {
	const word = `builder.field.${key}`;
	return word in fieldWords ? t(word as keyof typeof fieldWords) : humanize(key);
}

/** Fields that hold a credential (an integration's token, a basic auth's password). */

export interface FieldProps {
	name: string;
	/** What the field is called on screen, when not its name's (a list's item: "Choice 2"). */
	label?: string;
	schema: JsonSchema;
	value: unknown;
	required: boolean;
	onChange: (value: unknown) => void;
	path: Path;
	ctx: FormContext;
}

export type ObjectFieldsProps = {
	schema: JsonSchema;
	value: Record<string, unknown>;
	onChange: (value: Record<string, unknown>) => void;
	path: Path;
	ctx: FormContext;
	skip?: string[];
};

/** The form's own renderers, for the lists to draw their items and a variant's fields with. */
export interface FormParts {
	Field: (props: FieldProps) => JSX.Element;
	ObjectFields: (props: ObjectFieldsProps) => JSX.Element;
}
