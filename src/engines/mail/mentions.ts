/**
 * Mentions in a private note: who on the team the note names. Two forms, both case-insensitive:
 *
 * - `@word`: a run of letters, digits, `.`, `_` and `-` after an `@` that does not follow a letter or digit
 *   (so `ada@example.com` in a note mentions nobody), matching a member whose e-mail local part is `word`,
 *   or whose name without its spaces is `word` (`@ada`, `@AdaLovelace`). A trailing `.`, `-` or `_` is
 *   punctuation, not part of the word ("ask @ada.").
 * - `@"Full Name"`: a member whose name is exactly that, spaces included (`@"Ada Lovelace"`).
 *
 * Pure: the note's text and the team's names in, the ids of the members it names out.
 */

/** A member as a mention can name it. */
export interface Mentionable {
	id: string;
	name: string;
	email: string;
}

const QUOTED = /(?<![\p{L}\p{N}])@"([^"\n]{1,100})"/gu;
const WORD = /(?<![\p{L}\p{N}@])@([\p{L}\p{N}._-]{1,64})/gu;

const fold = (text: string) => text.normalize('NFC').toLocaleLowerCase('en');
const compact = (name: string) => fold(name).replace(/\s+/g, '');
/** A name as `@"…"` can write it: no double quotes (they end the mention), spaces as one. */
const quotable = (name: string) => fold(name.replaceAll('"', '').replace(/\s+/g, ' ').trim());

/** The ids of the members `text` mentions, each once, in the team's order. */
export function mentionedMembers(text: string, members: readonly Mentionable[]): string[] {
	const names = new Set<string>();
	const words = new Set<string>();
	for (const match of text.matchAll(QUOTED)) names.add(quotable(match[1] ?? ''));
	for (const match of text.matchAll(WORD)) {
		const word = (match[1] ?? '').replace(/[._-]+$/, '');
		if (word !== '') words.add(fold(word));
	}
	if (names.size === 0 && words.size === 0) return [];
	return members
		.filter((member) => {
			const local = fold(member.email.slice(0, member.email.lastIndexOf('@')));
			return names.has(quotable(member.name)) || words.has(local) || words.has(compact(member.name));
		})
		.map((member) => member.id);
}
