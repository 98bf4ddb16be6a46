import { workspaceDb } from '../src/db/shards';
import {
	CONTINUED_CHANNEL,
	type ContinuationFacts,
	continuationDelayMs,
	continuationTarget,
	enqueueContinuation,
} from '../src/domain/channels/email/continuation';
import type { LogRow } from './room-schema';
import type { RoomStore } from './room-store';
import { type RoomTimers, retryDelay } from './room-timers';

/** The id and kind of the room's one continuation timer (see `RoomMail`). */
export const CONTINUATION_TIMER = 'continuation';
/** Where the room keeps what it knows of its continuations, in its key-value storage (see `MailState`). */
const STATE_KEY = 'continuation';
/** How long a run may take before its successor assumes the instance was lost mid-way and does it again. */
const GUARD_MS = 60_000;
/** Failed runs in a row (D1 or the Queue down) before the unseen messages are given up: about 10 minutes. */
const MAX_FAILURES = 8;
/**
 * The messages that may be mailed: the team's (operators, bots, rules, scenarios), never a note, and never a
 * campaign's (its author is the campaign, `cmp_…`): a campaign reaches a contact by mail only as an e-mail
 * campaign, which honours its opt-out and carries its unsubscribe link; a continuation would carry neither.
 */
const MAILABLE =
	"author_kind != 'contact' AND private = 0 AND NOT (author_kind = 'bot' AND COALESCE(author_id, '') LIKE 'cmp\\_%' ESCAPE '\\')";

/** Whether `row` is a message a continuation may carry (the same rule as MAILABLE). */
function mailable(row: LogRow): boolean {
	return (
		row.author_kind !== 'contact' &&
		row.private !== 1 &&
		!(row.author_kind === 'bot' && row.author_id?.startsWith('cmp_'))
	);
}
/**
 * How long a room trusts that its workspace turned continuations off: meanwhile the team's messages set no
 * timer (no alarm, no D1 read); after it, the next one does, and its run reads the setting again. A
 * workspace that turns them on sees them in its ongoing conversations within this time (the messages written
 * meanwhile are mailed with the next ones, being unseen and not yet covered).
 */
const TRUST_OFF_MS = 10 * 60_000;

/**
 * What the room keeps: `coveredSeq`, the last message a continuation was decided for (mailed, or not
 * mailable then); `widget`, `delayMs` and `off`, learnt (at `learntAt`) with the room's import from D1 and
 * again at every run (null: a room from before continuations, which learns them at its first run);
 * `failures` of runs in a row.
 */
interface MailState {
	coveredSeq: number;
	widget: boolean | null;
	delayMs: number | null;
	off: boolean;
	learntAt: number;
	failures: number;
}

/** The unseen, not yet covered team messages: the first one's seq and time, and the last one's seq. */
interface Unseen {
	firstSeq: number;
	firstAt: number;
	lastSeq: number;
}

/**
 * The widget conversation continues by e-mail. Every message the team writes to the visitor makes sure the
 * room's one continuation timer is due by that message's time plus the workspace's delay (`earliest`: a
 * burst keeps the first one's time, so it makes one mail). When it fires, the messages after both the
 * contact's read position and the last continuation (`coveredSeq`) are the unseen ones: none (the visitor
 * came back and read), nothing; the first of them not due yet (it was read in part, or the delay grew), the
 * timer moves to its time; otherwise one delivery of them all goes to the mail Queue (`enqueueContinuation`),
 * unless the workspace turned continuations off or the contact has no address that may be mailed.
 *
 * No D1 read on a message: the channel and the delay come with the room's import (`learn`), and each run
 * reads them again with the contact's address, in the one read it needs anyway. A delay changed meanwhile
 * is honoured when it grew (the run moves the timer), and at worst one mail per room goes out late by the
 * difference when it shrank.
 */
export class RoomMail {
	constructor(
		private readonly env: Env,
		private readonly storage: DurableObjectStorage,
		private readonly store: RoomStore,
		private readonly timers: RoomTimers,
	) {}

	/** In the turn of the room's import from D1 (its transaction): what the conversation is. */
	learn(facts: ContinuationFacts): void {
		this.save({
			widget: facts.channel === CONTINUED_CHANNEL,
			delayMs: continuationDelayMs(facts.delaySeconds),
			off: !facts.enabled,
			learntAt: Date.now(),
		});
	}

	/**
	 * In the turn of an append, so the timer is stored with the message: a message to the visitor on a
	 * (possibly) widget conversation makes sure a continuation is due by its time plus the delay.
	 */
	noted(row: LogRow): void {
		if (!mailable(row)) return;
		const state = this.state();
		if (state.widget === false || (state.off && Date.now() - state.learntAt < TRUST_OFF_MS)) return;
		const delayMs = state.delayMs ?? continuationDelayMs(null);
		this.schedule(row.created_at + delayMs, 'earliest');
	}

	/** The continuation timer fired. Never throws: a failure is retried by the guard it leaves. */
	async onTimer(): Promise<void> {
		if (!this.unseen()) return;
		// Stands in for this run until it ends (stored before its first await): a lost instance's successor
		// runs it again, and the dedupe key keeps a delivery enqueued twice one delivery.
		this.schedule(Date.now() + GUARD_MS, 'replace');
		try {
			await this.run();
			this.save({ failures: 0 });
		} catch (error) {
			const failures = this.state().failures + 1;
			if (failures < MAX_FAILURES) {
				console.error(`continuation failed (attempt ${failures}); retrying`, error);
				this.save({ failures });
				this.schedule(Date.now() + retryDelay(failures), 'replace');
				return;
			}
			console.error(`continuation failed ${failures} times; its messages are not mailed`, error);
			this.save({ coveredSeq: this.unseen()?.lastSeq ?? this.state().coveredSeq, failures: 0 });
			this.plan();
		}
	}

	private async run(): Promise<void> {
		const room = this.store.room();
		if (!room) return;
		const { workspace_id: workspaceId, conversation_id: conversationId } = room;
		const db = await workspaceDb(this.env, workspaceId);
		const target = await continuationTarget(db, workspaceId, conversationId);
		// Read again after the await: the visitor may have read, and the team written, meanwhile.
		const unseen = this.unseen();
		if (target) {
			this.save({ widget: target.widget, delayMs: target.delayMs, off: target.skip === 'off', learntAt: Date.now() });
		}
		// A conversation D1 no longer has is mailed nothing: its messages are done with, as below.
		if (unseen && (!target || (target.widget && unseen.firstAt + target.delayMs <= Date.now()))) {
			if (target?.recipient) {
				const mail = { workspaceId, conversationId, contactId: target.contactId, recipient: target.recipient };
				await enqueueContinuation(this.env, db, mail, { firstSeq: unseen.firstSeq, lastSeq: unseen.lastSeq });
			}
			// Mailed, or not mailable now (off, no address, failing, opted out): these messages are done with,
			// and a later burst's mail carries only its own.
			this.save({ coveredSeq: unseen.lastSeq });
		}
		this.plan();
	}

	/** Sets the timer for the first unseen, uncovered message, or removes it when there is none to mail. */
	private plan(): void {
		const unseen = this.unseen();
		const state = this.state();
		if (!unseen || state.widget === false) this.timers.cancel(CONTINUATION_TIMER);
		else this.schedule(unseen.firstAt + (state.delayMs ?? continuationDelayMs(null)), 'replace');
	}

	private schedule(dueAt: number, mode: 'earliest' | 'replace'): void {
		this.timers.schedule({ id: CONTINUATION_TIMER, kind: CONTINUATION_TIMER, dueAt, payload: null }, mode);
	}

	/** The team's messages after the contact's read position and the last continuation; null when none. */
	private unseen(): Unseen | null {
		const after = Math.max(this.store.readSeq('contact'), this.state().coveredSeq);
		const row = this.storage.sql
			.exec<{ firstSeq: number | null; firstAt: number | null; lastSeq: number | null }>(
				`SELECT MIN(seq) AS firstSeq, MIN(created_at) AS firstAt, MAX(seq) AS lastSeq FROM log WHERE ${MAILABLE} AND seq > ?`,
				after,
			)
			.one();
		if (row.firstSeq === null || row.firstAt === null || row.lastSeq === null) return null;
		return { firstSeq: row.firstSeq, firstAt: row.firstAt, lastSeq: row.lastSeq };
	}

	private state(): MailState {
		const stored = this.storage.kv.get<Partial<MailState>>(STATE_KEY);
		return { coveredSeq: 0, widget: null, delayMs: null, off: false, learntAt: 0, failures: 0, ...stored };
	}

	private save(change: Partial<MailState>): void {
		this.storage.kv.put(STATE_KEY, { ...this.state(), ...change });
	}
}
