/**
 * The visitor's session as the loader starts it, before the chat is ever imported: a returning visitor's page
 * resumes it and a logged-in user's page says who the visitor is, each in this one request, so a page costs
 * at most three (script, config, session) before the visitor opens the chat. The chat takes over the answer.
 */
import type { Origin, Session } from './api-types';
import type { Identity } from './commands';
import { load, save } from './storage';

/**
 * How long after the page has settled (widget ready, session answered, browser idle) a returning visitor's
 * chat is imported to follow an open conversation live. Until then is what the page costs "before opening":
 * at most three requests (script, config, session) and 10 KiB gzip, for anonymous and identified visitors.
 */
export const FOLLOW_AFTER_MS = 3000;

interface Told {
	token?: string;
	identity: string;
}

/**
 * Whether `identity` was already told to the session `token`: a site calls identify on every page, and the
 * same visitor said again to the same session is not resent.
 */
export function alreadyTold(workspaceId: string, token: string | undefined, identity: Identity): boolean {
	const before = load<Told>(`identity:${workspaceId}`);
	return token !== undefined && before?.token === token && before.identity === JSON.stringify(identity);
}

/** Remembers that the session `token` was told `identity` (across pages, until a reset). */
export function markTold(workspaceId: string, token: string, identity: Identity): void {
	save(`identity:${workspaceId}`, { token, identity: JSON.stringify(identity) } satisfies Told);
}

/**
 * Starts or resumes the visitor's session (`POST /sessions`) with the campaign origin and, unless this
 * session was told it before, the identity. Keeps the token; rejects on any failure (the chat retries).
 */
export async function startVisit(
	api: string,
	workspaceId: string,
	origin: Origin | undefined,
	identity: Identity | undefined,
): Promise<Session> {
	const key = `session:${workspaceId}`;
	const sessionToken = load<string>(key);
	const telling = identity && !alreadyTold(workspaceId, sessionToken, identity) ? identity : undefined;
	const response = await fetch(`${api}/widget/${encodeURIComponent(workspaceId)}/sessions`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ sessionToken, origin, identity: telling }),
	});
	if (!response.ok) {
		const refusal = (await response.json().catch(() => null)) as { message?: string } | null;
		throw new Error(`the session start answered ${response.status}: ${refusal?.message ?? response.statusText}`);
	}
	const session = (await response.json()) as Session;
	save(key, session.sessionToken);
	if (telling) markTold(workspaceId, session.sessionToken, telling);
	// The stored session had ended (told before, so not sent): the new one still has to hear who this is.
	else if (identity && session.sessionToken !== sessionToken) {
		await tellIdentity(api, workspaceId, session.sessionToken, identity).catch(() => {});
	}
	return session;
}

/** Tells the session `token` who the visitor is (`POST /identify`), unless it was told the same before. */
export async function tellIdentity(api: string, workspaceId: string, token: string, identity: Identity): Promise<void> {
	if (alreadyTold(workspaceId, token, identity)) return;
	const response = await fetch(`${api}/widget/${encodeURIComponent(workspaceId)}/identify`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', 'Parley-Session': token },
		body: JSON.stringify(identity),
	});
	if (response.ok) markTold(workspaceId, token, identity);
}
