/** The inbox's search: hits over messages and contacts, a page of 20 at a time, under the inbox's filters. */
import { useInfiniteQuery } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import type { paths } from '../api/schema';
import { keys } from './keys';
import { byCursor, cursor } from './paging';

export { searchText } from './search-text';

export type SearchHit = Schemas['SearchHit'];
type SearchQuery = NonNullable<paths['/v3/conversations/search']['get']['parameters']['query']>;

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
