/**
 * The CRM: deals (the board's, a contact's, one deal with its notes) and the operator's tasks. A deal's edits
 * and moves apply to the version read (If-Match), so one made over someone else's change is refused.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, changedElsewhere, ifMatch, ok, okVersioned, type Schemas, type Versioned } from '../api/client';
import { t } from '../i18n';
import { keys } from './keys';

type Deal = Schemas['Deal'];
type Funnel = Schemas['Funnel'];

/** The most open deals a board shows per funnel (the API's pages, read until there are no more). */
const BOARD_LIMIT = 500;

async function openDeals(funnelId: string): Promise<Deal[]> {
	const all: Deal[] = [];
	let cursor: string | undefined;
	do {
		const page = await ok(
			api.GET('/v3/deals', {
				params: { query: { funnelId, status: 'open', limit: 100, ...(cursor ? { cursor } : {}) } },
			}),
		);
		all.push(...page.data);
		cursor = page.nextCursor ?? undefined;
	} while (cursor && all.length < BOARD_LIMIT);
	return all;
}

/** The funnel's open deals, for its board (read once a funnel is chosen). */
export function useBoardDeals(funnel: Funnel | undefined) {
	return useQuery({
		queryKey: keys.deals.board(funnel?.id),
		queryFn: () => openDeals(funnel?.id ?? ''),
		enabled: Boolean(funnel),
	});
}

/**
 * Moves a deal's card to another stage of `funnel`'s board. The move applies to the deal as its card shows
 * it: the list carries no version of each deal, so the deal's own read gives it (its ETag), but only while it
 * is still the one drawn (the same `updatedAt`); a deal changed since is refused like a 412 from the API, and
 * the board is drawn again.
 */
export function useMoveDeal(funnel: Funnel | undefined) {
	const client = useQueryClient();
	const boardKey = keys.deals.board(funnel?.id);
	return useMutation({
		mutationFn: async ({ deal, stageId }: { deal: Deal; stageId: string }) => {
			const current = await loadDeal(deal.id);
			if (current.updatedAt !== deal.updatedAt) throw new ApiError(412, t('common.changedElsewhere'));
			const at = { params: { path: { id: deal.id } } };
			const moved = await okVersioned(
				api.PATCH('/v3/deals/{id}', { ...at, body: { stage: stageId }, ...ifMatch(current.etag) }),
			);
			client.setQueryData(keys.deal(deal.id), moved);
			// The card takes the deal as moved, so a next move of it before the board is read again is not taken
			// for someone else's change.
			const { etag: _version, ...now } = moved;
			client.setQueryData<Deal[]>(boardKey, (all) => all?.map((d) => (d.id === deal.id ? now : d)));
		},
		// The card moves at once; a refusal puts back that card alone (other moves made meanwhile stay), with the
		// API's message. A refetch already on its way is cancelled first, or it would draw the board from before.
		onMutate: async ({ deal, stageId }) => {
			await client.cancelQueries({ queryKey: boardKey });
			const stage = funnel?.stages.find((s) => s.id === stageId);
			const moveTo = (to: Deal['stage']) =>
				client.setQueryData<Deal[]>(boardKey, (all) => all?.map((d) => (d.id === deal.id ? { ...d, stage: to } : d)));
			if (stage) moveTo({ ...deal.stage, id: stage.id, name: stage.name });
			return { undo: () => moveTo(deal.stage) };
		},
		onError: (error, { deal }, context) => {
			context?.undo();
			if (changedElsewhere(error)) void client.invalidateQueries({ queryKey: keys.deal(deal.id) });
		},
		onSettled: () => client.invalidateQueries({ queryKey: keys.deals.all }),
	});
}

/** Creates a deal; the boards and the contact's deals are read again. */
export function useCreateDeal() {
	const client = useQueryClient();
	return useMutation({
		mutationFn: (body: Schemas['NewDeal']) => ok(api.POST('/v3/deals', { body })),
		onSuccess: () => client.invalidateQueries({ queryKey: keys.deals.all }),
	});
}

/** A contact's latest deals (10), read when `enabled` (the operator may see the CRM). */
export function useContactDeals(contactId: string, enabled: boolean) {
	return useQuery({
		queryKey: keys.deals.ofContact(contactId),
		queryFn: () => ok(api.GET('/v3/deals', { params: { query: { contactId, limit: 10 } } })),
		enabled,
	});
}

/** A deal with the version it was read at (its ETag), which its edits send back as If-Match. */
export const loadDeal = (id: string) => okVersioned(api.GET('/v3/deals/{id}', { params: { path: { id } } }));

/** The deal beside the board; not read again on focus, since its fields are edited in place. */
export function useDeal(id: string) {
	return useQuery({ queryKey: keys.deal(id), queryFn: () => loadDeal(id), refetchOnWindowFocus: false });
}

/** Shows `fresh` as the deal (a reload after a refused edit). */
export function useShowDeal(id: string) {
	const client = useQueryClient();
	return (fresh: Versioned<Deal>) => client.setQueryData(keys.deal(id), fresh);
}

/** Saves a change to the deal over the version `etag`; the answer is shown, and the boards read again. */
export function useSaveDeal(id: string) {
	const client = useQueryClient();
	return useMutation({
		mutationFn: ({ body, etag }: { body: Schemas['DealChanges']; etag: string | null }) =>
			okVersioned(api.PATCH('/v3/deals/{id}', { params: { path: { id } }, body, ...ifMatch(etag) })),
		onSuccess: (updated) => {
			client.setQueryData(keys.deal(id), updated);
			void client.invalidateQueries({ queryKey: keys.deals.all });
		},
	});
}

export function useDealNotes(id: string) {
	return useQuery({
		queryKey: keys.dealNotes(id),
		queryFn: () => ok(api.GET('/v3/deals/{id}/notes', { params: { path: { id }, query: { limit: 50 } } })),
	});
}

export function useAddDealNote(id: string) {
	const client = useQueryClient();
	return useMutation({
		mutationFn: (text: string) => ok(api.POST('/v3/deals/{id}/notes', { params: { path: { id } }, body: { text } })),
		onSuccess: () => void client.invalidateQueries({ queryKey: keys.dealNotes(id) }),
	});
}

/** The end of today in this browser's time zone: "due today" includes everything overdue. */
function endOfToday(): string {
	const end = new Date();
	end.setHours(23, 59, 59, 999);
	return end.toISOString();
}

/** My open tasks due today or overdue. */
export function useTasksToday() {
	return useQuery({
		queryKey: keys.tasks.today,
		queryFn: () =>
			ok(
				api.GET('/v3/tasks', {
					params: { query: { assigneeId: 'me', done: 'false', dueBefore: endOfToday(), limit: 100 } },
				}),
			),
	});
}

export function useTaskDone() {
	const client = useQueryClient();
	return useMutation({
		mutationFn: (id: string) => ok(api.PATCH('/v3/tasks/{id}', { params: { path: { id } }, body: { done: true } })),
		onSuccess: () => client.invalidateQueries({ queryKey: keys.tasks.all }),
	});
}
