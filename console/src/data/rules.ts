/**
 * Automation rules: the list (its key is also the prefix of each rule's), one rule with the version it was
 * read at, their changes, and their executions.
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ifMatch, ok, okVersioned, type Schemas, type Versioned } from '../api/client';
import { keys } from './keys';
import { byCursor, cursor } from './paging';

type Rule = Schemas['AutomationRule'];
type Status = Schemas['AutomationRuleExecution']['status'];

export function useRules() {
	return useQuery({ queryKey: keys.rules.all, queryFn: () => ok(api.GET('/v3/automation-rules')) });
}

/** A rule with the version it was read at. */
export const loadRule = (id: string) => okVersioned(api.GET('/v3/automation-rules/{id}', { params: { path: { id } } }));

/** The rule `id` (none while `id` is null: a new rule). */
export function useRule(id: string | null) {
	return useQuery({ queryKey: keys.rules.one(id), queryFn: () => loadRule(id ?? ''), enabled: id !== null });
}

/** Shows `fresh` as the rule (a reload after a refused save). */
export function useShowRule() {
	const client = useQueryClient();
	return (fresh: Versioned<Rule>) => client.setQueryData(keys.rules.one(fresh.id), fresh);
}

function useRefreshRules() {
	const client = useQueryClient();
	return () => client.invalidateQueries({ queryKey: keys.rules.all });
}

/** Creates a rule (every rule's read is stale then: the list and each one under its prefix). */
export function useCreateRule() {
	const refresh = useRefreshRules();
	return async (body: Schemas['NewAutomationRule']) => {
		const created = await ok(api.POST('/v3/automation-rules', { body }));
		await refresh();
		return created;
	};
}

/** Saves a rule over the version `etag`: the answer is shown as the rule, and the list alone is read again. */
export function useSaveRule(id: string) {
	const client = useQueryClient();
	return async (body: Schemas['AutomationRuleChanges'], etag: string | null) => {
		const updated = await okVersioned(
			api.PATCH('/v3/automation-rules/{id}', { params: { path: { id } }, body, ...ifMatch(etag) }),
		);
		client.setQueryData(keys.rules.one(id), updated);
		await client.invalidateQueries({ queryKey: keys.rules.all, exact: true });
		return updated;
	};
}

/** Turns the rule on or off, copies it (disabled; the copy goes to `opened`), or deletes it. */
export function useRuleChanges(id: string, opened: (copy: Rule) => void) {
	const refresh = useRefreshRules();
	const path = { params: { path: { id } } };
	return {
		toggle: useMutation({
			mutationFn: (enabled: boolean) => ok(api.PATCH('/v3/automation-rules/{id}', { ...path, body: { enabled } })),
			onSuccess: refresh,
		}),
		duplicate: useMutation({
			mutationFn: (body: Schemas['NewAutomationRule']) => ok(api.POST('/v3/automation-rules', { body })),
			onSuccess: async (copy) => {
				await refresh();
				opened(copy);
			},
		}),
		remove: useMutation({
			mutationFn: () => ok(api.DELETE('/v3/automation-rules/{id}', path)),
			onSuccess: refresh,
		}),
	};
}

/** The workspace's latest executions (one page of 100), for the rules list's counts. */
export function useRecentExecutions() {
	return useQuery({
		queryKey: keys.rules.recentExecutions,
		queryFn: () => ok(api.GET('/v3/automation-rules/executions', { params: { query: { limit: 100 } } })),
		refetchInterval: 30_000,
	});
}

/** A rule's executions with `status` (all: ''), 50 a page, read again every 5 s. */
export function useRuleExecutions(ruleId: string, status: Status | '') {
	return useInfiniteQuery({
		queryKey: keys.rules.executions(ruleId, status),
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/automation-rules/executions', {
					params: {
						query: { ruleId, limit: 50, ...(status ? { status } : {}), ...cursor(pageParam) },
					},
				}),
			),
		...byCursor,
		refetchInterval: 5_000,
	});
}
