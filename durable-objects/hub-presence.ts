/**
 * Operators' presence, held by their workspace's hub (one writer, so no two changes race). Each operator has a
 * chosen status (what it set with `PUT /v3/me/status`; online until it sets one) and an effective one: the
 * chosen status while it can work, offline once it has had no inbox feed socket for the grace period (a
 * console reload or a flaky network does not flicker it; a status set with no console open lasts that long
 * too), back to the chosen one when a feed reconnects.
 *
 * Every change is announced as `member.status_changed`: pushed at once to the feed sockets, and put on the
 * events Queue from a small outbox stored with the change, which a timer retries (never giving up: see
 * `keepDelivering`), so no change is lost.
 */

import { deliverEvents } from '../src/events/deliver';
import { type Actor, SYSTEM } from '../src/model/actor';
import { type DomainEvent, newEvent } from '../src/model/events';
import type { PresenceReason, PresenceStatus } from '../src/model/presence';
import type { RoomTimers } from './room-timers';

export const PRESENCE_SCHEMA = [
	`CREATE TABLE IF NOT EXISTS presence (operator_id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL,
		status TEXT NOT NULL, chosen TEXT NOT NULL, changed_at INTEGER NOT NULL)`,
	'CREATE TABLE IF NOT EXISTS presence_outbox (id TEXT PRIMARY KEY, event TEXT NOT NULL)',
];

export const PRESENCE_OFFLINE_TIMER = 'presence-offline';
export const PRESENCE_DELIVER_TIMER = 'presence-deliver';

/** One operator's presence as the API shows it. */
export interface PresenceEntry {
	operatorId: string;
	status: PresenceStatus;
	/** What it chose; `status` differs while it is offline for want of a console. */
	chosen: PresenceStatus;
	changedAt: number;
}

type PresenceRow = {
	operator_id: string;
	workspace_id: string;
	status: PresenceStatus;
	chosen: PresenceStatus;
	changed_at: number;
};

function entry(row: PresenceRow): PresenceEntry {
	return { operatorId: row.operator_id, status: row.status, chosen: row.chosen, changedAt: row.changed_at };
}

export class HubPresence {
	constructor(
		private readonly storage: DurableObjectStorage,
		private readonly env: Env,
		private readonly timers: RoomTimers,
		/** Pushes events to the hub's feed sockets (best effort). */
		private readonly publish: (events: DomainEvent[]) => void,
		/** Whether the operator has a feed socket open, `except` one that is closing. */
		private readonly hasFeed: (operatorId: string, except?: WebSocket) => boolean,
		/** Told of every move of an effective status, once it is stored (assignment reacts to it). */
		private readonly moved: (change: {
			workspaceId: string;
			operatorId: string;
			to: PresenceStatus;
			reason: PresenceReason;
		}) => void = () => {},
	) {}

	all(): PresenceEntry[] {
		return this.storage.sql.exec<PresenceRow>('SELECT * FROM presence ORDER BY operator_id').toArray().map(entry);
	}

	private row(operatorId: string): PresenceRow | undefined {
		return this.storage.sql.exec<PresenceRow>('SELECT * FROM presence WHERE operator_id = ?', operatorId).toArray()[0];
	}

	/**
	 * Writes the operator's statuses and, when the effective one moved, its event in the same turn (stored
	 * together), then pushes and delivers it. Returns the entry as it now is.
	 */
	private async write(
		workspaceId: string,
		operatorId: string,
		status: PresenceStatus,
		chosen: PresenceStatus,
		reason: PresenceReason,
		actor: Actor,
		now: number,
	): Promise<PresenceEntry> {
		const from = this.row(operatorId)?.status ?? 'offline';
		this.storage.sql.exec(
			`INSERT INTO presence (operator_id, workspace_id, status, chosen, changed_at) VALUES (?, ?, ?, ?, ?)
			 ON CONFLICT (operator_id) DO UPDATE SET status = excluded.status, chosen = excluded.chosen,
			 changed_at = CASE WHEN presence.status = excluded.status THEN presence.changed_at ELSE excluded.changed_at END`,
			operatorId,
			workspaceId,
			status,
			chosen,
			now,
		);
		if (from !== status) {
			const event = newEvent(
				'member.status_changed',
				workspaceId,
				actor,
				{ memberId: operatorId, reason, changed: ['status'], changes: { status: { from, to: status } } },
				now,
			);
			this.storage.sql.exec('INSERT INTO presence_outbox (id, event) VALUES (?, ?)', event.id, JSON.stringify(event));
			this.timers.schedule(
				{ id: PRESENCE_DELIVER_TIMER, kind: PRESENCE_DELIVER_TIMER, dueAt: now, payload: null },
				'earliest',
			);
			await this.timers.scheduleNextAlarm();
			this.publish([event]);
			this.moved({ workspaceId, operatorId, to: status, reason });
			await this.deliver().catch((error: unknown) => {
				console.error('presence event not delivered yet; the hub retries', error);
			});
			// Delivered: the retry timer is gone, and the alarm moves to whatever is next.
			await this.timers.scheduleNextAlarm();
		}
		const row = this.row(operatorId);
		if (!row) throw new Error('presence row missing right after its write');
		return entry(row);
	}

	/**
	 * The operator chose a status (`PUT /v3/me/status`): it is its effective status at once. Without a feed
	 * socket open, its grace period starts too: nobody stays available with no console to answer from.
	 */
	async set(workspaceId: string, operatorId: string, status: PresenceStatus, now = Date.now()): Promise<PresenceEntry> {
		this.timers.cancel(`${PRESENCE_OFFLINE_TIMER}:${operatorId}`);
		const entry = await this.write(
			workspaceId,
			operatorId,
			status,
			status,
			'set',
			{ kind: 'operator', id: operatorId },
			now,
		);
		if (!this.hasFeed(operatorId)) await this.lostFeeds(workspaceId, operatorId, now);
		return entry;
	}

	/** The operator has no feed socket left (closed, dropped, or closed by the hub): its grace period starts. */
	async lostFeeds(workspaceId: string, operatorId: string, now = Date.now()): Promise<void> {
		const row = this.row(operatorId);
		if (!row || row.status === 'offline') return;
		const grace = Number(this.env.PRESENCE_GRACE_SECONDS || '30') * 1000;
		this.timers.schedule(
			{
				id: `${PRESENCE_OFFLINE_TIMER}:${operatorId}`,
				kind: PRESENCE_OFFLINE_TIMER,
				dueAt: now + grace,
				payload: { workspaceId, operatorId },
			},
			'replace',
		);
		await this.timers.scheduleNextAlarm();
	}

	/**
	 * After a restart: operators shown present with no feed socket (lost without a close event) and no grace
	 * period running get one now.
	 */
	async recover(now = Date.now()): Promise<void> {
		const rows = this.storage.sql.exec<PresenceRow>("SELECT * FROM presence WHERE status != 'offline'").toArray();
		for (const row of rows) {
			if (this.hasFeed(row.operator_id) || this.timers.get(`${PRESENCE_OFFLINE_TIMER}:${row.operator_id}`)) continue;
			await this.lostFeeds(row.workspace_id, row.operator_id, now);
		}
	}

	/** An outbox that still holds events always has its delivery timer (retries are never given up). */
	async keepDelivering(now = Date.now()): Promise<void> {
		if (this.storage.sql.exec('SELECT 1 FROM presence_outbox LIMIT 1').toArray().length === 0) return;
		if (this.timers.get(PRESENCE_DELIVER_TIMER)) return;
		this.timers.schedule(
			{ id: PRESENCE_DELIVER_TIMER, kind: PRESENCE_DELIVER_TIMER, dueAt: now + 5 * 60_000, payload: null },
			'earliest',
		);
		await this.timers.scheduleNextAlarm();
	}

	/** A feed socket of the operator was accepted: a pending offline is called off, the chosen status is back. */
	async connected(workspaceId: string, operatorId: string, now = Date.now()): Promise<void> {
		this.timers.cancel(`${PRESENCE_OFFLINE_TIMER}:${operatorId}`);
		await this.timers.scheduleNextAlarm();
		const row = this.row(operatorId);
		const chosen = row?.chosen ?? 'online';
		if (row?.status === chosen) return;
		await this.write(workspaceId, operatorId, chosen, chosen, 'connected', SYSTEM, now);
	}

	/** A feed socket closed: with none left, the operator turns offline after the grace period. */
	async dropped(workspaceId: string, operatorId: string, closing: WebSocket, now = Date.now()): Promise<void> {
		if (this.hasFeed(operatorId, closing)) return;
		await this.lostFeeds(workspaceId, operatorId, now);
	}

	/** The grace period passed: offline, unless a feed socket came back meanwhile. */
	async graceOver(payload: unknown, now = Date.now()): Promise<void> {
		const { workspaceId, operatorId } = payload as { workspaceId: string; operatorId: string };
		if (this.hasFeed(operatorId)) return;
		const row = this.row(operatorId);
		if (!row || row.status === 'offline') return;
		await this.write(workspaceId, operatorId, 'offline', row.chosen, 'disconnected', SYSTEM, now);
	}

	/** The operator was disabled or deleted: offline at once (its chosen status is kept for when it is back). */
	async removed(workspaceId: string, operatorId: string, actor: Actor, now = Date.now()): Promise<void> {
		this.timers.cancel(`${PRESENCE_OFFLINE_TIMER}:${operatorId}`);
		const row = this.row(operatorId);
		if (!row || row.status === 'offline') return;
		await this.write(workspaceId, operatorId, 'offline', row.chosen, 'removed', actor, now);
	}

	/** Puts the outbox's events on the Queue, then drops them. Throws when the Queue refuses (the timer retries). */
	async deliver(): Promise<void> {
		const rows = this.storage.sql
			.exec<{ id: string; event: string }>('SELECT id, event FROM presence_outbox')
			.toArray();
		if (rows.length === 0) {
			this.timers.cancel(PRESENCE_DELIVER_TIMER);
			return;
		}
		// Queue only: the feed had them when they were written.
		await deliverEvents(
			this.env,
			rows.map((r) => JSON.parse(r.event) as DomainEvent),
			false,
		);
		for (const row of rows) this.storage.sql.exec('DELETE FROM presence_outbox WHERE id = ?', row.id);
		if (this.storage.sql.exec('SELECT 1 FROM presence_outbox LIMIT 1').toArray().length === 0) {
			this.timers.cancel(PRESENCE_DELIVER_TIMER);
		}
	}
}
