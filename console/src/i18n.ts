/**
 * The console's words in English and Portuguese, chosen from the browser's languages (Portuguese for `pt-*`).
 * A key missing in Portuguese falls back to English; `t('key', { n: 3 })` fills `{n}`.
 */
import * as assignment from './words/assignment';
import * as builder from './words/builder';
import * as core from './words/core';
import * as records from './words/records';
import * as reports from './words/reports';
import * as rules from './words/rules';
import * as settings from './words/settings';
import * as team from './words/team';

/** Every area's words, English first: its keys are the console's keys. */
const en = {
	...core.en,
	...records.en,
	...settings.en,
	...team.en,
	...builder.en,
	...rules.en,
	...assignment.en,
	...reports.en,
};

type Key = keyof typeof en;

const pt: Partial<Record<Key, string>> = {
	...core.pt,
	...records.pt,
	...settings.pt,
	...team.pt,
	...builder.pt,
	...rules.pt,
	...assignment.pt,
	...reports.pt,
};

export const locale = navigator.languages.some((l) => l.toLowerCase().startsWith('pt')) ? 'pt' : 'en';
document.documentElement.lang = locale === 'pt' ? 'pt-BR' : 'en';

export function t(key: Key, values: Record<string, string | number> = {}): string {
	const text = (locale === 'pt' ? pt[key] : undefined) ?? en[key];
	return text.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ''));
}

const timeFormat = new Intl.DateTimeFormat(locale === 'pt' ? 'pt-BR' : 'en', {
	dateStyle: 'short',
	timeStyle: 'short',
});
export function when(iso: string): string {
	return timeFormat.format(new Date(iso));
}
