import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'preact/hooks';
import { ApiError, api, ok, onSignedOut, type Schemas, setCsrfToken } from './api/client';

export type ConsoleSession = Schemas['ConsoleSession'];

/** The signed-in session (null: signed out), read once; any 401 afterwards drops it. */
export function useSession() {
	const client = useQueryClient();
	const query = useQuery({
		queryKey: ['session'],
		queryFn: async () => {
			try {
				return await ok(api.GET('/v3/auth/session'));
			} catch (error) {
				if (error instanceof ApiError && error.status === 401) return null;
				throw error;
			}
		},
		staleTime: Number.POSITIVE_INFINITY,
	});
	useEffect(() => onSignedOut(() => client.setQueryData(['session'], null)), [client]);
	if (query.data) setCsrfToken(query.data.csrfToken);
	return query;
}

/** After signing in (or setting a password): the session the answer described. */
export function useSignedIn() {
	const client = useQueryClient();
	return (session: ConsoleSession) => {
		setCsrfToken(session.csrfToken);
		// What another operator's session read is not this one's to show.
		client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'session' });
		client.setQueryData(['session'], session);
	};
}
