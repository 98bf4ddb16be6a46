/**
 * The public config, cached in localStorage with its ETag: a returning page renders the launcher at once
 * from the copy, then revalidates in the background (If-None-Match; 304 costs a few bytes) and re-renders
 * only when the workspace changed its settings.
 */
import type { WidgetConfig } from './api-types';
import { load, save } from './storage';

interface Cached {
	etag: string;
	config: WidgetConfig;
}

async function fetchConfig(api: string, workspaceId: string, etag?: string): Promise<Cached | null> {
	const response = await fetch(`${api}/widget/${encodeURIComponent(workspaceId)}/config`, {
		headers: etag ? { 'If-None-Match': etag } : {},
		// The browser's own cache would answer from its copy without asking; this copy is the cache.
		cache: 'no-cache',
	});
	if (response.status === 304) return null;
	if (!response.ok) throw new Error(`config answered ${response.status}`);
	const fresh = { etag: response.headers.get('ETag') ?? '', config: (await response.json()) as WidgetConfig };
	save(`config1:${workspaceId}`, fresh);
	return fresh;
}

/**
 * Calls `apply` with the cached config right away (when there is one) and again with a fresher one if the
 * Worker has it. Rejects only when there is neither a copy nor an answer.
 */
export async function loadConfig(api: string, workspaceId: string, apply: (config: WidgetConfig) => void) {
	// The key names the shape: a release that changes it starts from the network, not from an old copy.
	const cached = load<Cached>(`config1:${workspaceId}`);
	if (cached?.config?.workspaceId === workspaceId) {
		try {
			apply(cached.config);
			fetchConfig(api, workspaceId, cached.etag)
				.then((fresh) => fresh && apply(fresh.config))
				.catch(() => {});
			return;
		} catch {
			// A copy this widget cannot use (an unknown time zone, say): fetch a fresh one below.
		}
	}
	const fresh = await fetchConfig(api, workspaceId);
	if (fresh) apply(fresh.config);
}
