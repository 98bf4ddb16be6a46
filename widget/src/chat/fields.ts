/**
 * The pre-chat form (the workspace's required fields and custom fields; in offline mode also the e-mail the
 * team answers to) and its checks in the browser. The Worker checks the same rules again on start.
 */
import type { CustomField, Details, RequiredField, WidgetConfig } from '../api-types';
import { EMAIL, PHONE } from '../commands';
import type { Translate } from '../i18n';
import type { ChatWord } from './words';

export interface FormValues {
	details: Details;
	customFields: Record<string, string>;
}

interface Field {
	key: string;
	input: HTMLInputElement | HTMLSelectElement;
	error: HTMLElement;
	check(value: string): string | null;
	custom: boolean;
}

export class PrechatForm {
	readonly element: HTMLFormElement;
	private readonly fields: Field[] = [];

	/** `known` holds what `identify` already told (those fields are not asked again). */
	constructor(config: WidgetConfig, offline: boolean, known: Details, t: Translate<ChatWord>) {
		this.element = document.createElement('form');
		this.element.className = 'fields';
		this.element.noValidate = true;
		this.element.addEventListener('submit', (event) => event.preventDefault());
		const wanted = new Set<RequiredField>(config.requiredFields);
		if (offline) wanted.add('email');
		const builtIn: [RequiredField, string, string, (v: string) => string | null][] = [
			['name', t('name'), 'text', () => null],
			['email', t('email'), 'email', (v) => (EMAIL.test(v) ? null : t('invalidEmail'))],
			['phone', t('phone'), 'tel', (v) => (PHONE.test(v.replace(/[\s()-]/g, '')) ? null : t('invalidPhone'))],
		];
		for (const [key, label, type, check] of builtIn) {
			if (!wanted.has(key) || known[key]) continue;
			const input = document.createElement('input');
			input.type = type;
			input.autocomplete = key === 'phone' ? 'tel' : key;
			this.add(key, label, input, true, check, false);
		}
		for (const field of config.customFields) this.addCustom(field, t);
	}

	get empty(): boolean {
		return this.fields.length === 0;
	}

	private addCustom(field: CustomField, t: Translate<ChatWord>) {
		let input: HTMLInputElement | HTMLSelectElement;
		if (field.type === 'select') {
			input = document.createElement('select');
			input.add(new Option(t('choose'), ''));
			for (const option of field.options ?? []) input.add(new Option(option, option));
		} else {
			input = document.createElement('input');
			input.type = 'text';
			input.maxLength = 500;
		}
		this.add(field.name, field.label, input, field.required, () => null, true);
	}

	private add(
		key: string,
		text: string,
		input: HTMLInputElement | HTMLSelectElement,
		required: boolean,
		check: (value: string) => string | null,
		custom: boolean,
	) {
		const label = document.createElement('label');
		label.append(`${text}${required ? ' *' : ''}`, input);
		const error = document.createElement('span');
		error.className = 'error';
		error.id = `parley-error-${key}`;
		input.name = key;
		input.required = required;
		input.setAttribute('aria-describedby', error.id);
		label.append(error);
		this.element.append(label);
		const t = (value: string) => (required && !value ? 'required' : value ? check(value) : null);
		this.fields.push({ key, input, error, check: t, custom });
	}

	/** The values, or null after marking each bad field (focus goes to the first). */
	collect(t: Translate<ChatWord>): FormValues | null {
		const values: FormValues = { details: {}, customFields: {} };
		let firstBad: HTMLElement | null = null;
		for (const field of this.fields) {
			const value = field.input.value.trim();
			const problem = field.check(value);
			field.error.textContent = problem === 'required' ? t('required') : (problem ?? '');
			field.input.setAttribute('aria-invalid', String(problem !== null));
			if (problem) firstBad ??= field.input;
			else if (value && field.custom) values.customFields[field.key] = value;
			else if (value)
				values.details[field.key as keyof Details] = field.key === 'phone' ? value.replace(/[\s()-]/g, '') : value;
		}
		firstBad?.focus();
		return firstBad ? null : values;
	}
}
