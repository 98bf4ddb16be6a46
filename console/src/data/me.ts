/** Settings › Integrations › API: the signed-in operator's API token, and the workspace's API log. */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import type { paths } from '../api/schema';
import { keys } from './keys';
import { byCursor, cursor } from './paging';

type LogQuery = NonNullable<paths['/v3/api-logs']['get']['parameters']['query']>;

export function useMe() {
	return useQuery({ queryKey: keys.me, queryFn: () => ok(api.GET('/v3/me')) });
}

/** Issues my Token V3 anew (the old one is refused at once): my token's age and the API log change with it. */
export function useRegenerateToken() {
	const client = useQueryClient();
	return useMutation({
		mutationFn: () => ok(api.POST('/v3/tokens/regenerate')),
		onSuccess: () => {
			void client.invalidateQueries({ queryKey: keys.me });
			void client.invalidateQueries({ queryKey: keys.apiLogs.all });
		},
	});
}

/** The workspace's API log for `query`, newest first, 50 a page. */
export function useApiLog(query: Omit<LogQuery, 'limit' | 'cursor'>) {
	return useInfiniteQuery({
		queryKey: keys.apiLogs.list(query),
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/api-logs', {
					params: { query: { ...query, limit: 50, ...cursor(pageParam) } },
				}),
			),
		...byCursor,
	});
}
