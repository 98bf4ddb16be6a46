/**
 * Contacts: the searched list, one contact with the version it was read at (its edits send it back), its
 * edits in place, and merging a duplicate into it.
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ifMatch, ok, okVersioned, type Schemas, type Versioned } from '../api/client';
import type { paths } from '../api/schema';
import { keys } from './keys';
import { byCursor, cursor } from './paging';

type Contact = Schemas['ContactRecord'];
type ListQuery = NonNullable<paths['/v3/contacts']['get']['parameters']['query']>;

/** Contacts matching `query`, 50 a page. */
export function useContactList(query: Omit<ListQuery, 'limit' | 'cursor'>) {
	return useInfiniteQuery({
		queryKey: keys.contacts.list(query),
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/contacts', {
					params: { query: { ...query, limit: 50, ...cursor(pageParam) } },
				}),
			),
		...byCursor,
	});
}

/** A contact with the version it was read at (its ETag), which its edits send back as If-Match. */
export const loadContact = (id: string) => okVersioned(api.GET('/v3/contacts/{id}', { params: { path: { id } } }));

/**
 * The contact as its panel shows it. Not read again on focus: its fields are edited in place against the
 * version shown (ui/changed-elsewhere.tsx's `useShownVersion`).
 */
export function useContact(id: string) {
	return useQuery({ queryKey: keys.contact(id), queryFn: () => loadContact(id), refetchOnWindowFocus: false });
}

/** Shows `fresh` as the contact (a reload after a refused save). */
export function useShowContact(id: string) {
	const client = useQueryClient();
	return (fresh: Versioned<Contact>) => client.setQueryData(keys.contact(id), fresh);
}

/** Reads the contact again (after its tags changed). */
export function useRefreshContact(id: string) {
	const client = useQueryClient();
	return () => client.invalidateQueries({ queryKey: keys.contact(id) });
}

/**
 * Saves a change to the contact over the version `etag`; the answer is shown as is, and the conversation
 * lists (which show its name) are read again.
 */
export function useSaveContact(id: string) {
	const client = useQueryClient();
	return useMutation({
		mutationFn: ({ body, etag }: { body: Schemas['ContactChanges']; etag: string | null }) =>
			okVersioned(api.PATCH('/v3/contacts/{id}', { params: { path: { id } }, body, ...ifMatch(etag) })),
		onSuccess: (updated) => {
			client.setQueryData(keys.contact(id), updated);
			void client.invalidateQueries({ queryKey: keys.conversations.all });
		},
	});
}

/** The 8 contacts best matching `q` (asked once it has 2 characters): what a contact field offers as it is typed. */
export function useContactOptions(q: string) {
	return useQuery({
		queryKey: keys.contacts.options(q),
		queryFn: () => ok(api.GET('/v3/contacts', { params: { query: { q, limit: 8 } } })),
		enabled: q.length >= 2,
		staleTime: 30_000,
	});
}

/** The 5 contacts best matching `q`, offered to merge into `into` (asked once `q` has 2 characters). */
export function useMergeCandidates(q: string, into: string) {
	return useQuery({
		queryKey: keys.contacts.mergeCandidates(q, into),
		queryFn: () => ok(api.GET('/v3/contacts', { params: { query: { q, limit: 5 } } })),
		enabled: q.length >= 2,
	});
}

/** Merges a duplicate into `into`: the lists, the contact and the conversations (now its) are read again. */
export function useMergeContact(into: string) {
	const client = useQueryClient();
	return useMutation({
		mutationFn: (duplicateId: string) =>
			ok(api.POST('/v3/contacts/{id}/merge', { params: { path: { id: into } }, body: { duplicateId } })),
		onSuccess: () => {
			void client.invalidateQueries({ queryKey: keys.contacts.all });
			void client.invalidateQueries({ queryKey: keys.contact(into) });
			void client.invalidateQueries({ queryKey: keys.conversations.all });
		},
	});
}
