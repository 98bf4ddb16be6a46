/**
 * The team (Settings › Team): members, groups, presence and sessions.
 * Every change reads the team again (`keys.team.all`), since a member's change shows in groups and back.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { keys } from './keys';

export function useTeamMembers() {
	return useQuery({
		queryKey: keys.team.membersOf('all'),
		queryFn: () => ok(api.GET('/v3/team/members', { params: { query: { limit: 100 } } })),
	});
}

export function useTeamGroups() {
	return useQuery({
		queryKey: keys.team.groups,
		queryFn: () => ok(api.GET('/v3/team/groups', { params: { query: { limit: 100 } } })),
	});
}

/** Everyone's presence, read again every 30 s (the inbox feed carries changes, this page reads the state). */
export function useTeamPresence() {
	return useQuery({
		queryKey: keys.team.presence,
		queryFn: () => ok(api.GET('/v3/team/presence')),
		refetchInterval: 30_000,
	});
}

function useRefreshTeam() {
	const client = useQueryClient();
	return () => client.invalidateQueries({ queryKey: keys.team.all });
}

/** Adds a member (invited, or an API user); the team is read again meanwhile. */
export function useAddMember() {
	const refresh = useRefreshTeam();
	return async (body: Schemas['NewOperator']) => {
		const member = await ok(api.POST('/v3/team/members', { body }));
		void refresh();
		return member;
	};
}

/** Saves a member's changes (name, permissions, groups, capacity, disabled), then reads the team again. */
export function useSaveMember(id: string) {
	const refresh = useRefreshTeam();
	return async (body: Schemas['OperatorChanges']) => {
		await ok(api.PATCH('/v3/team/members/{id}', { params: { path: { id } }, body }));
		await refresh();
	};
}

export function useRemoveMember(id: string) {
	const refresh = useRefreshTeam();
	return useMutation({
		mutationFn: () => ok(api.DELETE('/v3/team/members/{id}', { params: { path: { id } } })),
		onSuccess: refresh,
	});
}

/** A one-time link for the member to set a password (valid 7 days), to hand over. */
export const passwordLink = (id: string) =>
	ok(api.POST('/v3/team/members/{id}/password-link', { params: { path: { id } } }));

/** A new password link for the member, handed to `show`. */
export function usePasswordLink(id: string, show: (link: Schemas['PasswordLink']) => void) {
	return useMutation({ mutationFn: () => passwordLink(id), onSuccess: show });
}

/** The API user's Token V3, shown once. */
export const memberToken = (id: string) => ok(api.POST('/v3/team/members/{id}/token', { params: { path: { id } } }));

export function useCreateGroup() {
	const refresh = useRefreshTeam();
	return async (name: string) => {
		await ok(api.POST('/v3/team/groups', { body: { name } }));
		await refresh();
	};
}

export function useSaveGroup(id: string) {
	const refresh = useRefreshTeam();
	return async (body: { name: string; memberIds: string[] }) => {
		await ok(api.PATCH('/v3/team/groups/{id}', { params: { path: { id } }, body }));
		await refresh();
	};
}

export function useRemoveGroup(id: string) {
	const refresh = useRefreshTeam();
	return useMutation({
		mutationFn: () => ok(api.DELETE('/v3/team/groups/{id}', { params: { path: { id } } })),
		onSuccess: refresh,
	});
}

/** A member's console sessions still in use. */
export function useMemberSessions(operatorId: string) {
	return useQuery({
		queryKey: keys.team.sessions(operatorId),
		queryFn: () => ok(api.GET('/v3/team/sessions', { params: { query: { operatorId, active: 'true', limit: 100 } } })),
	});
}

/** Ends a session (refused from its next request); the member's sessions are read again. */
export function useRevokeSession(operatorId: string) {
	const client = useQueryClient();
	return useMutation({
		mutationFn: (id: string) => ok(api.DELETE('/v3/team/sessions/{id}', { params: { path: { id } } })),
		onSuccess: () => client.invalidateQueries({ queryKey: keys.team.sessions(operatorId) }),
	});
}
