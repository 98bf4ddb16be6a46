import { and, eq, lte, type SQL, sql } from 'drizzle-orm';
import { type Database, openDatabase, runBatch, type Statement } from '../src/db/client';
import { conversations, messages, workspaces } from '../src/db/schema';
import { latestBookmark } from '../src/db/sessions';
import { workspaceBinding } from '../src/db/shards';
import { isTeamReply } from '../src/domain/conversations/messages';
import { release } from '../src/events/commit';
import { deliverEvents } from '../src/events/deliver';
import { changesOf, type DomainEvent, domainEventSchema, newEvent } from '../src/model/events';
import type { RoomRow, WrittenToD1 } from './room-schema';
import type { RoomStore } from './room-store';
import { type RoomTimers, retryDelay, type ScheduleMode } from './room-timers';

const D1_BATCH = 50;
const QUEUE_BATCH = 100;
/** A message row binds 12 values and D1 at most 100 per statement. */
const ROWS_PER_INSERT = 8;
/** How long a flush may take before the alarm assumes the object was evicted mid-way and finishes it. */
const WATCHDOG_MS = 30_000;
/** How long a change left for the next flush (a throttled read receipt) may wait for it. */
const SOON_MS = 1_000;
/**
 * How long the outbox timer outlives the flush that sent everything: a message in that time finds it stored
 * and costs no timer or alarm write (two writes, and two commits, per message otherwise). A room idle that
 * long drops it. The in-memory timer that does so keeps the room from hibernating meanwhile: a room stays in
 * memory (and billed) about 10 s longer after its last message, for a conversation in full swing that writes
 * its alarm once instead of twice a message.
 */
export const KEEP_WATCHDOG_MS = 10_000;
/** The id and kind of the outbox's one timer (see `RoomTimers`): whenever work is pending, it is scheduled. */
export const OUTBOX_TIMER = 'outbox';

/**
 * Copies a conversation room's state out of the object: messages and the summary row to D1, events to the
 * Queue. Everything it sends is already durable in the room's storage, so a failure only delays it: its
 * timer (`OUTBOX_TIMER`) retries with backoff until it goes through. Writes are idempotent (messages by id, the
 * summary as absolute values guarded by seq), so a retry after a lost answer changes nothing.
 */
export class RoomOutbox {
	/** D1 statements sent so far by this instance: a metric, for the request that wants to report its cost. */
	statementsSent = 0;
	/** The bookmark of this instance's latest D1 write: handed back with a send, for the caller's next read. */
	d1Bookmark: string | null = null;
	// Coalesce concurrent callers into one loop each; they are never the only copy of anything.
	private draining: Promise<void> | null = null;
	private writing: Promise<void> | null = null;
	/**
	 * Reopen events D1 committed (in its own event outbox) in the flush under way: sent after the room's own
	 * events, so `message.created` goes first. Only that flush sends them: if it fails (or the instance is
	 * lost) they are the sweep's alone, see `drain`.
	 */
	private committed: DomainEvent[] = [];
	/**
	 * The workspace's `live_feed` flag as read in this instance's latest D1 write (null before any): events are
	 * pushed to the inbox feed only while it is set. See `WorkspaceHub.syncFeedFlag` for why a push skipped
	 * on a clear flag is never missed.
	 */
	private liveFeed: boolean | null = null;
	/**
	 * What this instance has written to D1, and the room's events it has sent (ids up to `sentUpTo`, 0 for
	 * none), not yet recorded in storage. A flush records nothing itself, which would cost a commit of its
	 * own: `record` rides along with the next change's commit (see `arm`), or with the drop of the idle timer.
	 * Until then the writes and sends skip what is here. An instance lost before recording leaves that work
	 * pending, and the next flush does it again: D1's writes are idempotent, and events are delivered at
	 * least once (consumers know them by id).
	 */
	private written: WrittenToD1 | null = null;
	private sentUpTo = 0;
	/** The in-memory timer that drops the outbox timer once the room has been idle (see KEEP_WATCHDOG_MS). */
	private idle: ReturnType<typeof setTimeout> | undefined;

	constructor(
		private readonly env: Env,
		private readonly store: RoomStore,
		private readonly timers: RoomTimers,
	) {}

	/**
	 * Brings D1 (what the API reads) up to date with the room. Throws when D1 fails: the caller's message is
	 * safe in the room all the same, and `flush` schedules the retry.
	 */
	writeMessages(): Promise<void> {
		this.writing ??= (async () => {
			for (;;) {
				const work = this.store.workVersion;
				const full = await this.writeToD1();
				// Messages that arrived during the write (or beyond a full batch) go in the next round.
				if (!full && this.store.workVersion === work) break;
			}
		})().finally(() => {
			this.writing = null;
		});
		return this.writing;
	}

	/** Sends everything pending, D1 first, then the events. Never throws: a failure schedules the retry. */
	flush(): Promise<void> {
		this.draining ??= this.drain().finally(() => {
			this.draining = null;
		});
		return this.draining;
	}

	/**
	 * Schedules the timer that finishes the work if this object is evicted in the middle of a flush. Call it in
	 * the same turn as the change, without awaiting anything in between: the runtime then stores both together.
	 * Only ever sooner: a retry already due earlier keeps its time. What earlier flushes sent is recorded in
	 * the same commit (see `written`).
	 */
	arm(): Promise<void> {
		this.record();
		return this.retryAt(Date.now() + WATCHDOG_MS, 'earliest');
	}

	/** Like `arm`, for a change that is not flushed now: the timer flushes it within a second. */
	armSoon(): Promise<void> {
		this.record();
		return this.retryAt(Date.now() + SOON_MS, 'earliest');
	}

	/**
	 * For a firing alarm, before it runs the due timers. Pending work becomes due now, whatever its timer said,
	 * so every alarm sends what is pending, as before timers existed (a flush is idempotent; at worst it spends a
	 * backoff step early). That covers a room stored by an older release (pending work under its own alarm, no
	 * outbox timer) and a test running the alarm ahead of its time. With nothing pending, an outbox timer has nothing
	 * to watch: it goes, and the alarm moves to the next timer. (After an instance lost before it recorded what
	 * it sent, that shows as pending: its D1 rows are written again, idempotently, and its events sent again.)
	 */
	beforeAlarm(): void {
		this.record();
		if (this.store.hasPendingWrites() || this.store.hasPendingEvents()) {
			this.timers.schedule({ id: OUTBOX_TIMER, kind: OUTBOX_TIMER, dueAt: Date.now(), payload: null }, 'earliest');
		} else {
			this.timers.cancel(OUTBOX_TIMER);
		}
	}

	private retryAt(dueAt: number, mode: ScheduleMode): Promise<void> {
		this.timers.schedule({ id: OUTBOX_TIMER, kind: OUTBOX_TIMER, dueAt, payload: null }, mode);
		return this.timers.scheduleNextAlarm();
	}

	/**
	 * Sends until nothing is left, writing nothing to storage (see `written`). The outbox timer stays (see
	 * KEEP_WATCHDOG_MS): work that arrives meanwhile finds it stored and due sooner, so its `earliest`
	 * schedule changes no row and the alarm stays.
	 */
	private async drain(): Promise<void> {
		try {
			for (;;) {
				const work = this.store.workVersion;
				await this.writeMessages();
				const full = await this.sendEvents();
				// Work that arrived during the awaits (or events beyond a full batch) goes in this same drain.
				if (!full && this.store.workVersion === work) break;
			}
			this.store.setAttempts(0);
			this.dropWatchdogWhenIdle();
		} catch (error) {
			// What did go out is recorded with the failure count, so the retry does not do it again.
			this.record();
			// The committed reopen events stay in D1's outbox, where the sweep sends each row once it is
			// SWEEP_AFTER_MS old. Kept here for the retry, one could go out twice: once from memory after
			// the backoff (up to minutes), once from the sweep meanwhile. So they are handed over now.
			this.committed = [];
			const attempts = (this.store.room()?.outbox_attempts ?? 0) + 1;
			this.store.setAttempts(attempts);
			const delay = retryDelay(attempts);
			console.error(`conversation outbox flush failed (attempt ${attempts}); retrying in ${delay} ms`, error);
			// Exactly the backoff, even if a change armed the timer sooner meanwhile: the flush just failed.
			await this.retryAt(Date.now() + delay, 'replace');
		}
	}

	/** After a flush that sent everything: the timer goes once the room has been idle for KEEP_WATCHDOG_MS. */
	private dropWatchdogWhenIdle(): void {
		clearTimeout(this.idle);
		const work = this.store.workVersion;
		this.idle = setTimeout(() => {
			this.idle = undefined;
			this.dropWatchdog(work).catch((error) => console.error('could not drop the outbox timer', error));
		}, KEEP_WATCHDOG_MS);
	}

	/**
	 * Drops the outbox timer, and moves the alarm to the room's next timer (a bot's Delay) or clears it, if
	 * nothing is pending and no work arrived since `work` (a reading of the work counter); returns whether it
	 * did. An instance lost before its idle timer fires leaves the outbox timer to its alarm, which redoes
	 * what that instance had not recorded (see `beforeAlarm`) and drops it then.
	 */
	async dropWatchdog(work = this.store.workVersion): Promise<boolean> {
		if (this.draining || this.store.workVersion !== work) return false;
		this.record();
		if (this.store.hasPendingWrites() || this.store.hasPendingEvents()) return false;
		this.timers.cancel(OUTBOX_TIMER);
		await this.timers.scheduleNextAlarm();
		return true;
	}

	/**
	 * Records in storage what went out since the last record (`written`, `sentUpTo`), synchronously: in the
	 * turn of another write, it shares that write's commit.
	 */
	record(): void {
		if (this.written) {
			this.store.wroteToD1(this.written);
			this.written = null;
		}
		if (this.sentUpTo > 0) {
			this.store.sentEvents(this.sentUpTo);
			this.sentUpTo = 0;
		}
	}

	/** Writes what D1 lacks, up to a batch; returns whether the batch was full (more may be waiting). */
	private async writeToD1(): Promise<boolean> {
		const room = this.store.room();
		if (!room) return false;
		const written = this.written;
		const pending = this.store.notInD1(D1_BATCH, written?.upToSeq ?? 0);
		const summaryFlushed = Math.max(room.summary_flushed, written?.summaryVersion ?? 0);
		if (pending.length === 0 && room.summary_version <= summaryFlushed) return false;
		// A `first-primary` session of its own: its one batch goes to the primary, as through the binding, and it
		// yields the bookmark the API hands back (docs/EDGE.md section 5). drizzle uses only prepare and batch.
		const session = (await workspaceBinding(this.env, room.workspace_id)).withSession('first-primary');
		const db = openDatabase(session as unknown as D1Database);
		const summary = this.store.summary();
		const rows = pending.map((m) => ({
			id: m.id,
			workspaceId: room.workspace_id,
			conversationId: room.conversation_id,
			seq: m.seq,
			authorKind: m.author_kind,
			authorId: m.author_id,
			body: m.body,
			attachments: JSON.parse(m.attachments),
			interactive: m.interactive === null ? null : JSON.parse(m.interactive),
			clientMessageId: m.client_message_id,
			private: m.private === 1,
			createdAt: m.created_at,
		}));
		// Several messages per statement (D1 binds at most 100 values to one), not one statement each.
		const statements: Statement[] = [];
		for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
			statements.push(
				db
					.insert(messages)
					.values(rows.slice(i, i + ROWS_PER_INSERT))
					.onConflictDoNothing(),
			);
		}
		const inserts = statements.length;
		const at = summary.lastMessageAt ?? 0;
		// The batch is in seq order and D1 receives the messages in order, so the first operator message of the
		// first batch that has one is the conversation's first response; a later one never replaces it. A private
		// note answers no one: it is not a response.
		const firstResponse = rows.find(isTeamReply)?.createdAt;
		// A visitor's message may reopen the conversation: decided in D1, in the same batch as the message.
		const reopenAt = room.reopened_at === written?.reopenedAt ? null : room.reopened_at;
		const reopen = reopenAt === null ? null : reopenStatements(db, room, reopenAt, Date.now());
		if (reopen) statements.push(...reopen);
		statements.push(
			db
				.update(conversations)
				.set({
					lastMessageSeq: summary.lastSeq,
					lastMessageAt: summary.lastMessageAt,
					unreadByOperators: summary.unreadByOperators,
					unreadByContact: summary.unreadByContact,
					waitingSince: summary.waitingSince,
					...(firstResponse === undefined
						? {}
						: { firstResponseAt: sql`COALESCE(${conversations.firstResponseAt}, CAST(${firstResponse} AS INTEGER))` }),
					lastActivityAt: sql`MAX(${conversations.lastActivityAt}, ${at})`,
					updatedAt: sql`MAX(${conversations.updatedAt}, ${at})`,
				})
				.where(
					and(
						eq(conversations.id, room.conversation_id),
						eq(conversations.workspaceId, room.workspace_id),
						// An older summary never overwrites a newer one.
						lte(conversations.lastMessageSeq, summary.lastSeq),
					),
				)
				// Whether anyone is subscribed to the inbox feed, read by the same statement (see `liveFeed`).
				.returning({
					liveFeed:
						sql<number>`(SELECT ${workspaces.liveFeed} FROM ${workspaces} WHERE ${workspaces.id} = ${room.workspace_id})`.as(
							'live_feed',
						),
				}),
		);
		this.statementsSent += statements.length;
		const results = await runBatch(db, statements);
		this.d1Bookmark = latestBookmark(this.d1Bookmark, session.getBookmark());
		// No row when a newer summary was there already: then the flag stays as last read (null: push).
		const feed = results.at(-1)?.results[0] as { live_feed?: number } | undefined;
		if (feed) this.liveFeed = feed.live_feed !== 0;
		// The reopen event's row comes back only when D1 reopened the conversation, in this batch.
		const reopened = reopen ? committedEvent(results[inserts]?.results[0]) : null;
		if (reopened) this.committed.push(reopened);
		this.written = {
			upToSeq: pending.at(-1)?.seq ?? written?.upToSeq ?? 0,
			summaryVersion: room.summary_version,
			reopenedAt: reopenAt ?? written?.reopenedAt ?? null,
		};
		return pending.length === D1_BATCH;
	}

	/**
	 * Sends the pending events (those not sent already, see `sentUpTo`), up to a batch, and the reopen events
	 * D1 committed; returns whether the batch was full (more may be waiting).
	 */
	private async sendEvents(): Promise<boolean> {
		const pending = this.store.pendingEvents(QUEUE_BATCH, this.sentUpTo);
		if (pending.length > 0) {
			await deliverEvents(
				this.env,
				pending.map((p) => p.event),
				this.liveFeed !== false,
			);
			this.sentUpTo = pending.at(-1)?.id ?? this.sentUpTo;
		}
		const committed = this.committed.splice(0);
		// Never throws: what it cannot send stays in D1's event outbox for the sweep.
		await release(this.env, committed);
		return pending.length === QUEUE_BATCH;
	}
}

/**
 * A visitor's message at `at` reopens the conversation only if D1 still has it closed from before then:
 * an operator's status change after the message (a close, a reopen and a close, pending) stands, a retried
 * flush finds nothing left to do, and of concurrent messages only the first batch to land changes the row.
 * `status_changed_at` is when the status was last written (by the team, or by an earlier reopen), so "closed,
 * status not written since `at`" is the guard: a tag or an assignment meanwhile changes nothing of it. The `conversation.updated` event (actor the contact) goes into D1's
 * event outbox under the same guard, before the update, so it exists exactly when the update changes the row;
 * its conversation fields are copied from the row as it is. The event occurred at `at`, but its row is stored
 * as of `now` (this batch's build time, i.e. its commit): the sweep re-sends rows older than SWEEP_AFTER_MS,
 * and a row dated from a message whose flush was delayed that long would be swept while this flush is about to
 * release it itself.
 */
function reopenStatements(db: Database, room: RoomRow, at: number, now: number): Statement[] {
	const { workspace_id: workspaceId, conversation_id: conversationId } = room;
	const closedBefore: SQL = sql`${conversations.id} = ${conversationId} AND ${conversations.workspaceId} = ${workspaceId}
		AND ${conversations.status} = 'closed' AND ${conversations.statusChangedAt} <= ${at}`;
	const event = newEvent(
		'conversation.updated',
		workspaceId,
		{ kind: 'contact', id: '' },
		{
			conversation: { id: conversationId, contactId: '', channel: '', status: 'open', assigneeId: null, groupId: null },
			...changesOf({ status: { from: 'closed' as const, to: 'open' as const } }),
		},
		at,
	);
	return [
		sql`INSERT INTO event_outbox (id, workspace_id, event, created_at)
			SELECT ${event.id}, ${workspaceId}, json_set(${JSON.stringify(event)},
				'$.payload.conversation.contactId', contact_id, '$.payload.conversation.channel', channel,
				'$.payload.conversation.assigneeId', assignee_id, '$.payload.conversation.groupId', group_id,
				'$.actor.id', contact_id), ${now}
			FROM ${conversations} WHERE ${closedBefore} RETURNING event`,
		db
			.update(conversations)
			.set({
				status: 'open',
				statusChangedAt: sql`MAX(${conversations.statusChangedAt}, ${at})`,
				updatedAt: sql`MAX(${conversations.updatedAt}, ${at})`,
			})
			.where(closedBefore),
	];
}

/**
 * The reopen event as D1 stored it (its row from `RETURNING event`), null when there is none. Never throws:
 * D1 has committed by then, and the sweep sends whatever this cannot read.
 */
function committedEvent(row: unknown): DomainEvent | null {
	if (!row) return null;
	try {
		return domainEventSchema.parse(JSON.parse((row as { event: string }).event));
	} catch (error) {
		console.error('could not read back a reopen event; the outbox sweep sends it', error);
		return null;
	}
}
