import type { ContinuationFacts } from '../src/domain/channels/email/continuation';
import type { DomainEvent } from '../src/model/events';
import type { Participant } from '../src/protocol/live';
import {
	ADDED_COLUMNS,
	type LogRow,
	type NewLogRow,
	type RoomRow,
	SCHEMA,
	SCHEMA_VERSION,
	SCHEMA_VERSION_KEY,
	SEEN_BY_CONTACT,
	type Summary,
	type WrittenToD1,
} from './room-schema';

/**
 * The conversation room's SQLite storage. Every method is synchronous (the SQLite API is), so a sequence of
 * calls inside one event cannot interleave with another request: that is what makes numbering race-free.
 */
export class RoomStore {
	/**
	 * Whether this object has its tables: only once D1 confirmed the conversation (see `importFromD1`). An
	 * object that never served a real conversation gets none, so a made-up id leaves no storage behind.
	 */
	private created: boolean;
	/**
	 * The room row as last read, kept between writes: a message reads it several times (open, the flush's
	 * checks) and it changes only through this class. Forgotten after every write (see `changed`).
	 */
	private cachedRoom: RoomRow | null | undefined;
	/**
	 * Bumped by every change that leaves work for the outbox (a message, a read position): a flush that sees
	 * it unchanged across its awaits knows nothing arrived meanwhile, without asking storage. Memory only:
	 * a new instance's first flush reads what is pending from storage.
	 */
	private work = 0;
	/**
	 * The unread counts of the summary, counted once per instance (two COUNTs over the messages after each
	 * read position, which grow with the conversation) and then kept up by `append`; a read receipt, which
	 * moves a position, has them counted again.
	 */
	private unread: { byOperators: number; byContact: number } | null = null;
	/**
	 * The summary's `waitingSince`, found once per instance (the first contact message after the last operator
	 * one) and then kept up by `append`: a contact's message starts a wait, an operator's ends it.
	 */
	private waiting: { since: number | null } | null = null;

	/** The SCHEMA_VERSION this room's tables are at (undefined: none stored, no tables or older ones). */
	private readonly version: unknown;

	constructor(private readonly storage: DurableObjectStorage) {
		// One read when a room wakes: a stored version means the tables exist.
		this.version = storage.kv.get(SCHEMA_VERSION_KEY);
		this.created =
			this.version !== undefined ||
			storage.sql
				.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'room'")
				.one().n > 0;
	}

	/**
	 * At construction: brings an existing room's tables up to date (columns added by later releases), unless
	 * they are at SCHEMA_VERSION already.
	 */
	open(): void {
		if (this.created && this.version !== SCHEMA_VERSION) this.storage.transactionSync(() => this.migrate());
	}

	/**
	 * Creates the tables, or brings older ones up to date, in the transaction the caller runs (a new room's is
	 * its import's, see `importFromD1`): one commit. The statements go in one `exec`, as one: run one by one
	 * outside a transaction, each committed on its own, and a new room's 19 tables and indexes were most of
	 * what its first message cost beyond a warm room's (docs/performance.md).
	 */
	private migrate(): void {
		this.storage.sql.exec(SCHEMA.join(';\n'));
		// Tables created by an older release may lack later columns; new ones (no `room` table, the first
		// created, before this) have them all.
		if (this.created) {
			for (const { table, column, definition } of ADDED_COLUMNS) {
				const columns = this.storage.sql.exec<{ name: string }>(`PRAGMA table_info(${table})`).toArray();
				if (!columns.some((c) => c.name === column)) {
					this.storage.sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
				}
			}
		}
		this.storage.kv.put(SCHEMA_VERSION_KEY, SCHEMA_VERSION);
	}

	/** See `work`: compare two readings to learn whether work arrived in between. */
	get workVersion(): number {
		return this.work;
	}

	room(): RoomRow | null {
		if (!this.created) return null;
		this.cachedRoom ??= this.storage.sql.exec<RoomRow>('SELECT * FROM room WHERE id = 1').toArray()[0] ?? null;
		return this.cachedRoom;
	}

	/**
	 * Runs a write and forgets the cached room row afterwards, even when it throws (a rolled-back transaction):
	 * reads inside the write may have cached the row as it was before.
	 */
	private changed<T>(write: () => T): T {
		try {
			return write();
		} finally {
			this.cachedRoom = undefined;
		}
	}

	/**
	 * First use of this object: copies the conversation's summary and messages from D1, so numbering continues
	 * where D1 stands and a reconnecting socket can be sent any message. Leaves the store empty when the
	 * conversation does not exist in that workspace.
	 */
	async importFromD1(
		db: D1Database,
		workspaceId: string,
		conversationId: string,
		imported: (facts: ContinuationFacts) => void = () => undefined,
	): Promise<number> {
		// One round trip: the summary (with what a continuation by e-mail depends on) and the messages.
		const [summary, messages] = await db.batch<Record<string, unknown>>([
			db
				.prepare(
					`SELECT c.unread_by_operators, c.unread_by_contact, c.channel, s.continuation_enabled, s.continuation_delay_seconds
					FROM conversations c LEFT JOIN email_settings s ON s.workspace_id = c.workspace_id
					WHERE c.id = ? AND c.workspace_id = ?`,
				)
				.bind(conversationId, workspaceId),
			db
				.prepare(
					'SELECT seq, id, author_kind, author_id, body, attachments, interactive, client_message_id, created_at, private FROM messages WHERE conversation_id = ? AND workspace_id = ? ORDER BY seq',
				)
				.bind(conversationId, workspaceId),
		]);
		const conversation = summary?.results[0] as
			| {
					unread_by_operators: number;
					unread_by_contact: number;
					channel: string;
					continuation_enabled: number | null;
					continuation_delay_seconds: number | null;
			  }
			| undefined;
		if (!conversation) return 2;
		this.unread = null;
		this.waiting = null;
		const results = (messages?.results ?? []) as Array<Omit<LogRow, 'in_d1'>>;
		// D1 keeps unread counts, not read positions: read up to just before the k-th last unread message.
		const readSeq = (unread: number, counts: (m: Omit<LogRow, 'in_d1'>) => boolean) => {
			const counted = results.filter(counts);
			const firstUnread = counted[counted.length - unread];
			if (unread <= 0) return results.at(-1)?.seq ?? 0;
			// More unread than such messages (counts from an older writer): treat them all as unread.
			return firstUnread ? firstUnread.seq - 1 : 0;
		};
		this.changed(() =>
			this.storage.transactionSync(() => {
				this.migrate();
				for (const m of results) {
					this.storage.sql.exec(
						'INSERT INTO log (seq, id, author_kind, author_id, body, attachments, interactive, client_message_id, created_at, private, in_d1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)',
						m.seq,
						m.id,
						m.author_kind,
						m.author_id,
						m.body,
						m.attachments,
						m.interactive,
						m.client_message_id,
						m.created_at,
						m.private,
					);
				}
				this.storage.sql.exec(
					'INSERT INTO room (id, workspace_id, conversation_id, contact_read_seq, operator_read_seq, channel) VALUES (1, ?, ?, ?, ?, ?)',
					workspaceId,
					conversationId,
					readSeq(conversation.unread_by_contact, (m) => m.author_kind !== 'contact' && m.private === 0),
					readSeq(conversation.unread_by_operators, (m) => m.author_kind === 'contact'),
					conversation.channel,
				);
				// The history is no bot's input: the bots look at the messages from here on (`RoomBot`).
				this.storage.sql.exec('UPDATE bot_cursor SET seen_seq = (SELECT COALESCE(MAX(seq), 0) FROM log) WHERE id = 1');
				imported({
					channel: conversation.channel,
					delaySeconds: conversation.continuation_delay_seconds,
					enabled: conversation.continuation_enabled !== 0,
				});
			}),
		);
		// Only once committed: `room` reads the tables from now on.
		this.created = true;
		return 2;
	}

	/** The last message's seq; for the contact, the last one it may see (a private note after it is not its). */
	lastSeq(seenBy: Participant = 'operator'): number {
		const where = seenBy === 'contact' ? `WHERE ${SEEN_BY_CONTACT}` : '';
		return this.storage.sql.exec<{ seq: number | null }>(`SELECT MAX(seq) AS seq FROM log ${where}`).one().seq ?? 0;
	}

	byClientId(clientMessageId: string): LogRow | null {
		return (
			this.storage.sql.exec<LogRow>('SELECT * FROM log WHERE client_message_id = ?', clientMessageId).toArray()[0] ??
			null
		);
	}

	/**
	 * The messages after `seq`, in order; for the contact, without the private notes, so that a backlog of
	 * `limit` is `limit` messages it sees (a cut one filtered afterwards could hold none, and a reconnect from
	 * the same seq would get the same notes forever).
	 */
	after(seq: number, limit: number, seenBy: Participant = 'operator'): LogRow[] {
		const visible = seenBy === 'contact' ? `AND ${SEEN_BY_CONTACT}` : '';
		return this.storage.sql
			.exec<LogRow>(`SELECT * FROM log WHERE seq > ? ${visible} ORDER BY seq LIMIT ?`, seq, limit)
			.toArray();
	}

	/**
	 * Numbers and stores a message and its events in one transaction. `reopen`: a visitor's message that
	 * reopens the conversation if D1 has it closed from before the message; the flush that writes it decides
	 * (see `reopened_at`). Only the latest such time is kept: one check covers all earlier ones.
	 */
	append(message: NewLogRow, eventsFor: (row: LogRow) => DomainEvent[], reopen = false): LogRow {
		const row = this.changed(() =>
			this.storage.transactionSync(() => {
				const row: LogRow = { ...message, seq: this.lastSeq() + 1, in_d1: 0 };
				this.storage.sql.exec(
					'INSERT INTO log (seq, id, author_kind, author_id, body, attachments, interactive, client_message_id, created_at, private, in_d1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)',
					row.seq,
					row.id,
					row.author_kind,
					row.author_id,
					row.body,
					row.attachments,
					row.interactive,
					row.client_message_id,
					row.created_at,
					row.private,
				);
				this.storage.sql.exec('UPDATE room SET summary_version = summary_version + 1 WHERE id = 1');
				if (reopen) {
					this.storage.sql.exec(
						'UPDATE room SET reopened_at = MAX(COALESCE(reopened_at, 0), ?) WHERE id = 1',
						row.created_at,
					);
				}
				for (const event of eventsFor(row)) this.addEvent(event);
				this.work++;
				return row;
			}),
		);
		// Committed: the other side has one more message to read (a note is nobody's to read but the team's own).
		if (this.unread && row.author_kind === 'contact') this.unread.byOperators++;
		else if (this.unread && row.private === 0) this.unread.byContact++;
		// A note is no answer: the customer goes on waiting.
		if (this.waiting && row.author_kind === 'contact') this.waiting.since ??= row.created_at;
		else if (this.waiting && row.author_kind === 'operator' && row.private === 0) this.waiting.since = null;
		return row;
	}

	readSeq(reader: Participant): number {
		const room = this.room();
		return (reader === 'contact' ? room?.contact_read_seq : room?.operator_read_seq) ?? 0;
	}

	/** Moves a read position forward (never back, never past the last message); null when nothing moved. */
	markRead(reader: Participant, seq: number, eventFor: (seq: number) => DomainEvent): number | null {
		this.unread = null;
		return this.changed(() =>
			this.storage.transactionSync(() => {
				const upTo = Math.min(seq, this.lastSeq());
				if (upTo <= this.readSeq(reader)) return null;
				const column = reader === 'contact' ? 'contact_read_seq' : 'operator_read_seq';
				this.storage.sql.exec(
					`UPDATE room SET ${column} = ?, summary_version = summary_version + 1 WHERE id = 1`,
					upTo,
				);
				this.addEvent(eventFor(upTo));
				this.work++;
				return upTo;
			}),
		);
	}

	summary(): Summary {
		const room = this.room();
		// The last message by seq is the latest: seqs are handed out in time order (one index step, no scan).
		const last = this.storage.sql
			.exec<{ seq: number; at: number }>('SELECT seq, created_at AS at FROM log ORDER BY seq DESC LIMIT 1')
			.toArray()[0] ?? { seq: null, at: null };
		const count = (where: string, after: number) =>
			this.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM log WHERE ${where} AND seq > ?`, after).one().n;
		this.unread ??= {
			byOperators: count("author_kind = 'contact'", room?.operator_read_seq ?? 0),
			byContact: count(`author_kind != 'contact' AND ${SEEN_BY_CONTACT}`, room?.contact_read_seq ?? 0),
		};
		this.waiting ??= {
			since: this.storage.sql
				.exec<{ at: number | null }>(
					`SELECT MIN(created_at) AS at FROM log WHERE author_kind = 'contact'
					AND seq > COALESCE((SELECT MAX(seq) FROM log WHERE author_kind = 'operator' AND private = 0), 0)`,
				)
				.one().at,
		};
		return {
			lastSeq: last.seq ?? 0,
			lastMessageAt: last.at,
			unreadByOperators: this.unread.byOperators,
			unreadByContact: this.unread.byContact,
			waitingSince: this.waiting.since,
		};
	}

	/** Whether D1 lacks a message or the latest summary. */
	hasPendingWrites(): boolean {
		const room = this.room();
		const unwritten = this.storage.sql.exec('SELECT 1 FROM log WHERE in_d1 = 0 LIMIT 1').toArray().length > 0;
		return unwritten || (room !== null && room.summary_version > room.summary_flushed);
	}

	hasPendingEvents(): boolean {
		return this.storage.sql.exec('SELECT 1 FROM outbox LIMIT 1').toArray().length > 0;
	}

	/** Messages D1 does not have yet, in order, from after `afterSeq` (what a write not yet recorded covers). */
	notInD1(limit: number, afterSeq = 0): LogRow[] {
		return this.storage.sql
			.exec<LogRow>('SELECT * FROM log WHERE in_d1 = 0 AND seq > ? ORDER BY seq LIMIT ?', afterSeq, limit)
			.toArray();
	}

	/**
	 * Records a successful D1 write (a later reopen time, stored while the write was in flight, stays
	 * pending). The messages written are the oldest unwritten ones up to `upToSeq`: later ones were appended
	 * after the write read its batch, above it.
	 */
	wroteToD1(written: WrittenToD1): void {
		this.changed(() =>
			this.storage.transactionSync(() => {
				this.storage.sql.exec('UPDATE log SET in_d1 = 1 WHERE in_d1 = 0 AND seq <= ?', written.upToSeq);
				this.storage.sql.exec(
					'UPDATE room SET summary_flushed = MAX(summary_flushed, ?) WHERE id = 1',
					written.summaryVersion,
				);
				if (written.reopenedAt !== null) {
					this.storage.sql.exec(
						'UPDATE room SET reopened_at = NULL WHERE id = 1 AND reopened_at = ?',
						written.reopenedAt,
					);
				}
			}),
		);
	}

	/** The events not sent yet, oldest first, from after `afterId` (what a send not yet recorded covers). */
	pendingEvents(limit: number, afterId = 0): Array<{ id: number; event: DomainEvent }> {
		return this.storage.sql
			.exec<{ id: number; event: string }>(
				'SELECT id, event FROM outbox WHERE id > ? ORDER BY id LIMIT ?',
				afterId,
				limit,
			)
			.toArray()
			.map((r) => ({ id: r.id, event: JSON.parse(r.event) as DomainEvent }));
	}

	/** The events sent: the oldest pending ones, up to `upToId` (see `pendingEvents`). */
	sentEvents(upToId: number): void {
		this.storage.sql.exec('DELETE FROM outbox WHERE id <= ?', upToId);
	}

	/** Counts consecutive failed flushes (for the retry backoff); reset by a clean one. */
	setAttempts(attempts: number): void {
		if (this.room()?.outbox_attempts === attempts) return;
		this.changed(() => this.storage.sql.exec('UPDATE room SET outbox_attempts = ? WHERE id = 1', attempts));
	}

	/** Queues an event of a change made in the caller's turn (a bot run's start or end) for the outbox. */
	queueEvent(event: DomainEvent): void {
		this.addEvent(event);
		this.work++;
	}

	private addEvent(event: DomainEvent): void {
		this.storage.sql.exec('INSERT INTO outbox (event) VALUES (?)', JSON.stringify(event));
	}
}
