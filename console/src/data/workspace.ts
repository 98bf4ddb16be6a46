/**
 * Data most pages share, read once and cached: the workspace's directory (names of operators, groups, bots
 * to start, custom field labels), its tags and its funnels; and tagging a conversation or a contact.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { t } from '../i18n';
import { keys } from './keys';

export type Directory = Schemas['Directory'];

export function useDirectory() {
	return useQuery({
		queryKey: keys.directory,
		queryFn: () => ok(api.GET('/v3/directory')),
		staleTime: 5 * 60_000,
	});
}

/** The workspace's tags, by name (the first 100: enough for a picker; typing a new name creates one). */
export function useTags() {
	return useQuery({
		queryKey: keys.tags,
		queryFn: async () => (await ok(api.GET('/v3/tags', { params: { query: { limit: 100 } } }))).data,
		staleTime: 60_000,
	});
}

/** The workspace's funnels with their stages, for the pickers of a stage (rules, their actions, deal steps). */
export function useFunnels() {
	return useQuery({
		queryKey: keys.funnels,
		queryFn: async () => (await ok(api.GET('/v3/funnels'))).data,
		staleTime: 60_000,
	});
}

/**
 * The funnels as the deals board reads them (up to 100). The same key as `useFunnels`, which reads them
 * without a limit: whichever page reads them first fills the cache for both, as before this module.
 */
export function useBoardFunnels() {
	return useQuery({
		queryKey: keys.funnels,
		queryFn: async () => (await ok(api.GET('/v3/funnels', { params: { query: { limit: 100 } } }))).data,
	});
}

/** A tag on a conversation or a contact, by name. */
export type TagTarget = { kind: 'conversation' | 'contact'; id: string; name: string };

function tagRequest(method: 'PUT' | 'DELETE', target: TagTarget) {
	const params = { params: { path: { id: target.id, name: target.name } } };
	if (target.kind === 'conversation')
		return method === 'PUT'
			? api.PUT('/v3/conversations/{id}/tags/{name}', params)
			: api.DELETE('/v3/conversations/{id}/tags/{name}', params);
	return method === 'PUT'
		? api.PUT('/v3/contacts/{id}/tags/{name}', params)
		: api.DELETE('/v3/contacts/{id}/tags/{name}', params);
}

/**
 * Adds (PUT) or removes (DELETE) a tag. An added name may be a new tag of the workspace, so its tags are read
 * again; the record's own refresh is the caller's (`onChanged`: a conversation and a contact keep theirs apart).
 */
export function useTagChange(target: (name: string) => TagTarget, onChanged: (method: 'PUT' | 'DELETE') => void) {
	const client = useQueryClient();
	return useMutation({
		mutationFn: ({ method, name }: { method: 'PUT' | 'DELETE'; name: string }) => ok(tagRequest(method, target(name))),
		onSuccess: (_, { method }) => {
			if (method === 'PUT') void client.invalidateQueries({ queryKey: keys.tags });
			onChanged(method);
		},
	});
}

/** An operator's name, or a short form of the id while the directory loads or for someone unknown. */
export function operatorName(directory: Directory | undefined, id: string | null | undefined): string {
	if (!id) return t('common.nobody');
	return directory?.operators.find((o) => o.id === id)?.name ?? `…${id.slice(-6)}`;
}

export function groupName(directory: Directory | undefined, id: string | null | undefined): string {
	if (!id) return t('common.none');
	return directory?.groups.find((g) => g.id === id)?.name ?? `…${id.slice(-6)}`;
}

/** What to call a contact: its name, else its e-mail or phone, else "Visitor" and the end of its id. */
export function contactLabel(contact: { id: string; name: string | null; email: string | null; phone: string | null }) {
	return contact.name ?? contact.email ?? contact.phone ?? t('contact.anonymous', { id: contact.id.slice(-5) });
}
