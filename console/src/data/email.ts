/**
 * E-mail: the workspace's mail settings, its inbound addresses, the received and sent mails (Settings ›
 * E-mail, admins), and what a conversation shows of mail: its received mails (a person's, and machine mail
 * shown beside the thread), one mail in detail (quoted text, signature, sanitized HTML), and where the mails
 * carrying its team messages stand.
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { useFeedEvent } from '../feed';
import { keys } from './keys';
import { byCursor, cursor } from './paging';

export type InboundStatus = Schemas['InboundMail']['status'];
export type DeliveryStatus = Schemas['MailDelivery']['status'];
export type MessageMail = Schemas['MessageMail'];
type MessageWhatsapp = Schemas['MessageWhatsapp'];

/** A team message for the customer written in the last minute, whose WhatsApp delivery may not be recorded yet. */
function awaitsDelivery(m: Schemas['TeamMessage']): boolean {
	return m.authorKind !== 'contact' && !m.private && Date.now() - Date.parse(m.createdAt) < 60_000;
}

/** The WhatsApp states a message may still move on from. */
const WHATSAPP_MOVING = new Set<MessageWhatsapp['status']>(['queued', 'sending', 'sent', 'delivered']);

export function useEmailSettings() {
	return useQuery({ queryKey: keys.email.settings, queryFn: () => ok(api.GET('/v3/email/settings')) });
}

/** Saves the settings (partial): the answer, with `sending` as it now stands, replaces the cached one. */
export function useSaveEmailSettings() {
	const client = useQueryClient();
	return async (body: Schemas['EmailSettingsUpdate']) => {
		const saved = await ok(api.PUT('/v3/email/settings', { body }));
		client.setQueryData(keys.email.settings, saved);
		return saved;
	};
}

export function useInboundAddresses() {
	return useQuery({ queryKey: keys.email.addresses, queryFn: () => ok(api.GET('/v3/email/addresses')) });
}

/** Adds (a 409 when another workspace has the address) and removes inbound addresses; the list is read again. */
export function useInboundAddressChanges() {
	const client = useQueryClient();
	const refresh = () => client.invalidateQueries({ queryKey: keys.email.addresses });
	return {
		add: useMutation({
			mutationFn: (address: string) => ok(api.POST('/v3/email/addresses', { body: { address } })),
			onSuccess: refresh,
		}),
		remove: useMutation({
			mutationFn: (id: string) => ok(api.DELETE('/v3/email/addresses/{id}', { params: { path: { id } } })),
			onSuccess: refresh,
		}),
	};
}

/** The workspace's received mails with `status` (all: ''), newest first, 25 a page. */
export function useInboundMails(status: InboundStatus | '') {
	return useInfiniteQuery({
		queryKey: keys.email.inbound(status),
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/email/inbound', {
					params: { query: { limit: 25, ...(status ? { status } : {}), ...cursor(pageParam) } },
				}),
			),
		...byCursor,
	});
}

/** The mails Parley sent (or tried to) with `status` (all: ''), newest first, 25 a page. */
export function useMailDeliveries(status: DeliveryStatus | '') {
	return useInfiniteQuery({
		queryKey: keys.email.deliveries(status),
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/email/deliveries', {
					params: { query: { limit: 25, ...(status ? { status } : {}), ...cursor(pageParam) } },
				}),
			),
		...byCursor,
	});
}

/** Where the original of a received mail downloads from (same origin: the session cookie goes with it). */
export const rawMailUrl = (id: string) => `/v3/email/inbound/${encodeURIComponent(id)}/raw`;

/** One received mail in detail, read once `enabled`; a received mail never changes, so it is never read again. */
export function useInboundMail(id: string, enabled: boolean) {
	return useQuery({
		queryKey: keys.email.mail(id),
		queryFn: () => ok(api.GET('/v3/email/inbound/{id}', { params: { path: { id } } })),
		enabled,
		staleTime: Number.POSITIVE_INFINITY,
	});
}

/**
 * What a conversation shows of mail, read when it is an e-mail conversation or a mail may carry its messages:
 * its received mails (read again as new messages arrive, since a mail is what brings one, and machine mail
 * comes without any), and the mail (or WhatsApp) state of its newest team messages (read again on `mail.*`
 * events), both carried by the message list.
 */
export function useConversationMail(
	conversationId: string,
	newestSeq: number | undefined,
	isEmail: boolean,
	isWhatsapp = false,
) {
	const client = useQueryClient();
	useFeedEvent((event) => {
		if (event === 'reconnected' || !event.type.startsWith('mail.')) return;
		const delivery = event.payload.delivery as { conversationId?: string | null } | undefined;
		if (delivery?.conversationId === conversationId)
			void client.invalidateQueries({ queryKey: keys.email.ofConversation(conversationId) });
	});
	const mails = useQuery({
		queryKey: [...keys.email.mails(conversationId), newestSeq],
		queryFn: () => ok(api.GET('/v3/conversations/{id}/mails', { params: { path: { id: conversationId } } })),
		enabled: isEmail && newestSeq !== undefined,
		placeholderData: (previous) => previous,
	});
	const states = useQuery({
		queryKey: keys.email.states(conversationId, newestSeq ?? 0),
		// The message list carries each message's mail state; the socket's messages do not.
		queryFn: () =>
			ok(
				api.GET('/v3/conversations/{id}/messages', {
					params: { path: { id: conversationId }, query: { before: (newestSeq ?? 0) + 1, limit: 100 } },
				}),
			),
		enabled: newestSeq !== undefined && newestSeq > 0,
		placeholderData: (previous) => previous,
		// A mail waiting to go is looked at again until it has gone or failed; a WhatsApp message until it is
		// read or failed (Meta's statuses come as webhooks, which tell the console nothing).
		// A team message written just now is looked at again soon (its delivery is recorded a moment after it is
		// stored, and its first tick should not wait); a state that may still move, every 10 s.
		refetchInterval: (query) => {
			const data = query.state.data?.data ?? [];
			// The socket hears of a message before the room's copy reaches D1, which the list reads: a list that
			// has not caught up with the socket yet is read again soon (else a new reply's state never shows).
			const listed = Math.max(0, ...data.map((m) => m.seq));
			if (newestSeq !== undefined && listed < newestSeq) return 3_000;
			if (isWhatsapp && data.some((m) => !m.whatsapp && awaitsDelivery(m))) return 3_000;
			const moving = data.some(
				(m) =>
					m.mail?.status === 'queued' ||
					m.mail?.status === 'sending' ||
					(m.whatsapp && WHATSAPP_MOVING.has(m.whatsapp.status)),
			);
			return moving ? 10_000 : false;
		},
	});
	const stateBySeq = new Map<number, MessageMail>();
	const whatsappBySeq = new Map<number, MessageWhatsapp>();
	for (const message of states.data?.data ?? []) {
		if (message.mail) stateBySeq.set(message.seq, message.mail);
		if (message.whatsapp) whatsappBySeq.set(message.seq, message.whatsapp);
	}
	return { mails: mails.data?.data ?? [], stateBySeq, whatsappBySeq };
}
