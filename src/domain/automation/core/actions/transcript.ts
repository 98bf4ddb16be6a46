/**
 * A conversation's transcript as a note's text: one line per message, `YYYY-MM-DD HH:mm Author: text`, in the
 * workspace's time zone. Only the latest messages that fit a note (20 000 characters) are kept, said so at the
 * top. Read from D1, which has a message before its event leaves the room (room-outbox.ts writes, then sends).
 * The team's private notes are kept, marked `Author (private note):`: the CRM note is the team's too, and the
 * mark keeps them apart from what was said to the customer.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '../../../../db/client';
import { contacts, conversations, messages, operators } from '../../../../db/schema';
import { localDateTime } from '../../../../engines/templates';
import { workspaceTimeZone } from '../../../widget/settings';

/** A note's longest text. */
const MAX_NOTE = 20_000;
/** Messages read at most: a longer conversation keeps its latest. */
const MAX_MESSAGES = 2_000;
const CUT = '(earlier messages left out)\n';

/** The transcript's text; null when the conversation has no message (or is not the workspace's). */
export async function transcriptOf(db: Database, workspaceId: string, conversationId: string): Promise<string | null> {
	const [rows, timeZone] = await Promise.all([
		db
			.select({
				seq: messages.seq,
				authorKind: messages.authorKind,
				operatorName: operators.name,
				contactName: contacts.name,
				body: messages.body,
				attachments: messages.attachments,
				private: messages.private,
				createdAt: messages.createdAt,
			})
			.from(messages)
			.innerJoin(
				conversations,
				and(eq(conversations.id, messages.conversationId), eq(conversations.workspaceId, workspaceId)),
			)
			.leftJoin(contacts, and(eq(contacts.id, conversations.contactId), eq(contacts.workspaceId, workspaceId)))
			.leftJoin(
				operators,
				and(
					eq(operators.id, messages.authorId),
					eq(operators.workspaceId, workspaceId),
					eq(messages.authorKind, 'operator'),
				),
			)
			.where(and(eq(messages.workspaceId, workspaceId), eq(messages.conversationId, conversationId)))
			.orderBy(asc(messages.seq))
			.limit(MAX_MESSAGES),
		workspaceTimeZone(db, workspaceId),
	]);
	if (rows.length === 0) return null;
	const lines = rows.map((row) => {
		const { date, time } = localDateTime(row.createdAt, timeZone);
		const author =
			row.authorKind === 'contact'
				? (row.contactName ?? 'Customer')
				: row.authorKind === 'operator'
					? (row.operatorName ?? 'Operator')
					: row.authorKind === 'bot'
						? 'Bot'
						: 'Parley';
		const files = row.attachments.length > 0 ? ` [${row.attachments.map((a) => a.name).join(', ')}]` : '';
		const note = row.private ? ' (private note)' : '';
		return `${date} ${time} ${author}${note}: ${row.body}${files}`;
	});
	const text = lines.join('\n');
	if (text.length <= MAX_NOTE) return text;
	// The latest lines that fit after the cut notice, counted from the end (each line and its newline).
	let first = lines.length - 1;
	let length = CUT.length + (lines[first]?.length ?? 0);
	while (first > 0 && length + 1 + (lines[first - 1]?.length ?? 0) <= MAX_NOTE) {
		first--;
		length += 1 + (lines[first]?.length ?? 0);
	}
	return (CUT + lines.slice(first).join('\n')).slice(0, MAX_NOTE);
}
