/**
 * A scenario's inbound webhooks (admins): listed with their URLs, created and rotated (each answering the
 * secret, shown once), switched on or off, and deleted; the list is read again after each change.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { keys } from './keys';

export type ScenarioWebhook = Schemas['ScenarioWebhook'];

export function useScenarioWebhooks(scenarioId: string) {
	return useQuery({
		queryKey: keys.scenarioWebhooks(scenarioId),
		queryFn: () => ok(api.GET('/v3/scenarios/{id}/webhooks', { params: { path: { id: scenarioId } } })),
	});
}

export function useScenarioWebhookChanges(scenarioId: string) {
	const client = useQueryClient();
	const refresh = () => client.invalidateQueries({ queryKey: keys.scenarioWebhooks(scenarioId) });
	const at = (webhookId: string) => ({ params: { path: { id: scenarioId, webhookId } } });
	return {
		create: useMutation({
			mutationFn: (body: Schemas['NewScenarioWebhook']) =>
				ok(api.POST('/v3/scenarios/{id}/webhooks', { params: { path: { id: scenarioId } }, body })),
			onSuccess: refresh,
		}),
		update: useMutation({
			mutationFn: ({ webhookId, body }: { webhookId: string; body: Schemas['ScenarioWebhookChanges'] }) =>
				ok(api.PATCH('/v3/scenarios/{id}/webhooks/{webhookId}', { ...at(webhookId), body })),
			onSuccess: refresh,
		}),
		rotate: useMutation({
			mutationFn: (webhookId: string) =>
				ok(api.POST('/v3/scenarios/{id}/webhooks/{webhookId}/rotate-secret', at(webhookId))),
			onSuccess: refresh,
		}),
		remove: useMutation({
			mutationFn: (webhookId: string) => ok(api.DELETE('/v3/scenarios/{id}/webhooks/{webhookId}', at(webhookId))),
			onSuccess: refresh,
		}),
	};
}
