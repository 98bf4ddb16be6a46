/** Lists the API reads a page at a time: its cursor, from the page before. */

/** The options every such list's infinite query shares: the first page has no cursor, the next one the API's. */
export const byCursor = {
	initialPageParam: '',
	getNextPageParam: (last: { nextCursor?: string | null }) => last.nextCursor ?? undefined,
};

/** The query's `cursor` for a page (none for the first). */
export const cursor = (pageParam: string) => (pageParam ? { cursor: pageParam } : {});
