/**
 * The inbox search: conversations whose contact (name, e-mail, phone, short id) or whose messages match a
 * query, through the two FTS5 indexes of migrations 0035 and 0036 (`contacts_fts`, trigram; `messages_fts`,
 * words and the workspace, so it answers with the workspace's rows only), never a scan of `messages`. Both reads walk their index newest row first and stop at the page's end, so a
 * page reads about as many rows however many messages the workspace holds (see docs/decisions/0075).
 */
import { z } from '@hono/zod-openapi';
import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { conversations } from '../../db/schema';
import { Invalid } from '../../lib/errors';
import {
	inWorkspaceQuery,
	MARK_CLOSE,
	MARK_OPEN,
	MAX_SEARCH_LENGTH,
	type SnippetPart,
	searchTerms,
	snippetParts,
	substringQuery,
} from '../../lib/search-terms';
import { AUTHOR_KINDS } from '../../model/messages';
import { tagNames } from './conversations';
import { type ConversationFilters, conversationRowSchema, filterConditions, type Include, rowView } from './list';

/** What a person searches for: trimmed, 1 to MAX_SEARCH_LENGTH characters. */
export const searchQueryParam = z
	.string()
	.trim()
	.min(1)
	.max(MAX_SEARCH_LENGTH)
	.openapi({
		description: `Words to find (1 to ${MAX_SEARCH_LENGTH} characters). Every word must match: as the start of a word of a message, or anywhere in the contact's name, e-mail, phone or short id (three characters or more). Quotes, stars and operators are searched as text.`,
		example: 'refund',
	});

/** Where a page resumes: in the contact matches (their index's rowid, then the conversation), or the messages'. */
export const searchCursor = z.discriminatedUnion('phase', [
	z.object({ phase: z.literal('contact'), row: z.number().int(), id: z.string() }),
	z.object({ phase: z.literal('message'), row: z.number().int() }),
]);
export type SearchCursor = z.infer<typeof searchCursor>;

const snippetSchema = z
	.array(
		z.object({
			text: z.string().openapi({ description: 'A piece of the text, as it was written.' }),
			match: z.boolean().openapi({ description: 'Whether this piece is a word that matched.' }),
		}),
	)
	.openapi('SearchSnippet', { description: 'The matched text in parts; `match` marks the words that matched.' });

const CONTACT_FIELDS = ['name', 'email', 'phone', 'shortId'] as const;

export const searchHitSchema = z
	.object({
		conversation: conversationRowSchema.openapi({
			description: 'The conversation, with its contact and last message.',
		}),
		match: z
			.discriminatedUnion('in', [
				z
					.object({
						in: z.literal('contact').openapi({ description: "The contact's name, e-mail, phone or short id matched." }),
						field: z.enum(CONTACT_FIELDS).openapi({
							description: "Which of the contact's fields matched; `shortId` is the last five characters of its id.",
						}),
						snippet: snippetSchema,
					})
					.openapi('SearchContactMatch'),
				z
					.object({
						in: z.literal('message').openapi({ description: 'A message of the conversation matched.' }),
						messageId: z.string().openapi({ description: 'The matching message.' }),
						seq: z.number().int().openapi({ description: 'Its place in the conversation.' }),
						authorKind: z.enum(AUTHOR_KINDS).openapi({ description: 'Who wrote it.' }),
						private: z.boolean().openapi({ description: 'A private note of the team.' }),
						createdAt: z.string().openapi({ description: 'When it was sent (ISO 8601).' }),
						snippet: snippetSchema,
					})
					.openapi('SearchMessageMatch'),
			])
			.openapi({ description: 'What matched: a field of the contact, or a message.' }),
	})
	.openapi('SearchHit');
export type SearchHit = z.infer<typeof searchHitSchema>;

const ROW: ReadonlySet<Include> = new Set(['contact', 'lastMessage']);
// Words of context either side of a match in a message's snippet.
const SNIPPET_TOKENS = 12;

// The conversation's columns under names of their own (`c_<key>`), read back through drizzle's own decoding.
const COLUMNS = Object.entries(getTableColumns(conversations));
const conversationColumns = sql.join(
	COLUMNS.map(([key, column]) => sql.raw(`"conversations"."${column.name}" AS "c_${key}"`)),
	sql`, `,
);
type RawRow = Record<string, unknown>;
function conversationOf(row: RawRow): typeof conversations.$inferSelect {
	const decoded = COLUMNS.map(([key, column]) => {
		const value = row[`c_${key}`];
		return [key, value === null || value === undefined ? null : column.mapFromDriverValue(value)];
	});
	return Object.fromEntries(decoded) as typeof conversations.$inferSelect;
}

// What a list row carries beside the conversation (as in list.ts), by the same subqueries.
const extras = sql`${tagNames} AS tag_names,
	(SELECT json_object('name', ct.name, 'email', ct.email, 'phone', ct.phone) FROM contacts ct WHERE ct.id = conversations.contact_id AND ct.workspace_id = conversations.workspace_id) AS contact_json,
	(SELECT json_object('seq', m.seq, 'authorKind', m.author_kind, 'private', json(CASE WHEN m.private THEN 'true' ELSE 'false' END), 'text', substr(m.body, 1, 140)) FROM messages m WHERE m.conversation_id = conversations.id AND m.workspace_id = conversations.workspace_id AND m.seq = conversations.last_message_seq) AS last_json`;

function rowOf(row: RawRow) {
	return rowView(
		{
			conversation: conversationOf(row),
			tagNames: row.tag_names as string,
			contact: row.contact_json as string | null,
			lastMessage: row.last_json as string | null,
		},
		ROW,
	);
}

const open = sql.raw(`char(${MARK_OPEN.codePointAt(0)})`);
const close = sql.raw(`char(${MARK_CLOSE.codePointAt(0)})`);

/** Conversations of the contacts matching `match`, newest contact first: one statement. */
function contactMatches(
	db: Database,
	workspaceId: string,
	match: string,
	where: SQL,
	after: SearchCursor | null,
	take: number,
) {
	const resume =
		after?.phase === 'contact'
			? sql`AND (contacts_fts.rowid < ${after.row} OR (contacts_fts.rowid = ${after.row} AND conversations.id < ${after.id}))`
			: sql``;
	return db.all<RawRow>(sql`SELECT ${conversationColumns}, ${extras}, contacts_fts.rowid AS hit_row,
		json_array(${sql.join(
			[0, 1, 2, 3].map((column) => sql`highlight(contacts_fts, ${sql.raw(String(column))}, ${open}, ${close})`),
			sql`, `,
		)}) AS fields
		FROM contacts_fts
		JOIN contacts ON contacts.rowid = contacts_fts.rowid
		JOIN conversations ON conversations.workspace_id = contacts.workspace_id AND conversations.contact_id = contacts.id
		WHERE contacts_fts MATCH ${match} AND contacts.workspace_id = ${workspaceId} AND ${where} ${resume}
		ORDER BY contacts_fts.rowid DESC, conversations.id DESC
		LIMIT ${take}`);
}

/** Messages matching `match` in the workspace's conversations that pass `where`, newest first: one statement. */
function messageMatches(
	db: Database,
	workspaceId: string,
	match: string,
	where: SQL,
	after: SearchCursor | null,
	take: number,
) {
	const resume = after?.phase === 'message' ? sql`AND messages_fts.rowid < ${after.row}` : sql``;
	return db.all<RawRow>(sql`SELECT ${conversationColumns}, ${extras}, messages_fts.rowid AS hit_row,
		messages.id AS message_id, messages.seq AS message_seq, messages.author_kind AS author_kind,
		messages.private AS private, messages.created_at AS message_at,
		snippet(messages_fts, 0, ${open}, ${close}, '…', ${SNIPPET_TOKENS}) AS snippet
		FROM messages_fts
		JOIN messages ON messages.rowid = messages_fts.rowid
		JOIN conversations ON conversations.id = messages.conversation_id
		WHERE messages_fts MATCH ${match} AND messages.workspace_id = ${workspaceId} AND ${where} ${resume}
		ORDER BY messages_fts.rowid DESC
		LIMIT ${take}`);
}

function contactHit(row: RawRow): SearchHit {
	const fields = JSON.parse(row.fields as string) as Array<string | null>;
	const at = Math.max(
		0,
		fields.findIndex((value) => value?.includes(MARK_OPEN)),
	);
	return {
		conversation: rowOf(row),
		match: { in: 'contact', field: CONTACT_FIELDS[at] ?? 'name', snippet: snippetParts(fields[at] ?? '') },
	};
}

function messageHit(row: RawRow): SearchHit {
	const snippet: SnippetPart[] = snippetParts(row.snippet as string);
	return {
		conversation: rowOf(row),
		match: {
			in: 'message',
			messageId: row.message_id as string,
			seq: row.message_seq as number,
			authorKind: row.author_kind as (typeof AUTHOR_KINDS)[number],
			private: row.private === 1,
			createdAt: new Date(row.message_at as number).toISOString(),
			snippet,
		},
	};
}

/**
 * One page of search hits: first the conversations of the contacts that match, then the messages that match,
 * newest first, each with its highlighted snippet; the inbox's filters apply to both. A query with no word
 * (only quotes or stars) is Invalid. The first page sends both reads together.
 */
export async function searchConversations(
	db: Database,
	workspaceId: string,
	query: string,
	filters: ConversationFilters,
	after: SearchCursor | null,
	limit: number,
): Promise<{ data: SearchHit[]; nextCursor: SearchCursor | null }> {
	const terms = searchTerms(query);
	if (terms.length === 0) {
		throw new Invalid('give at least one word (letters or digits) to search for', { field: ['q'], source: 'query' });
	}
	const where = filterConditions(workspaceId, filters) ?? sql`1`;
	const inContacts = after?.phase !== 'message' ? substringQuery(terms) : null;
	const [contactRows, messageRows] = await Promise.all([
		inContacts === null ? [] : contactMatches(db, workspaceId, inContacts, where, after, limit + 1),
		messageMatches(db, workspaceId, inWorkspaceQuery(workspaceId, terms), where, after, limit + 1),
	]);
	if (contactRows.length > limit) {
		const page = contactRows.slice(0, limit);
		const last = page.at(-1) as RawRow;
		return {
			data: page.map(contactHit),
			nextCursor: { phase: 'contact', row: last.hit_row as number, id: last.c_id as string },
		};
	}
	const room = limit - contactRows.length;
	const messagesShown = messageRows.slice(0, room);
	const last = messagesShown.at(-1);
	return {
		data: [...contactRows.map(contactHit), ...messagesShown.map(messageHit)],
		// With no room left on this page, the messages start on the next one from the newest.
		nextCursor:
			messageRows.length > room
				? { phase: 'message', row: (last?.hit_row as number | undefined) ?? Number.MAX_SAFE_INTEGER }
				: null,
	};
}
