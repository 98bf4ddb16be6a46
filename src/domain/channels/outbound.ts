/**
 * How the team's messages reach customers on the channels beyond the widget (whose visitors read them on
 * their sockets). A channel plugs in one adapter here: from a `message.created` event alone (it names its
 * conversation's channel), whether the message is the channel's to deliver, and then the enqueueing of its
 * delivery on the channel's own Queue, idempotent per message (the consumer there claims each delivery before
 * it sends and records it after). The events consumer hands every event to `deliverToChannels`; a message of
 * any other channel costs no read.
 */
import type { Database } from '../../db/client';
import type { DomainEvent } from '../../model/events';
import { mailReply, mayMailReply } from './email/replies';
import { mayWhatsappReply, whatsappReply } from './whatsapp/replies';

/** What the events consumer read once for its batch that an adapter may need to decide without a read. */
export interface BatchFacts {
	/** The workspaces that set up mail: asked only of a message event too old to name its channel. */
	mailing: ReadonlySet<string>;
}

export interface OutboundAdapter {
	channel: string;
	/** Whether the event may need this channel's delivery: no read. */
	wants: (event: DomainEvent, facts: BatchFacts) => boolean;
	/** Enqueues the message's delivery, at most once per message whatever the event's redeliveries. */
	deliver: (env: Env, db: Database, event: DomainEvent) => Promise<void>;
}

export const OUTBOUND_ADAPTERS: readonly OutboundAdapter[] = [
	{ channel: 'email', wants: (event, facts) => mayMailReply(event, facts.mailing), deliver: mailReply },
	{ channel: 'whatsapp', wants: (event) => mayWhatsappReply(event), deliver: whatsappReply },
];

/** Hands a team message to the channel it must reach beyond the widget, if any. */
export async function deliverToChannels(env: Env, db: Database, event: DomainEvent, facts: BatchFacts): Promise<void> {
	for (const adapter of OUTBOUND_ADAPTERS) {
		if (adapter.wants(event, facts)) await adapter.deliver(env, db, event);
	}
}
