/** Alerts: the member's unread counts, what alerts it (Settings › Notifications), and its push subscriptions. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { keys } from './keys';

export type AlertSettings = Schemas['AlertSettings'];
export type UnreadCounts = Schemas['UnreadCounts'];

/** The unread counts per view: read again whenever the feed says a conversation changed (see alerts.ts). */
export function useUnreadCounts() {
	return useQuery({ queryKey: keys.unread, queryFn: () => ok(api.GET('/v3/me/unread')) });
}

export function useRefreshUnread() {
	const client = useQueryClient();
	return () => client.invalidateQueries({ queryKey: keys.unread });
}

/** What alerts me: the defaults until I have saved any. */
export function useAlertSettings() {
	return useQuery({ queryKey: keys.myAlerts, queryFn: () => ok(api.GET('/v3/me/notifications/alerts')) });
}

/** Saves a partial change; the answer replaces the cached settings. */
export function useSaveAlertSettings() {
	const client = useQueryClient();
	return async (body: Schemas['AlertSettingsUpdate']) => {
		const saved = await ok(api.PUT('/v3/me/notifications/alerts', { body }));
		client.setQueryData(keys.myAlerts, saved);
		return saved;
	};
}

/** The deployment's VAPID key and my subscriptions. */
export function usePushSubscriptions() {
	return useQuery({ queryKey: keys.pushSubscriptions, queryFn: () => ok(api.GET('/v3/me/push-subscriptions')) });
}

export function useSavePushSubscription() {
	const client = useQueryClient();
	return async (body: Schemas['PushSubscriptionInput']) => {
		await ok(api.POST('/v3/me/push-subscriptions', { body }));
		await client.invalidateQueries({ queryKey: keys.pushSubscriptions });
	};
}

export function useDeletePushSubscription() {
	const client = useQueryClient();
	return async (id: string) => {
		await ok(api.DELETE('/v3/me/push-subscriptions/{id}', { params: { path: { id } } }));
		await client.invalidateQueries({ queryKey: keys.pushSubscriptions });
	};
}
