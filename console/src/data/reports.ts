/**
 * Reports: the conversations report for a set of filters, the campaigns with one's results and recipients,
 * and either report as the API's own CSV (`Accept: text/csv`) for the filters shown, saved as a file, so the
 * spreadsheet and the page never disagree. A CSV is a GET: the session cookie is enough, no CSRF token is needed.
 */
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { ApiError, api, BOOKMARK_HEADER, bookmarkHeader, ok, rememberBookmark, type Schemas } from '../api/client';
import type { paths } from '../api/schema';
import { keys } from './keys';
import { byCursor, cursor } from './paging';

type ReportQuery = NonNullable<paths['/v3/reports/conversations']['get']['parameters']['query']>;

/** The conversations report for `query`; the charts stay while the next filters' figures load. */
export function useConversationReport(query: ReportQuery) {
	return useQuery({
		queryKey: keys.reports.conversations(query),
		// The operation also answers CSV, so its type says string too: this request asks for JSON.
		queryFn: async () =>
			(await ok(api.GET('/v3/reports/conversations', { params: { query } }))) as Schemas['ConversationReport'],
		placeholderData: keepPreviousData,
	});
}

/** The campaigns to choose from (the newest hundred). */
export function useReportCampaigns() {
	return useQuery({
		queryKey: keys.reports.campaigns,
		queryFn: async () => (await ok(api.GET('/v3/campaigns', { params: { query: { limit: 100 } } }))).data,
	});
}

/** A campaign's results, from audience to deals won (none until one is chosen). */
export function useCampaignReport(campaignId: string | undefined) {
	return useQuery({
		queryKey: keys.reports.campaign(campaignId),
		queryFn: async () =>
			(await ok(
				api.GET('/v3/reports/campaigns/{id}', { params: { path: { id: campaignId as string } } }),
			)) as Schemas['CampaignReport'],
		enabled: Boolean(campaignId),
	});
}

/** A campaign's recipients, by contact, 50 a page: each one's state and, on an e-mail campaign, its mail's. */
export function useCampaignRecipients(campaignId: string) {
	return useInfiniteQuery({
		queryKey: keys.reports.recipients(campaignId),
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/campaigns/{id}/recipients', {
					params: { path: { id: campaignId }, query: { limit: 50, ...cursor(pageParam) } },
				}),
			),
		...byCursor,
	});
}

/** Fetches `path` (with `query`) as CSV and hands it to the browser as a download named as the API names it. */
export async function downloadCsv(path: string, query: Record<string, string | undefined>, fallbackName: string) {
	const url = new URL(`/v3${path}`, location.origin);
	for (const [key, value] of Object.entries(query)) if (value) url.searchParams.set(key, value);
	let response: Response;
	try {
		response = await fetch(url, { headers: { Accept: 'text/csv', ...bookmarkHeader() }, credentials: 'same-origin' });
	} catch {
		throw new ApiError(0, 'offline');
	}
	rememberBookmark(response.headers.get(BOOKMARK_HEADER));
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
