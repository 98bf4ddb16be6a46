import { and, asc, desc, eq, gt, lt } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { messages } from '../../db/schema';
import { iso } from '../../lib/ids';
import type { AuthorKind, MessageView } from '../../model/messages';
import type { Participant } from '../../protocol/live';

export {
	AUTHOR_KINDS,
	type AuthorKind,
	attachmentSchema,
	INPUT_KINDS,
	type Interactive,
	interactiveSchema,
	type MessageView,
	messageSchema,
} from '../../model/messages';

type MessageRow = typeof messages.$inferSelect;

export function messageView(row: MessageRow): MessageView {
	return {
		id: row.id,
		conversationId: row.conversationId,
		seq: row.seq,
		authorKind: row.authorKind,
		authorId: row.authorId,
		text: row.body,
		attachments: row.attachments,
		interactive: row.interactive ?? null,
		clientMessageId: row.clientMessageId,
		private: row.private,
		createdAt: iso(row.createdAt),
	};
}

/** The client message id a visitor's send is stored under (the widget's own id, namespaced by visitor). */
export function visitorClientId(visitorId: string, id: string): string {
	return `v:${visitorId}:${id}`;
}

/**
 * A message as a visitor may see it: the client id only on the contact's own messages, as the widget sent
 * it; the team's (an integrator's Idempotency-Key, say) are not the visitor's business, and neither is which
 * operator wrote a reply (`authorId` is null: the author kind and the widget's display name say enough).
 */
export function visitorView(message: MessageView): MessageView {
	const own = message.authorKind === 'contact' && message.clientMessageId?.startsWith('v:');
	return {
		...message,
		authorId: message.authorKind === 'contact' ? message.authorId : null,
		clientMessageId: own ? (message.clientMessageId?.replace(/^v:[^:]*:/, '') ?? null) : null,
	};
}

/**
 * Whether a message is a reply to the customer's side of the conversation: a note is not, so it never counts
 * as a first response, ends no wait and takes over from no bot.
 */
export function isTeamReply(message: { authorKind: AuthorKind; private: boolean }): boolean {
	return message.authorKind === 'operator' && !message.private;
}

/** Which messages a page holds: those after a `seq` (oldest first), or the newest ones before it. */
export type MessageWindow = { after: number } | { before: number };

/**
 * A page of the conversation's messages, oldest first: the first `limit` after `window.after`, or the last
 * `limit` before `window.before` (scrolling back from the newest). `seenBy: 'contact'` leaves out the team's
 * private notes, which a visitor never sees.
 */
export async function listMessages(
	db: Database,
	workspaceId: string,
	conversationId: string,
	window: MessageWindow,
	limit: number,
	seenBy: Participant = 'operator',
): Promise<MessageRow[]> {
	const backwards = 'before' in window;
	const rows = await db
		.select()
		.from(messages)
		.where(
			and(
				eq(messages.workspaceId, workspaceId),
				eq(messages.conversationId, conversationId),
				backwards ? lt(messages.seq, window.before) : gt(messages.seq, window.after),
				seenBy === 'contact' ? eq(messages.private, false) : undefined,
			),
		)
		.orderBy(backwards ? desc(messages.seq) : asc(messages.seq))
		.limit(limit);
	return backwards ? rows.reverse() : rows;
}
