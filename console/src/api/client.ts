/**
 * The console's typed client for the /v3 API: openapi-fetch over types generated from docs/openapi.json (the
 * document the API itself serves; `npm run typecheck` fails when they drift). The browser sends the session
 * cookie itself; every state-changing request carries the session's CSRF token. Only the data modules
 * (console/src/data) call `api`: pages and components call their hooks.
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

/** The CSRF header a state-changing request made outside `api` (an upload with progress) must carry. */
export function csrfHeader(): Record<string, string> {
	return { 'X-CSRF-Token': csrfToken };
}

/**
 * The latest D1 bookmark an answer carried (`x-d1-bookmark`, docs/api.md): sent with every request, so a read
 * that a nearby replica answers is never older than what this console last wrote or saw. Bookmarks sort as
 * strings, oldest first, so an answer that arrives late never takes it back. Kept in localStorage too: a reload
 * right after signing in must not read the session from a replica that has not got it yet (it would answer
 * 401), and another tab's writes are then this one's as well.
 */
let bookmark: string | null = storedBookmark();
/** The header both ways (src/db/sessions.ts). */
export const BOOKMARK_HEADER = 'x-d1-bookmark';
const BOOKMARK_KEY = 'parley.d1Bookmark';

function storedBookmark(): string | null {
	try {
		return localStorage.getItem(BOOKMARK_KEY);
	} catch {
		return null; // Storage turned off: the bookmark lives in memory only.
	}
}

function storeBookmark(value: string | null): void {
	try {
		if (value === null) localStorage.removeItem(BOOKMARK_KEY);
		else localStorage.setItem(BOOKMARK_KEY, value);
	} catch {
		// Storage turned off: the bookmark lives in memory only.
	}
}

/** The later of the one kept here and the one stored (another tab may have written since). */
function latestBookmark(): string | null {
	const stored = storedBookmark();
	return stored !== null && (bookmark === null || stored > bookmark) ? stored : bookmark;
}

/** Keeps `value` (an answer's `x-d1-bookmark`) when it is later than the one kept. */
export function rememberBookmark(value: string | null): void {
	if (!value) return;
	const kept = latestBookmark();
	if (kept !== null && value <= kept) return;
	bookmark = value;
	storeBookmark(value);
}

/** The bookmark header a request made outside `api` (an upload, a CSV download) sends. */
export function bookmarkHeader(): Record<string, string> {
	const latest = latestBookmark();
	return latest === null ? {} : { [BOOKMARK_HEADER]: latest };
}

/** Forgets the bookmark: signed out, what the next session reads owes nothing to this one's writes. */
export function forgetBookmark(): void {
	bookmark = null;
	storeBookmark(null);
}

/** Tells every listener the session is over: an answer outside `api` said 401. */
export function signedOut(): void {
	forgetBookmark();
	for (const listener of signedOutListeners) listener();
}

export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });

api.use({
	onRequest({ request }) {
		if (!['GET', 'HEAD'].includes(request.method)) request.headers.set('X-CSRF-Token', csrfToken);
		for (const [name, value] of Object.entries(bookmarkHeader())) request.headers.set(name, value);
		return request;
	},
	onResponse({ response }) {
		rememberBookmark(response.headers.get(BOOKMARK_HEADER));
		return response;
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
	return (await answered(pending)).data;
}

/** A resource with the version it was read or written at (its `ETag`), which a later write sends back. */
export type Versioned<T> = T & { etag: string | null };

/**
 * Like `ok`, with the answer's `ETag` kept beside the data. An editor keeps the one it loaded and sends it
 * with its save (`ifMatch`), so a save over someone else's change is refused (412) instead of undoing it.
 */
export async function okVersioned<T>(pending: Answer<T> | Promise<Answer<T>>): Promise<Versioned<T>> {
	const { data, response } = await answered(pending);
	return { ...data, etag: response.headers.get('ETag') };
}

/** The request option that makes a write apply only to the version read (none when there is no version). */
export function ifMatch(etag: string | null | undefined): { headers?: Record<string, string> } {
	return etag ? { headers: { 'If-Match': etag } } : {};
}

/** Whether a save was refused because someone else changed the thing since it was opened. */
export function changedElsewhere(error: unknown): boolean {
	return error instanceof ApiError && error.status === 412;
}

async function answered<T>(pending: Answer<T> | Promise<Answer<T>>): Promise<{ data: T; response: Response }> {
	let answer: Answer<T>;
	try {
		answer = await pending;
	} catch {
		throw new ApiError(0, 'offline');
	}
	const { data, error, response } = answer;
	if (!response.ok) {
		if (response.status === 401) signedOut();
		const message = (error as { message?: unknown } | undefined)?.message;
		throw new ApiError(response.status, typeof message === 'string' ? message : response.statusText);
	}
	return { data: data as T, response };
}
