/** Ends a visitor session on the Worker without waiting: keepalive lets it finish while the page unloads (a logout). */
export function endSession(api: string, workspaceId: string, token: string): void {
	fetch(`${api}/widget/${encodeURIComponent(workspaceId)}/reset`, {
		method: 'POST',
		headers: { 'Parley-Session': token },
		keepalive: true,
	}).catch(() => {});
}
