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
export type ServerWindow = Schemas['WhatsappWindow'];

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

/** The approved templates of the number a conversation is on: anyone who may reply reads them. */
export function useConversationTemplates(conversationId: string) {
	return useQuery({
		queryKey: keys.whatsapp.conversationTemplates(conversationId),
		queryFn: () =>
			ok(api.GET('/v3/whatsapp/conversations/{id}/templates', { params: { path: { id: conversationId } } })),
		staleTime: 60_000,
	});
}

/**
 * A WhatsApp conversation's window as the server counts it (from Meta's timestamp of the customer's last
 * message): read again when the customer's newest loaded message changes, and kept while it does not.
 */
export function useConversationWindow(conversationId: string, enabled: boolean, lastCustomerSeq: number) {
	return useQuery({
		queryKey: keys.whatsapp.window(conversationId, lastCustomerSeq),
		queryFn: () => ok(api.GET('/v3/whatsapp/conversations/{id}/window', { params: { path: { id: conversationId } } })),
		enabled,
		staleTime: Number.POSITIVE_INFINITY,
		// The same conversation's window while the customer's newest message is read again, never another's.
		placeholderData: (previous, previousQuery) =>
			previousQuery?.queryKey[1] === conversationId ? previous : undefined,
	});
}

/** Sends an approved template into a conversation: allowed whatever the window. */
export function sendWhatsappTemplate(conversationId: string, body: Schemas['WhatsappTemplateSend']) {
	return ok(api.POST('/v3/whatsapp/conversations/{id}/template', { params: { path: { id: conversationId } }, body }));
}

/** The approved templates of a WhatsApp number (admins: the API refuses others). */
export function useNumberTemplates(numberId: string) {
	return useQuery({
		queryKey: keys.numberTemplates(numberId),
		queryFn: () => ok(api.GET('/v3/whatsapp/numbers/{id}/templates', { params: { path: { id: numberId } } })),
		enabled: Boolean(numberId),
		staleTime: 60_000,
	});
}
