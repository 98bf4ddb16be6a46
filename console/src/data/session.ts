/**
 * The signed-in session: read once, dropped by any 401, replaced by signing in (or setting a password) and
 * by signing out; and the signed-in operator's status for the team.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'preact/hooks';
import type { PresenceStatus } from '../../../src/model/presence';
import { ApiError, api, forgetBookmark, ok, onSignedOut, type Schemas, setCsrfToken } from '../api/client';
import { keys } from './keys';

export type ConsoleSession = Schemas['ConsoleSession'];
type WorkspaceChoice = Schemas['WorkspaceChoice']['workspaces'];

/** Reads the signed-in session: null when signed out. */
export async function readSession(): Promise<ConsoleSession | null> {
	try {
		return await ok(api.GET('/v3/auth/session'));
	} catch (error) {
		if (error instanceof ApiError && error.status === 401) return null;
		throw error;
	}
}

/** The session's query, read once: what useSession reads, and what main.tsx starts before the first render. */
export const sessionQuery = queryOptions({
	queryKey: keys.session,
	queryFn: readSession,
	staleTime: Number.POSITIVE_INFINITY,
});

/** The signed-in session (null: signed out); any 401 drops it. */
export function useSession() {
	const client = useQueryClient();
	const query = useQuery(sessionQuery);
	useEffect(() => onSignedOut(() => client.setQueryData(keys.session, null)), [client]);
	if (query.data) setCsrfToken(query.data.csrfToken);
	return query;
}

/** After signing in (or setting a password): the session the answer described. */
export function useSignedIn() {
	const client = useQueryClient();
	return (session: ConsoleSession) => {
		setCsrfToken(session.csrfToken);
		// What another operator's session read is not this one's to show.
		client.removeQueries({ predicate: (query) => query.queryKey[0] !== keys.session[0] });
		client.setQueryData(keys.session, session);
	};
}

/**
 * Signs in: the session, or the workspaces the password opens when it opens several (the API's 300, whose
 * body openapi-fetch hands over as `error`), to ask again with one of them.
 */
export async function signIn(body: {
	email: string;
	password: string;
	workspaceId?: string;
}): Promise<{ session: ConsoleSession } | { choices: WorkspaceChoice | null }> {
	const answer = await api.POST('/v3/auth/sign-in', { body });
	if (answer.response.status === 300)
		return { choices: (answer.error as Schemas['WorkspaceChoice'] | undefined)?.workspaces ?? null };
	return { session: await ok(answer) };
}

/** Sets a password with the token of an invitation or reset link: the session it opens. */
export const setPassword = (token: string, password: string) =>
	ok(api.POST('/v3/auth/set-password', { body: { token, password } }));

/** Signs out, and the console shows the sign-in page. */
export function useSignOut() {
	const client = useQueryClient();
	return async () => {
		await api.DELETE('/v3/auth/session');
		forgetBookmark();
		client.setQueryData(keys.session, null);
	};
}

/** Sets my status (the team sees it over the inbox feed, which is where the console reads it back). */
export function useSetMyStatus() {
	return useMutation({
		mutationFn: (status: PresenceStatus) => ok(api.PUT('/v3/me/status', { body: { status } })),
	});
}
