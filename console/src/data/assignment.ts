/**
 * Auto-assignment: its rules (ordered by priority), one rule with the version it was read at, their changes
 * (each reads the rules again), the queue of conversations waiting for an operator, and the members'
 * capacities. (The capacities are the team's, but kept here: a module shared by this page's chunk and the
 * settings' would be a chunk of its own, and split the first load's code in two.)
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ifMatch, ok, okVersioned, type Schemas, type Versioned } from '../api/client';
import { keys } from './keys';

type AssignmentRule = Schemas['AssignmentRule'];

export function useAssignmentRules() {
	return useQuery({ queryKey: keys.assignment.rules, queryFn: () => ok(api.GET('/v3/assignment/rules')) });
}

function useRefreshAssignmentRules() {
	const client = useQueryClient();
	return () => client.invalidateQueries({ queryKey: keys.assignment.rules });
}

/** Gives rules their new priorities, one after the other; the rules are read again however it ended. */
export function useReprioritize() {
	const refresh = useRefreshAssignmentRules();
	return useMutation({
		mutationFn: async (changes: Array<{ id: string; priority: number }>) => {
			for (const change of changes) {
				await ok(
					api.PATCH('/v3/assignment/rules/{id}', {
						params: { path: { id: change.id } },
						body: { priority: change.priority },
					}),
				);
			}
		},
		onSettled: refresh,
	});
}

/** Turns the rule on or off, or deletes it. */
export function useAssignmentRuleChanges(id: string) {
	const refresh = useRefreshAssignmentRules();
	const path = { params: { path: { id } } };
	return {
		toggle: useMutation({
			mutationFn: (enabled: boolean) => ok(api.PATCH('/v3/assignment/rules/{id}', { ...path, body: { enabled } })),
			onSuccess: refresh,
		}),
		remove: useMutation({
			mutationFn: () => ok(api.DELETE('/v3/assignment/rules/{id}', path)),
			onSuccess: refresh,
		}),
	};
}

/** A rule with the version it was read at (its ETag). */
export const loadAssignmentRule = (id: string) =>
	okVersioned(api.GET('/v3/assignment/rules/{id}', { params: { path: { id } } }));

/** The rule `id`, not kept once its form closes: opened again, it reads the rule again. */
export function useAssignmentRule(id: string) {
	return useQuery({ queryKey: keys.assignment.rule(id), queryFn: () => loadAssignmentRule(id), gcTime: 0 });
}

/** Shows `fresh` as the rule (a reload after a refused save). */
export function useShowAssignmentRule() {
	const client = useQueryClient();
	return (fresh: Versioned<AssignmentRule>) => client.setQueryData(keys.assignment.rule(fresh.id), fresh);
}

/** Saves the rule `id` over the version `etag` (a new rule: `id` null), then reads the rules again. */
export function useSaveAssignmentRule(id: string | null) {
	const refresh = useRefreshAssignmentRules();
	return async (body: Schemas['NewAssignmentRule'], etag: string | null) => {
		if (id) {
			await ok(api.PATCH('/v3/assignment/rules/{id}', { params: { path: { id } }, body, ...ifMatch(etag) }));
		} else {
			await ok(api.POST('/v3/assignment/rules', { body }));
		}
		await refresh();
	};
}

/** The conversations waiting for an operator (read again every 10 seconds). */
export function useAssignmentQueue() {
	return useQuery({
		queryKey: keys.assignment.queue,
		queryFn: () => ok(api.GET('/v3/assignment/queue')),
		refetchInterval: 10_000,
	});
}

/**
 * The members still enabled, for their capacities: a key of its own beside data/team.ts's `useTeamMembers`
 * (which reads the disabled too), under the same prefix, so a capacity saved reads either list again.
 */
export function useEnabledMembers() {
	return useQuery({
		queryKey: keys.team.membersOf('enabled'),
		queryFn: () => ok(api.GET('/v3/team/members', { params: { query: { limit: 100, disabled: 'false' } } })),
	});
}

/** Saves a member's capacity (the assignment page), then reads the members again. */
export function useSaveCapacity(id: string) {
	const client = useQueryClient();
	return async (capacity: number | null) => {
		await ok(api.PATCH('/v3/team/members/{id}', { params: { path: { id } }, body: { capacity } }));
		await client.invalidateQueries({ queryKey: keys.team.members });
	};
}
