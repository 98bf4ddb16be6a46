/** What the search box sends for what a person typed (pure: no query client, so unit-tested alone). */
import { en as coreEn, pt as corePt } from '../words/core';

// The console names a contact it knows nothing of "Visitor 2PEKZ" (contactLabel): the API knows only the
// short id, so that label, in either language, is searched as its id.
const LABELS = [coreEn['contact.anonymous'], corePt['contact.anonymous']].map((label) =>
	(label ?? '').replace('{id}', '').trim().toLowerCase(),
);

/** What the API is asked for what a person typed: "Visitor 2PEKZ" becomes "2PEKZ". */
export function searchText(typed: string): string {
	const words = typed.trim().split(/\s+/);
	const [first, id] = words;
	if (words.length === 2 && first && id && LABELS.includes(first.toLowerCase()) && /^[0-9A-Z]{5}$/i.test(id)) return id;
	return typed.trim();
}
