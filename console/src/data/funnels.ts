/**
 * Funnels and their stages (the deals page's Manage funnels): created, renamed, reordered and deleted. Every
 * change answers the funnel as it now is, which replaces it in the cached list the board and the pickers
 * read, before the list is read again.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { keys } from './keys';

type Funnel = Schemas['Funnel'];

export function useFunnelChanges() {
	const client = useQueryClient();
	const show = (funnel: Funnel) => {
		client.setQueryData<Funnel[]>(keys.funnels, (all) => all?.map((f) => (f.id === funnel.id ? funnel : f)));
		void client.invalidateQueries({ queryKey: keys.funnels });
	};
	const refresh = () => client.invalidateQueries({ queryKey: keys.funnels });
	const at = (id: string) => ({ params: { path: { id } } });
	const stage = (id: string, stageId: string) => ({ params: { path: { id, stageId } } });
	return {
		create: useMutation({
			mutationFn: (body: Schemas['NewFunnel']) => ok(api.POST('/v3/funnels', { body })),
			onSuccess: refresh,
		}),
		rename: useMutation({
			mutationFn: ({ id, name }: { id: string; name: string }) =>
				ok(api.PATCH('/v3/funnels/{id}', { ...at(id), body: { name } })),
			onSuccess: show,
		}),
		reorder: useMutation({
			mutationFn: ({ id, stageOrder }: { id: string; stageOrder: string[] }) =>
				ok(api.PATCH('/v3/funnels/{id}', { ...at(id), body: { stageOrder } })),
			onSuccess: show,
		}),
		remove: useMutation({
			mutationFn: (id: string) => ok(api.DELETE('/v3/funnels/{id}', at(id))),
			onSuccess: async () => {
				await refresh();
				await client.invalidateQueries({ queryKey: keys.deals.all });
			},
		}),
		addStage: useMutation({
			mutationFn: ({ id, name }: { id: string; name: string }) =>
				ok(api.POST('/v3/funnels/{id}/stages', { ...at(id), body: { name } })),
			onSuccess: show,
		}),
		renameStage: useMutation({
			mutationFn: ({ id, stageId, name }: { id: string; stageId: string; name: string }) =>
				ok(api.PATCH('/v3/funnels/{id}/stages/{stageId}', { ...stage(id, stageId), body: { name } })),
			onSuccess: show,
		}),
		removeStage: useMutation({
			mutationFn: ({ id, stageId, moveDealsTo }: { id: string; stageId: string; moveDealsTo: string }) =>
				ok(
					api.DELETE('/v3/funnels/{id}/stages/{stageId}', {
						params: { path: { id, stageId }, query: moveDealsTo ? { moveDealsTo } : {} },
					}),
				),
			onSuccess: (funnel) => {
				show(funnel);
				void client.invalidateQueries({ queryKey: keys.deals.all });
			},
		}),
	};
}

/** `order` with the item at `from` moved to `to` (both from 0). */
export function moved<T>(order: readonly T[], from: number, to: number): T[] {
	const next = [...order];
	const [item] = next.splice(from, 1);
	if (item !== undefined) next.splice(to, 0, item);
	return next;
}
