/**
 * A report's CSV export: the API's own CSV (`Accept: text/csv`) for the filters shown, saved as a file, so the
 * spreadsheet and the page never disagree. A GET: the session cookie is enough, no CSRF token is needed.
 */
import { ApiError } from '../../api/client';

/** Fetches `path` (with `query`) as CSV and hands it to the browser as a download named as the API names it. */
export async function downloadCsv(path: string, query: Record<string, string | undefined>, fallbackName: string) {
	const url = new URL(`/v3${path}`, location.origin);
	for (const [key, value] of Object.entries(query)) if (value) url.searchParams.set(key, value);
	let response: Response;
	try {
		response = await fetch(url, { headers: { Accept: 'text/csv' }, credentials: 'same-origin' });
	} catch {
		throw new ApiError(0, 'offline');
	}
	if (!response.ok) {
		const body = (await response.json().catch(() => null)) as { message?: unknown } | null;
		throw new ApiError(response.status, typeof body?.message === 'string' ? body.message : response.statusText);
	}
	const name = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '')?.[1] ?? fallbackName;
	const link = document.createElement('a');
	link.href = URL.createObjectURL(await response.blob());
	link.download = name;
	document.body.append(link);
	link.click();
	link.remove();
	// The click has started the download; the object URL may go once the event loop turns.
	setTimeout(() => URL.revokeObjectURL(link.href), 0);
}
