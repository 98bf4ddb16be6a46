/**
 * Data most pages share, read once and cached: the workspace's directory (names of operators, groups, bots
 * to start, custom field labels), its tags and its funnels.
 */
import { useQuery } from '@tanstack/react-query';
import { t } from '../i18n';
import { api, ok, type Schemas } from './client';

export type Directory = Schemas['Directory'];

export function useDirectory() {
	return useQuery({
		queryKey: ['directory'],
		queryFn: () => ok(api.GET('/v3/directory')),
		staleTime: 5 * 60_000,
	});
}

/** The workspace's tags, by name (the first 100: enough for a picker; typing a new name creates one). */
export function useTags() {
	return useQuery({
		queryKey: ['tags'],
		queryFn: async () => (await ok(api.GET('/v3/tags', { params: { query: { limit: 100 } } }))).data,
		staleTime: 60_000,
	});
}

/** The workspace's funnels with their stages, for the pickers of a stage (rules, their actions, deal steps). */
export function useFunnels() {
	return useQuery({
		queryKey: ['funnels'],
		queryFn: async () => (await ok(api.GET('/v3/funnels'))).data,
		staleTime: 60_000,
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
