/**
 * Conversations: the inbox's lists, one conversation, what an operator changes on it (assignee, group,
 * status, tags), its bots' runs, and the earlier pages of its messages (the newest come over its socket).
 */
import { infiniteQueryOptions, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import type { paths } from '../api/schema';
import { keys } from './keys';
import { byCursor, cursor } from './paging';

type Conversation = Schemas['ConversationWithContact'];
export type ConversationChanges = {
	status?: 'open' | 'pending' | 'closed';
	assigneeId?: string | null;
	groupId?: string | null;
	/** Snooze until this instant (ISO 8601): pending until then; null ends the snooze. */
	snoozedUntil?: string | null;
};
/** The inbox's filters as the list endpoint takes them. */
type ListQuery = NonNullable<paths['/v3/conversations']['get']['parameters']['query']>;

/** The inbox's list for `query`, a page of 100 at a time, with each row's contact and last message. */
export function conversationListQuery(query: Omit<ListQuery, 'include' | 'limit' | 'cursor'>) {
	return infiniteQueryOptions({
		queryKey: keys.conversations.list(query),
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/conversations', {
					params: {
						query: {
							...query,
							include: 'contact,lastMessage',
							limit: 100,
							...cursor(pageParam),
						},
					},
				}),
			),
		...byCursor,
	});
}

export function useConversationList(query: Omit<ListQuery, 'include' | 'limit' | 'cursor'>) {
	return useInfiniteQuery(conversationListQuery(query));
}

/** Reads every list of conversations again (the inbox's and a contact's): after a change the feed told of. */
export function useRefreshConversationLists() {
	const client = useQueryClient();
	return () => void client.invalidateQueries({ queryKey: keys.conversations.all });
}

/** A contact's latest conversations (10), each with its last message: the contact panel's list. */
export function useContactConversations(contactId: string) {
	return useQuery({
		queryKey: keys.conversations.ofContact(contactId),
		queryFn: () =>
			ok(api.GET('/v3/conversations', { params: { query: { contactId, limit: 10, include: 'lastMessage' } } })),
	});
}

export function useConversation(id: string) {
	return useQuery({
		queryKey: keys.conversation(id),
		queryFn: () => ok(api.GET('/v3/conversations/{id}', { params: { path: { id } } })),
	});
}

/**
 * After a change to the conversation: the one it answered with is shown as is (none: it is read again), and
 * the lists are read again, since the change may move it in or out of one.
 */
export function useConversationChanged(id: string) {
	const client = useQueryClient();
	return (updated?: Conversation) => {
		if (updated) client.setQueryData(keys.conversation(id), updated);
		else void client.invalidateQueries({ queryKey: keys.conversation(id) });
		void client.invalidateQueries({ queryKey: keys.conversations.all });
	};
}

/** Assigns, moves to a group, closes or reopens the conversation. */
export function useChangeConversation(id: string) {
	const changed = useConversationChanged(id);
	return useMutation({
		mutationFn: (body: ConversationChanges) =>
			ok(api.PATCH('/v3/conversations/{id}', { params: { path: { id } }, body })),
		onSuccess: (updated) => changed(updated as Conversation),
	});
}

/** What the conversation's bots did, read once `enabled` (when its list is opened). */
export function useBotRuns(conversationId: string, enabled: boolean) {
	return useQuery({
		queryKey: keys.botRuns(conversationId),
		queryFn: () => ok(api.GET('/v3/conversations/{id}/bot-runs', { params: { path: { id: conversationId } } })),
		enabled,
	});
}

/** Starts a bot on the conversation by hand; its runs are read again. */
export function useStartBot(conversationId: string) {
	const client = useQueryClient();
	return useMutation({
		mutationFn: (botId: string) =>
			ok(api.POST('/v3/conversations/{id}/bot', { params: { path: { id: conversationId } }, body: { botId } })),
		onSuccess: () => client.invalidateQueries({ queryKey: keys.botRuns(conversationId) }),
	});
}

/** The `limit` messages before `before` (a seq): a page the conversation's socket did not bring. */
export const messagesBefore = (id: string, before: number, limit: number) =>
	ok(api.GET('/v3/conversations/{id}/messages', { params: { path: { id }, query: { before, limit } } }));
