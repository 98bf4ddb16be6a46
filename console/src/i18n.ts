/**
 * The console's words in English and Portuguese, chosen from the browser's languages (Portuguese for `pt-*`).
 * A key missing in Portuguese falls back to English; `t('key', { n: 3 })` fills `{n}`. The pages loaded as
 * chunks of their own (the builders, rules and assignment, reports) bring their words with them.
 */
import * as alerts from './words/alerts';
import type * as assignment from './words/assignment';
import * as attachments from './words/attachments';
import type * as builder from './words/builder';
import type * as builderFields from './words/builder-fields';
import * as core from './words/core';
import * as email from './words/email';
import * as flood from './words/flood';
import * as format from './words/format';
import type * as objects from './words/objects';
import * as records from './words/records';
import type * as reports from './words/reports';
import type * as rules from './words/rules';
import * as search from './words/search';
import * as settings from './words/settings';
import * as team from './words/team';
import * as whatsapp from './words/whatsapp';

/** The words every page may need, in the first load: their keys with the lazy pages' are the console's keys. */
const first = {
	...core.en,
	...records.en,
	...settings.en,
	...team.en,
	...flood.en,
	...email.en,
	...whatsapp.en,
	...attachments.en,
	...format.en,
	...search.en,
	...alerts.en,
};

/** The lazily loaded pages' words come with their chunk (`addWords`); only their keys are known here. */
type LaterKeys =
	| keyof typeof builder.en
	| keyof typeof builderFields.en
	| keyof typeof rules.en
	| keyof typeof assignment.en
	| keyof typeof reports.en
	| keyof typeof objects.en;
type Key = keyof typeof first | LaterKeys;

const en: Partial<Record<Key, string>> = { ...first };
const pt: Partial<Record<Key, string>> = {
	...core.pt,
	...records.pt,
	...settings.pt,
	...team.pt,
	...flood.pt,
	...email.pt,
	...whatsapp.pt,
	...attachments.pt,
	...format.pt,
	...search.pt,
	...alerts.pt,
};

/** A lazily loaded page's words, added when its chunk loads (before it renders anything). */
export function addWords(words: { en: Partial<Record<Key, string>>; pt: Partial<Record<Key, string>> }): void {
	Object.assign(en, words.en);
	Object.assign(pt, words.pt);
}

/**
 * A browser started under LANG=C (Chromium on Linux) says its language is `en-US@posix`, a tag Intl refuses:
 * a library that formats numbers in `navigator.language` as it loads (uPlot, on the Reports page) then throws
 * and leaves its page blank. Such a browser reads as the tag without its `@` part, or `en`.
 */
function usableLanguage(tag: string): string {
	for (const candidate of [tag, tag.split('@')[0] ?? '', 'en']) {
		try {
			new Intl.NumberFormat(candidate);
			return candidate;
		} catch {
			// Not a tag Intl knows: try the next one.
		}
	}
	return 'en';
}
const language = usableLanguage(navigator.language);
if (language !== navigator.language) Object.defineProperty(navigator, 'language', { value: language });

export const locale = navigator.languages.some((l) => l.toLowerCase().startsWith('pt')) ? 'pt' : 'en';
document.documentElement.lang = locale === 'pt' ? 'pt-BR' : 'en';

export function t(key: Key, values: Record<string, string | number> = {}): string {
	// A key whose page has not added its words yet reads as the key: visible, never a crash.
	const text = (locale === 'pt' ? pt[key] : undefined) ?? en[key] ?? key;
	return text.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ''));
}

const timeFormat = new Intl.DateTimeFormat(locale === 'pt' ? 'pt-BR' : 'en', {
	dateStyle: 'short',
	timeStyle: 'short',
});
export function when(iso: string): string {
	return timeFormat.format(new Date(iso));
}
