/**
 * Argument checks of the `kw` commands. Each returns the accepted value or throws a `CommandError` whose
 * message the loader logs once; a rejected command changes nothing.
 */
import type { CustomField, Details, RequiredField } from './api-types';

export class CommandError extends Error {}

export interface InitOptions {
	workspaceId: string;
	primaryColor?: string;
	backgroundColor?: string;
	textColor?: string;
	welcomeMessage?: string;
	ctaText?: string;
	/** `en` or `pt`; otherwise the browser's language, then the workspace default. */
	locale?: string;
	/** false: nothing is fetched or stored until `kw('start')` (after cookie consent, say). */
	autoStart?: boolean;
}

export interface FieldOptions {
	requiredFields?: RequiredField[];
	customFields?: CustomField[];
}

export interface Identity extends Details {
	customData?: Record<string, string | number | boolean | null>;
	/** The identity-verification JWT the site's backend signed (HS256). */
	jwt?: string;
}

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const PHONE = /^\+?[1-9]\d{7,14}$/;

type Check = (value: unknown) => boolean;

const text =
	(max: number): Check =>
	(v) =>
		typeof v === 'string' && v.length <= max;
const color: Check = (v) => typeof v === 'string' && HEX.test(v);

function record(value: unknown, what: string): Record<string, unknown> {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		throw new CommandError(`${what} must be an object`);
	}
	return value as Record<string, unknown>;
}

/** Checks every key of `value` against `shape`: unknown keys and wrong types are errors. */
function shaped(value: unknown, what: string, shape: Record<string, [Check, string]>) {
	const object = record(value, what);
	for (const [key, field] of Object.entries(object)) {
		const rule = shape[key];
		if (!rule) throw new CommandError(`${what} has no option "${key}" (known: ${Object.keys(shape).join(', ')})`);
		if (field !== undefined && !rule[0](field)) throw new CommandError(`${what}.${key} ${rule[1]}`);
	}
	return object;
}

const INIT: Record<keyof InitOptions, [Check, string]> = {
	workspaceId: [(v) => typeof v === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(v), 'must be your workspace id'],
	primaryColor: [color, 'must be a hex color such as #1f6feb'],
	backgroundColor: [color, 'must be a hex color such as #ffffff'],
	textColor: [color, 'must be a hex color such as #1f2328'],
	welcomeMessage: [text(1000), 'must be a string of at most 1000 characters'],
	ctaText: [text(80), 'must be a string of at most 80 characters'],
	locale: [text(35), 'must be a language tag such as "pt" or "en"'],
	autoStart: [(v) => typeof v === 'boolean', 'must be true or false'],
};

export function initOptions(value: unknown): InitOptions {
	const options = shaped(value, 'init options', INIT);
	if (options.workspaceId === undefined) throw new CommandError('init needs { workspaceId }');
	return options as unknown as InitOptions;
}

/**
 * The init options of the install without inline script, from the data attributes of widget.js's script
 * element (`data-workspace-id`, `data-primary-color`, `data-auto-start="false"`, ...). Only the options' own
 * names are read: other tools mark script elements with data attributes of their own.
 */
export function dataOptions(data: Record<string, string | undefined>): Record<string, unknown> {
	const options: Record<string, unknown> = {};
	for (const key of Object.keys(INIT)) {
		const value = data[key];
		if (value !== undefined) options[key] = key === 'autoStart' ? value !== 'false' : value;
	}
	return options;
}

function customField(value: unknown, index: number): CustomField {
	const what = `customFields[${index}]`;
	const field = shaped(value, what, {
		name: [(v) => typeof v === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(v), 'must be a field key'],
		label: [text(80), 'must be a string of at most 80 characters'],
		type: [(v) => v === 'text' || v === 'select', 'must be "text" or "select"'],
		options: [(v) => Array.isArray(v) && v.length > 0 && v.every(text(80)), 'must be a list of strings'],
		required: [(v) => typeof v === 'boolean', 'must be true or false'],
	});
	for (const key of ['name', 'label', 'type'])
		if (field[key] === undefined) throw new CommandError(`${what}.${key} is required`);
	if (field.type === 'select' && !field.options) throw new CommandError(`${what}.options is required for a select`);
	return { required: false, ...field } as CustomField;
}

export function fieldOptions(value: unknown): FieldOptions {
	const options = shaped(value, 'config options', {
		requiredFields: [
			(v) => Array.isArray(v) && v.every((f) => f === 'name' || f === 'email' || f === 'phone'),
			'must be a list of "name", "email", "phone"',
		],
		customFields: [(v) => Array.isArray(v) && v.length <= 20, 'must be a list of at most 20 fields'],
	});
	return {
		...(options.requiredFields ? { requiredFields: options.requiredFields as RequiredField[] } : {}),
		...(options.customFields ? { customFields: (options.customFields as unknown[]).map(customField) } : {}),
	};
}

export function identity(value: unknown): Identity {
	return shaped(value, 'identify', {
		name: [(v) => typeof v === 'string' && v.trim().length > 0 && v.length <= 200, 'must be a non-empty string'],
		email: [(v) => typeof v === 'string' && EMAIL.test(v), 'must be an e-mail address'],
		phone: [(v) => typeof v === 'string' && PHONE.test(v), 'must be digits with the country code, e.g. +5511999998888'],
		customData: [
			(v) =>
				typeof v === 'object' &&
				v !== null &&
				!Array.isArray(v) &&
				Object.values(v).every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x)),
			'must be an object of strings, numbers, booleans or null',
		],
		jwt: [text(4096), 'must be the JWT your backend signed'],
	}) as Identity;
}

export function openOptions(value: unknown): { message?: string } {
	if (value === undefined) return {};
	return shaped(value, 'open options', {
		message: [text(4000), 'must be a string of at most 4000 characters'],
	}) as { message?: string };
}

export const EVENTS = ['ready', 'open', 'close', 'message', 'conversation_started', 'unread'] as const;
export type EventName = (typeof EVENTS)[number];

export function eventName(value: unknown): EventName {
	if (!EVENTS.includes(value as EventName)) {
		throw new CommandError(`unknown event ${JSON.stringify(value)} (known: ${EVENTS.join(', ')})`);
	}
	return value as EventName;
}

export function callback(value: unknown): (payload?: unknown) => void {
	if (typeof value !== 'function') throw new CommandError('the callback must be a function');
	return value as (payload?: unknown) => void;
}
