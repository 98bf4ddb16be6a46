/**
 * What a conversation room keeps in its SQLite storage: the rows' shapes, the tables (the timers' and bot
 * runs' included), the schema version that spares a waking room its DDL, and a stored message in the API's
 * shape and as its event.
 */
import type { AttachmentMeta } from '../src/db/schema';
import { type CheckedMessage, messageActor } from '../src/domain/conversations/message-command';
import { iso } from '../src/lib/ids';
import type { Actor } from '../src/model/actor';
import { type DomainEvent, newEvent } from '../src/model/events';
import type { AuthorKind, Interactive, MessageView } from '../src/model/messages';
import type { Participant } from '../src/protocol/live';
import { BOT_SCHEMA } from './bot-store';
import { TIMERS_SCHEMA } from './room-timers';

/** The conversation this object serves, and its read and flush state. One row. */
export type RoomRow = {
	workspace_id: string;
	conversation_id: string;
	contact_read_seq: number;
	operator_read_seq: number;
	/** Bumped by every change to what the D1 summary row shows; `summary_flushed` is the last one written. */
	summary_version: number;
	summary_flushed: number;
	outbox_attempts: number;
	/**
	 * The time of the latest visitor message not yet checked against D1's status (the flush reopens the
	 * conversation if it was closed before then, see `RoomOutbox`); null once D1 has seen it.
	 */
	reopened_at: number | null;
	/**
	 * The conversation's channel (`widget`, `email`, `api`, …), copied from D1 with the room's import and
	 * carried by each `message.created` event; null in a room imported before the column existed.
	 */
	channel: string | null;
};

/** One message of the conversation, as this object keeps it. `in_d1` is 0 until D1 has the copy. */
export type LogRow = {
	seq: number;
	id: string;
	author_kind: AuthorKind;
	author_id: string | null;
	body: string;
	attachments: string;
	/** The message's `Interactive` as JSON; null for a plain message. */
	interactive: string | null;
	client_message_id: string | null;
	created_at: number;
	in_d1: number;
	/** 1 for a private note (the team's, never the visitor's to see), 0 otherwise. */
	private: number;
};

export type NewLogRow = Omit<LogRow, 'seq' | 'in_d1'>;

/**
 * A D1 write the room's outbox made: the messages up to `upToSeq` (the oldest unwritten ones, in order), the
 * summary as of `summaryVersion`, and the reopen check of `reopenedAt` (null: none made).
 */
export interface WrittenToD1 {
	upToSeq: number;
	summaryVersion: number;
	reopenedAt: number | null;
}

export interface Summary {
	lastSeq: number;
	lastMessageAt: number | null;
	unreadByOperators: number;
	unreadByContact: number;
	/** When the customer started waiting for an operator (see `conversations.waiting_since`); null when not. */
	waitingSince: number | null;
}

export const SCHEMA = [
	`CREATE TABLE IF NOT EXISTS room (
		id INTEGER PRIMARY KEY CHECK (id = 1), workspace_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
		contact_read_seq INTEGER NOT NULL DEFAULT 0, operator_read_seq INTEGER NOT NULL DEFAULT 0,
		summary_version INTEGER NOT NULL DEFAULT 0, summary_flushed INTEGER NOT NULL DEFAULT 0,
		outbox_attempts INTEGER NOT NULL DEFAULT 0, reopened_at INTEGER, channel TEXT)`,
	`CREATE TABLE IF NOT EXISTS log (
		seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, author_kind TEXT NOT NULL, author_id TEXT,
		body TEXT NOT NULL, attachments TEXT NOT NULL, client_message_id TEXT UNIQUE,
		created_at INTEGER NOT NULL, in_d1 INTEGER NOT NULL DEFAULT 0, interactive TEXT,
		private INTEGER NOT NULL DEFAULT 0)`,
	'CREATE INDEX IF NOT EXISTS log_not_in_d1 ON log (seq) WHERE in_d1 = 0',
	'CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL)',
	// The room's timers (`RoomTimers`): a room from before they existed gets the table on its next start.
	...TIMERS_SCHEMA,
	// The room's bot runs (`RoomBot`).
	...BOT_SCHEMA,
];

/**
 * The version of SCHEMA and ADDED_COLUMNS, kept in the room's key-value storage: a room that stored this one
 * starts without running its DDL again (a dozen statements on every wake from hibernation otherwise). Bump
 * it with any change to either.
 */
export const SCHEMA_VERSION = 4;
export const SCHEMA_VERSION_KEY = 'schema-version';

/**
 * Columns added to a table after rooms were already created with it: `CREATE TABLE IF NOT EXISTS` leaves
 * an existing table as it is, so each is added on migrate when the table lacks it.
 */
export const ADDED_COLUMNS: Array<{ table: string; column: string; definition: string }> = [
	{ table: 'log', column: 'interactive', definition: 'TEXT' },
	{ table: 'room', column: 'reopened_at', definition: 'INTEGER' },
	{ table: 'log', column: 'private', definition: 'INTEGER NOT NULL DEFAULT 0' },
	{ table: 'room', column: 'channel', definition: 'TEXT' },
];

/** What a visitor's socket reads of the log: everything but the team's private notes. */
export const SEEN_BY_CONTACT = 'private = 0';

/** A stored message in the API's shape. */
export function messageView(row: LogRow, conversationId: string): MessageView {
	return {
		id: row.id,
		conversationId,
		seq: row.seq,
		authorKind: row.author_kind,
		authorId: row.author_id,
		text: row.body,
		attachments: JSON.parse(row.attachments) as AttachmentMeta[],
		interactive: row.interactive === null ? null : (JSON.parse(row.interactive) as Interactive),
		clientMessageId: row.client_message_id,
		private: row.private === 1,
		createdAt: iso(row.created_at),
	};
}

/**
 * The `message.created` event of a stored message (client ids are the sender's business, not consumers'),
 * with its conversation's channel when the room knows it.
 */
export function messageEvent(input: CheckedMessage, row: LogRow, channel: string | null): DomainEvent {
	const { attachments, clientMessageId: _, ...summary } = messageView(row, input.conversationId);
	return newEvent(
		'message.created',
		input.workspaceId,
		messageActor(input),
		{ message: { ...summary, attachmentCount: attachments.length }, channel },
		row.created_at,
	);
}

/** Who moved a read position: the contact, or the operator who read. */
export function readerActor(reader: Participant, operatorId: string | null): Actor {
	return reader === 'contact' ? { kind: 'contact', id: null } : { kind: 'operator', id: operatorId };
}
