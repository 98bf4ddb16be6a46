import { keys, load, save } from './storage';

/** Ends a visitor session on the Worker without waiting: keepalive lets it finish while the page unloads (a logout). */
export function endSession(api: string, workspaceId: string, token: string): void {
	fetch(`${api}/widget/${encodeURIComponent(workspaceId)}/reset`, {
		method: 'POST',
		headers: { 'Parley-Session': token },
		keepalive: true,
	}).catch(() => {});
}

/** A logout on a page where the chat never loaded: ends the session and forgets what was kept for the visitor. */
export function forgetVisitor(api: string, workspaceId: string): void {
	const token = load<string>(`session:${workspaceId}`);
	if (token) endSession(api, workspaceId, token);
	for (const key of [`session:${workspaceId}`, `identity:${workspaceId}`, ...keys(`outbox:${workspaceId}:`)]) {
		save(key, undefined);
	}
}
