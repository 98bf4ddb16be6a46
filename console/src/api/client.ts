/**
 * The console's typed client for the /v3 API: openapi-fetch over types generated from docs/openapi.json (the
 * document the API itself serves; `npm run typecheck` fails when they drift). The browser sends the session
 * cookie itself; every state-changing request carries the session's CSRF token.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];

/** An answer in the API's error body: shown where the action was taken. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

let csrfToken = '';

export function setCsrfToken(token: string): void {
	csrfToken = token;
}

export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });

api.use({
	onRequest({ request }) {
		if (!['GET', 'HEAD'].includes(request.method)) request.headers.set('X-CSRF-Token', csrfToken);
		return request;
	},
});

/** Listeners told when any answer says the session is over (the console then shows the sign-in page). */
const signedOutListeners = new Set<() => void>();
export function onSignedOut(listener: () => void): () => void {
	signedOutListeners.add(listener);
	return () => signedOutListeners.delete(listener);
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The data of an openapi-fetch answer (or of one on its way), or an ApiError with the API's own message. */
export async function ok<T>(pending: Answer<T> | Promise<Answer<T>>): Promise<T> {
	let answer: Answer<T>;
	try {
		answer = await pending;
	} catch {
		throw new ApiError(0, 'offline');
	}
	const { data, error, response } = answer;
	if (!response.ok) {
		if (response.status === 401) for (const listener of signedOutListeners) listener();
		const message = (error as { message?: unknown } | undefined)?.message;
		throw new ApiError(response.status, typeof message === 'string' ? message : response.statusText);
	}
	return data as T;
}
