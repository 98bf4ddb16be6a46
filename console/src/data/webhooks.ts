/**
 * Webhooks (Settings › Integrations): the workspace's endpoints and their changes (each reads the list
 * again), and an endpoint's deliveries with Re-send.
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { keys } from './keys';
import { byCursor, cursor } from './paging';

type Status = Schemas['WebhookDeliverySummary']['status'];

export function useWebhooks() {
	return useQuery({ queryKey: keys.webhooks.all, queryFn: () => ok(api.GET('/v3/webhooks')) });
}

function useRefreshWebhooks() {
	const client = useQueryClient();
	return () => client.invalidateQueries({ queryKey: keys.webhooks.all });
}

/** Creates an endpoint: its secret is in the answer, shown once. */
export function useCreateWebhook() {
	const refresh = useRefreshWebhooks();
	return async (body: Schemas['NewWebhookEndpoint']) => {
		const created = await ok(api.POST('/v3/webhooks', { body }));
		await refresh();
		return created;
	};
}

/** Pauses or resumes, rotates the secret of (shown once, to `onSecret`), or deletes the endpoint `id`. */
export function useWebhookChanges(id: string, onSecret: (secret: string) => void) {
	const refresh = useRefreshWebhooks();
	const path = { params: { path: { id } } };
	return {
		toggle: useMutation({
			mutationFn: (enabled: boolean) => ok(api.PATCH('/v3/webhooks/{id}', { ...path, body: { enabled } })),
			onSuccess: refresh,
		}),
		rotate: useMutation({
			mutationFn: () => ok(api.POST('/v3/webhooks/{id}/rotate-secret', { ...path, body: {} })),
			onSuccess: (answer) => {
				onSecret(answer.secret);
				void refresh();
			},
		}),
		remove: useMutation({
			mutationFn: () => ok(api.DELETE('/v3/webhooks/{id}', path)),
			onSuccess: refresh,
		}),
	};
}

/** The endpoint's deliveries with `status` (all: ''), newest first, 25 a page, read again every 10 s. */
export function useDeliveries(endpointId: string, status: Status | '') {
	return useInfiniteQuery({
		queryKey: keys.webhooks.deliveriesOf(endpointId, status),
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/webhooks/{id}/deliveries', {
					params: {
						path: { id: endpointId },
						query: { limit: 25, ...(status ? { status } : {}), ...cursor(pageParam) },
					},
				}),
			),
		...byCursor,
		refetchInterval: 10_000,
	});
}

/** Sends a delivery's event again (signed anew, now); the endpoint's deliveries are read again. */
export function useResendDelivery(endpointId: string) {
	const client = useQueryClient();
	return useMutation({
		mutationFn: (deliveryId: string) =>
			ok(
				api.POST('/v3/webhooks/{id}/deliveries/{deliveryId}/resend', {
					params: { path: { id: endpointId, deliveryId } },
				}),
			),
		onSuccess: () => client.invalidateQueries({ queryKey: keys.webhooks.deliveries(endpointId) }),
	});
}

/**
 * A delivery's detail with its tries, read again whenever its summary changes (`deliveryVersion`): a try is
 * counted when it starts and logged when it ends, so a detail read in between has no entry for it yet.
 */
export function useDelivery(endpointId: string, delivery: Schemas['WebhookDeliverySummary']) {
	return useQuery({
		queryKey: keys.webhooks.delivery(endpointId, delivery.id, deliveryVersion(delivery)),
		queryFn: () =>
			ok(
				api.GET('/v3/webhooks/{id}/deliveries/{deliveryId}', {
					params: { path: { id: endpointId, deliveryId: delivery.id } },
				}),
			),
	});
}

/**
 * What changes on a delivery's summary as its tries go: the count when a try starts, then the status and the next
 * due time when it ends (both change when a try is settled, whatever its outcome).
 */
function deliveryVersion(delivery: Schemas['WebhookDeliverySummary']): string {
	return `${delivery.attempts}:${delivery.status}:${delivery.nextAttemptAt ?? ''}`;
}
