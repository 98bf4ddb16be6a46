/**
 * A person's search words as SQLite FTS5 queries. Nothing a person types is FTS5 syntax: every word is
 * quoted (a quote inside doubled), so quotes, stars, `NEAR`, `AND`/`OR`/`NOT`, column filters (`body:`) and
 * unbalanced quotes are searched for as text and never make the query fail.
 */

/** The longest query accepted, in characters. */
export const MAX_SEARCH_LENGTH = 200;
/** Words beyond this many are ignored: each one is a lookup in the index. */
export const MAX_SEARCH_TERMS = 8;
/** The trigram index finds a substring of this many characters or more. */
const TRIGRAM = 3;

// A word that has no letter and no digit (a lone quote, a star, an emoji) indexes as nothing: dropped.
const WORDY = /[\p{L}\p{N}]/u;

/** The words of a query: split on white space, those with a letter or a digit, at most MAX_SEARCH_TERMS. */
export function searchTerms(query: string): string[] {
	return (
		query
			.normalize('NFKC')
			// A control character (NUL above all, which ends SQLite's copy of the query) is never a word's.
			.replace(/\p{Cc}/gu, ' ')
			.split(/\s+/u)
			.filter((word) => WORDY.test(word))
			.slice(0, MAX_SEARCH_TERMS)
	);
}

function quoted(term: string): string {
	return `"${term.replaceAll('"', '""')}"`;
}

/**
 * For the message index, whose columns are the text and the workspace: the workspace's rows whose text has every
 * term as a word prefix. A workspace id (`ws_` and a ULID) is two words of the index, and `ws` is in every row:
 * the query names only the ULID, a word no other workspace's rows have, so the index reads the workspace's own
 * entries. The terms name their column, so a word that looks like an id never matches one.
 *
 * @example inWorkspaceQuery('ws_01J8', ['refund']) // 'workspace_id : "01J8" AND body : "refund"*'
 */
export function inWorkspaceQuery(workspaceId: string, terms: readonly string[]): string {
	const own = workspaceId.replace(/^ws_/, '');
	return [`workspace_id : ${quoted(own)}`, ...terms.map((term) => `body : ${quoted(term)}*`)].join(' AND ');
}

/**
 * For the trigram index: every term of three characters or more as a substring, all of them required; null
 * when no term is that long (the index cannot look a shorter one up).
 */
export function substringQuery(terms: readonly string[]): string | null {
	const long = terms.filter((term) => [...term].length >= TRIGRAM);
	return long.length === 0 ? null : long.map(quoted).join(' ');
}

/** Where FTS5's `snippet()` and `highlight()` open and close a match: private-use characters no text needs. */
export const MARK_OPEN = '\uE000';
export const MARK_CLOSE = '\uE001';

/** A piece of a snippet: matched text or the text between matches. */
export interface SnippetPart {
	text: string;
	match: boolean;
}

/**
 * A snippet marked with MARK_OPEN/MARK_CLOSE as parts, so a client draws the matches as elements of their own
 * and never parses markup out of someone's message.
 */
export function snippetParts(marked: string): SnippetPart[] {
	const parts: SnippetPart[] = [];
	for (const [i, piece] of marked.split(MARK_OPEN).entries()) {
		const [inside, after] = i === 0 ? [null, piece] : splitOnce(piece, MARK_CLOSE);
		if (inside) parts.push({ text: inside, match: true });
		if (after) parts.push({ text: after, match: false });
	}
	return parts;
}

function splitOnce(text: string, separator: string): [string, string] {
	const at = text.indexOf(separator);
	return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + separator.length).replaceAll(separator, '')];
}
