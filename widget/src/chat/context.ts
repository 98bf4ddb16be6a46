/**
 * What the effects (live.ts, sending.ts, session.ts) share: the store they dispatch to, the Worker's client,
 * the outbox and the loader. None of them holds the panel: they read the state and dispatch actions.
 */
import type { Conversation } from '../api-types';
import type { ChatHost } from '../host';
import type { VisitorClient } from './client';
import type { Outbox } from './outbox';
import type { Conditions } from './state';
import type { Store } from './store';

export interface ChatContext {
	readonly store: Store;
	readonly client: VisitorClient;
	readonly outbox: Outbox;
	readonly host: ChatHost;
}

/** The workspace's config and the clock, now. */
export function conditions(host: ChatHost): Conditions {
	return { offline: !host.availability().online, reopens: host.config().closedConversationReply !== 'new' };
}

/** Shows `conversation` (null: a new one) with what waits to be sent in it; `chosen`: the visitor picked it. */
export function show(ctx: ChatContext, conversation: Conversation | null, chosen?: boolean): void {
	const { offline } = conditions(ctx.host);
	ctx.store.dispatch({ type: 'show', conversation, waiting: ctx.outbox.items, offline, chosen });
}
