/**
 * The note composer's `@` picker, its pure part (console/src/pages/mention-picker.tsx shows it): the word being
 * typed, the members it matches, and the mention written, in the form the server reads
 * (src/engines/mail/mentions.ts).
 */

/** A member a note can name: what the directory (`GET /v3/directory`) gives. */
export interface Mentionable {
	id: string;
	name: string;
}

/** The `@word` being typed just before the caret (after a space or at the start), or null. */
export function mentionQuery(text: string, caret: number): { start: number; word: string } | null {
	const match = /(?:^|\s)@([\p{L}\p{N}._-]*)$/u.exec(text.slice(0, caret));
	if (!match) return null;
	const word = match[1] ?? '';
	return { start: caret - word.length - 1, word };
}

const fold = (text: string) => text.normalize('NFC').toLocaleLowerCase('en');

/** The members whose name, or a word of it, starts with `word` (all of them for an empty one), at most 8. */
export function mentionMatches(word: string, members: readonly Mentionable[]): Mentionable[] {
	const wanted = fold(word);
	return members
		.filter((member) => {
			const name = fold(member.name);
			return name.replace(/\s+/g, '').startsWith(wanted) || name.split(/\s+/).some((part) => part.startsWith(wanted));
		})
		.slice(0, 8);
}

/**
 * How a note names a member so the server finds it (src/engines/mail/mentions.ts): `@Name` for a one-word
 * name, `@"Full Name"` otherwise.
 */
export function mentionText(name: string): string {
	const trimmed = name.trim();
	return /^[\p{L}\p{N}._-]+$/u.test(trimmed)
		? `@${trimmed}`
		: `@"${trimmed.replaceAll('"', '').replace(/\s+/g, ' ').trim()}"`;
}

/** `text` with the `@word` from `start` to `caret` replaced by the member's mention and a space. */
export function insertMention(text: string, start: number, caret: number, name: string) {
	const inserted = `${mentionText(name)} `;
	return { text: text.slice(0, start) + inserted + text.slice(caret), caret: start + inserted.length };
}
