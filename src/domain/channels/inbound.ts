/**
 * The one way a message from a channel beyond the widget (a mail, a WhatsApp message) enters a conversation.
 * Each channel finds its own candidate (mail by its thread, WhatsApp by the customer's number) and says how to
 * start a conversation; the rest is the same for all: post as the contact through the one door, `postMessage`,
 * into the candidate, or into a new conversation when there is none, or when the candidate is closed and the
 * workspace's customers start anew (`closedConversationReply: new`: the room refuses the post with a Conflict,
 * deciding against D1 by the same rule as a widget visitor's message; otherwise it reopens the conversation).
 */
import { and, desc, eq, ne } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { messages } from '../../db/schema';
import { Conflict } from '../../lib/errors';

export interface InboundTarget<T> {
	/** The conversation the channel's own rules picked for this message, or null. */
	found: string | null;
	/** Starts the contact's new conversation on the channel: its id. */
	start: () => Promise<string>;
	/** Posts the message into a conversation (as the contact, with the channel's client message id). */
	post: (conversationId: string) => Promise<T>;
}

/** Posts an inbound message (see the module's comment): the conversation it went into, and `post`'s result. */
export async function postInbound<T>(target: InboundTarget<T>): Promise<{ conversationId: string; posted: T }> {
	const conversationId = target.found ?? (await target.start());
	try {
		return { conversationId, posted: await target.post(conversationId) };
	} catch (error) {
		if (!(error instanceof Conflict) || target.found === null) throw error;
		const started = await target.start();
		return { conversationId: started, posted: await target.post(started) };
	}
}

/**
 * The labels of the buttons the team's latest message in the conversation offered (none when it offered
 * none): what a customer's reply by another channel may be answering, as a widget visitor's press would.
 */
export async function offeredButtons(db: Database, workspaceId: string, conversationId: string): Promise<string[]> {
	const [latest] = await db
		.select({ interactive: messages.interactive })
		.from(messages)
		.where(
			and(
				eq(messages.workspaceId, workspaceId),
				eq(messages.conversationId, conversationId),
				eq(messages.private, false),
				ne(messages.authorKind, 'contact'),
			),
		)
		.orderBy(desc(messages.seq))
		.limit(1);
	return latest?.interactive?.type === 'buttons' ? latest.interactive.buttons.map((b) => b.label) : [];
}
