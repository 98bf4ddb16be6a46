/** The inbox's search: hits over messages and contacts, a page of 20 at a time, under the inbox's filters. */
import { useInfiniteQuery } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import type { paths } from '../api/schema';
import { en as coreEn, pt as corePt } from '../words/core';
import { keys } from './keys';
import { byCursor, cursor } from './paging';

export type SearchHit = Schemas['SearchHit'];
type SearchQuery = NonNullable<paths['/v3/conversations/search']['get']['parameters']['query']>;

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

/** The hits for `q` (nothing is asked while it is empty), with the inbox's filters. */
export function useConversationSearch(q: string, filters: Omit<SearchQuery, 'q' | 'limit' | 'cursor'>) {
	return useInfiniteQuery({
		queryKey: keys.conversations.search({ q, ...filters }),
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/conversations/search', { params: { query: { ...filters, q, limit: 20, ...cursor(pageParam) } } }),
			),
		enabled: q.length > 0,
		...byCursor,
	});
}
