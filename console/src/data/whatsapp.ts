/**
 * WhatsApp: the workspace's connected numbers (Settings › WhatsApp, admins), a number's approved templates,
 * and sending one into a conversation whose 24-hour window has closed.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { keys } from './keys';

export type WhatsappNumber = Schemas['WhatsappNumber'];
export type WhatsappTemplate = Schemas['WhatsappTemplate'];
export type MessageWhatsapp = Schemas['MessageWhatsapp'];

/** Meta's customer-service window: a free-form message reaches the customer this long after their last one. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The connected numbers (admins only: the API refuses everyone else). */
export function useWhatsappNumbers(enabled = true) {
	return useQuery({
		queryKey: keys.whatsapp.numbers,
		queryFn: () => ok(api.GET('/v3/whatsapp/numbers')),
		enabled,
	});
}

/**
 * Connects, changes, rotates the verify token of and disconnects numbers; the list is read again after each.
 * Connecting and rotating answer the verify token, which the API shows only then.
 */
export function useWhatsappNumberChanges() {
	const client = useQueryClient();
	const refresh = () => client.invalidateQueries({ queryKey: keys.whatsapp.numbers });
	return {
		connect: useMutation({
			mutationFn: (body: Schemas['NewWhatsappNumber']) => ok(api.POST('/v3/whatsapp/numbers', { body })),
			onSuccess: refresh,
		}),
		update: useMutation({
			mutationFn: ({ id, body }: { id: string; body: Schemas['WhatsappNumberChanges'] }) =>
				ok(api.PATCH('/v3/whatsapp/numbers/{id}', { params: { path: { id } }, body })),
			onSuccess: refresh,
		}),
		rotate: useMutation({
			mutationFn: (id: string) => ok(api.POST('/v3/whatsapp/numbers/{id}/verify-token', { params: { path: { id } } })),
			onSuccess: refresh,
		}),
		disconnect: useMutation({
			mutationFn: (id: string) => ok(api.DELETE('/v3/whatsapp/numbers/{id}', { params: { path: { id } } })),
			onSuccess: refresh,
		}),
	};
}

/** A number's approved templates, read when the picker opens (Parley keeps Meta's list a minute). */
export function useWhatsappTemplates(numberId: string | undefined) {
	return useQuery({
		queryKey: keys.whatsapp.templates(numberId ?? ''),
		queryFn: () => ok(api.GET('/v3/whatsapp/numbers/{id}/templates', { params: { path: { id: numberId ?? '' } } })),
		enabled: !!numberId,
		staleTime: 60_000,
	});
}

/** Sends an approved template into a conversation: allowed whatever the window. */
export function sendWhatsappTemplate(conversationId: string, body: Schemas['WhatsappTemplateSend']) {
	return ok(api.POST('/v3/whatsapp/conversations/{id}/template', { params: { path: { id: conversationId } }, body }));
}

/**
 * When the conversation's 24-hour window closes, from its customer's last message among those loaded (null:
 * none loaded, so no window is known to be open). The message's time is when Parley received it; the server
 * counts from Meta's timestamp, and its 409 on a send closes the window here too.
 */
export function windowEnd(messages: ReadonlyArray<{ authorKind: string; createdAt: string }>): number | null {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i];
		if (message?.authorKind === 'contact') return Date.parse(message.createdAt) + SERVICE_WINDOW_MS;
	}
	return null;
}

/** The time left as people say it: `3 h 12 min`, `45 min`, `under a minute` is `0 min`. */
export function timeLeft(ms: number): { hours: number; minutes: number } {
	const minutes = Math.max(0, Math.floor(ms / 60_000));
	return { hours: Math.floor(minutes / 60), minutes: minutes % 60 };
}
