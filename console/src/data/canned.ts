/**
 * The team's saved replies: the composer's `/shortcut` matches, the full list, their changes (each reads the
 * lists again), and one filled in for a conversation.
 */
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { keys } from './keys';
import { byCursor, cursor } from './paging';

/** The saved replies whose shortcut, title or text match what follows the `/`, best first. */
export function useCannedMatches(query: string | null) {
	return useQuery({
		queryKey: keys.canned.matches(query),
		queryFn: async () =>
			(await ok(api.GET('/v3/canned-replies', { params: { query: { limit: 8, ...(query ? { q: query } : {}) } } })))
				.data,
		enabled: query !== null,
		staleTime: 30_000,
		// The last list stays while the next one loads, so Enter picks from it rather than finding nothing.
		placeholderData: keepPreviousData,
	});
}

/** Every saved reply, 100 a page. */
export function useCannedReplies() {
	return useInfiniteQuery({
		queryKey: keys.canned.list,
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/canned-replies', {
					params: { query: { limit: 100, ...cursor(pageParam) } },
				}),
			),
		...byCursor,
	});
}

function useRefreshCanned() {
	const client = useQueryClient();
	return () => client.invalidateQueries({ queryKey: keys.canned.all });
}

export function useCreateCannedReply() {
	const refresh = useRefreshCanned();
	return useMutation({
		mutationFn: (body: Schemas['NewCannedReply']) => ok(api.POST('/v3/canned-replies', { body })),
		onSuccess: () => void refresh(),
	});
}

/** Saves a change to a reply (a field edited in place: the caller awaits it). */
export function useSaveCannedReply(id: string) {
	const refresh = useRefreshCanned();
	return async (body: Schemas['CannedReplyChanges']) => {
		await ok(api.PATCH('/v3/canned-replies/{id}', { params: { path: { id } }, body }));
		void refresh();
	};
}

export function useDeleteCannedReply(id: string) {
	const refresh = useRefreshCanned();
	return useMutation({
		mutationFn: () => ok(api.DELETE('/v3/canned-replies/{id}', { params: { path: { id } } })),
		onSuccess: refresh,
	});
}

/** A reply's text filled in for a conversation (its contact, its operator). */
export const renderCannedReply = (id: string, conversationId: string) =>
	ok(api.POST('/v3/canned-replies/{id}/render', { params: { path: { id } }, body: { conversationId } }));
