/**
 * Campaigns (crm:access): the list, one campaign with its counts, its changes while a draft or scheduled, its
 * preview (the message rendered by the API's Liquid for a sample contact, with the audience's size now), a
 * test send, sending or scheduling, and cancelling. Each change puts the answer in the cache and reads the
 * lists again (the reports' list of campaigns among them).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { keys } from './keys';

export type Campaign = Schemas['Campaign'];

export function useCampaigns() {
	return useQuery({
		queryKey: keys.campaigns.list,
		queryFn: () => ok(api.GET('/v3/campaigns', { params: { query: { limit: 100 } } })),
	});
}

/** One campaign, read again every few seconds while it sends (its counts move). */
export function useCampaign(id: string) {
	return useQuery({
		queryKey: keys.campaigns.one(id),
		queryFn: () => ok(api.GET('/v3/campaigns/{id}', { params: { path: { id } } })),
		refetchInterval: (query) => (query.state.data?.status === 'sending' ? 3000 : false),
	});
}

/**
 * The saved campaign rendered for `contactId` (or the audience's first contact), with the audience's size:
 * read again whenever the campaign is saved (its `updatedAt`).
 */
export function useCampaignPreview(campaign: Campaign | undefined, contactId: string) {
	return useQuery({
		queryKey: keys.campaigns.preview(campaign?.id ?? '', campaign?.updatedAt ?? '', contactId),
		queryFn: () =>
			ok(
				api.POST('/v3/campaigns/{id}/preview', {
					params: { path: { id: campaign?.id ?? '' } },
					body: contactId ? { contactId } : {},
				}),
			),
		enabled: Boolean(campaign),
		retry: false,
	});
}

export function useCreateCampaign() {
	const client = useQueryClient();
	return useMutation({
		mutationFn: (body: Schemas['NewCampaign']) => ok(api.POST('/v3/campaigns', { body })),
		onSuccess: (created) => {
			client.setQueryData(keys.campaigns.one(created.id), created);
			void client.invalidateQueries({ queryKey: keys.campaigns.all });
		},
	});
}

/** Changes, sends or schedules, cancels, test-sends and deletes the campaign `id`. */
export function useCampaignChanges(id: string) {
	const client = useQueryClient();
	const path = { params: { path: { id } } };
	const show = (campaign: Campaign) => {
		client.setQueryData(keys.campaigns.one(id), campaign);
		void client.invalidateQueries({ queryKey: keys.campaigns.list });
		void client.invalidateQueries({ queryKey: keys.reports.campaigns });
	};
	return {
		update: useMutation({
			mutationFn: (body: Schemas['CampaignChanges']) => ok(api.PATCH('/v3/campaigns/{id}', { ...path, body })),
			onSuccess: show,
		}),
		send: useMutation({
			mutationFn: (sendAt: string | undefined) =>
				ok(api.POST('/v3/campaigns/{id}/send', { ...path, body: sendAt ? { sendAt } : {} })),
			onSuccess: show,
		}),
		cancel: useMutation({
			mutationFn: () => ok(api.POST('/v3/campaigns/{id}/cancel', path)),
			onSuccess: show,
		}),
		test: useMutation({
			mutationFn: (contactId: string) => ok(api.POST('/v3/campaigns/{id}/test', { ...path, body: { contactId } })),
		}),
		remove: useMutation({
			mutationFn: () => ok(api.DELETE('/v3/campaigns/{id}', path)),
			onSuccess: () => client.invalidateQueries({ queryKey: keys.campaigns.all }),
		}),
	};
}
