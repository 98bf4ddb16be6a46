/** Settings › Notifications: which alerts reach the signed-in member by mail (their own, any role). */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { keys } from './keys';

export type NotificationSettings = Schemas['NotificationSettings'];

/** My settings: the defaults until I have saved any. */
export function useMyNotifications() {
	return useQuery({ queryKey: keys.myNotifications, queryFn: () => ok(api.GET('/v3/me/notifications')) });
}

/** Saves my settings in one PUT; the answer replaces the cached ones. A 422 names the field it refuses. */
export function useSaveMyNotifications() {
	const client = useQueryClient();
	return async (body: Schemas['NotificationSettingsUpdate']) => {
		const saved = await ok(api.PUT('/v3/me/notifications', { body }));
		client.setQueryData(keys.myNotifications, saved);
		return saved;
	};
}
