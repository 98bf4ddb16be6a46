import { DurableObject } from 'cloudflare:workers';
import type { RateLimitDecision } from '../src/domain/rate-limits';

/**
 * One instance per counted thing (an operator's token, a visitor, an address in a workspace), so every
 * isolate in every location counts against the same number.
 * A fixed window per minute, kept in the object's SQLite storage so an eviction does not reset it. Most
 * instances see a handful of hits and never come back (a visitor, an address), so a window that ends with no
 * newer hit deletes the object's storage: an alarm at the window's end, moved by each new window.
 */
export class RateLimiter extends DurableObject<Env> {
	/** False once the storage was deleted: the table is created again by the next hit. */
	private ready = false;

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		ctx.blockConcurrencyWhile(async () => this.ensureTable());
	}

	/**
	 * Counts one request (or `units` at once: a socket's lease, see room-sockets.ts) and says whether it fits
	 * in the current window; a lease gets what is left of it, up to `units`.
	 */
	hit(limit: number, windowSeconds = 60, now = Date.now(), units = 1): RateLimitDecision {
		this.ensureTable();
		const windowMs = windowSeconds * 1000;
		const windowStart = now - (now % windowMs);
		const endsAt = windowStart + windowMs;
		const row = this.ctx.storage.sql
			.exec<{ started_at: number; count: number }>('SELECT started_at, count FROM limiter_window WHERE id = 1')
			.toArray()[0];
		const current = row !== undefined && row.started_at === windowStart;
		const used = current ? row.count : 0;
		const granted = Math.max(0, Math.min(units, limit - used));
		const allowed = granted > 0;
		const count = used + granted;
		this.ctx.storage.sql.exec(
			'INSERT INTO limiter_window (id, started_at, ends_at, count) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, ends_at = excluded.ends_at, count = excluded.count',
			windowStart,
			endsAt,
			count,
		);
		// Only the first hit of a window moves the alarm: one storage write per window, not per hit.
		if (!current) void this.ctx.storage.setAlarm(endsAt);
		return {
			allowed,
			granted,
			limit,
			remaining: Math.max(0, limit - count),
			resetSeconds: Math.max(1, Math.ceil((endsAt - now) / 1000)),
			windowSeconds,
		};
	}

	/**
	 * The window ended: with no hit since, nothing is worth keeping. A hit of a newer window may have come in
	 * between the alarm being due and this running (it moved the alarm, but this delivery was already on its
	 * way): then its count stays and the alarm is set for its end again.
	 */
	async alarm(): Promise<void> {
		if (!this.ready) return;
		const row = this.ctx.storage.sql
			.exec<{ ends_at: number }>('SELECT ends_at FROM limiter_window WHERE id = 1')
			.toArray()[0];
		if (row && row.ends_at > Date.now()) {
			await this.ctx.storage.setAlarm(row.ends_at);
			return;
		}
		await this.ctx.storage.deleteAll();
		this.ready = false;
	}

	private ensureTable(): void {
		if (this.ready) return;
		// `limiter_window` replaced `window` (which had no end time for the alarm to compare): counts restart
		// once, on the first hit after the upgrade.
		this.ctx.storage.sql.exec('DROP TABLE IF EXISTS window');
		this.ctx.storage.sql.exec(
			'CREATE TABLE IF NOT EXISTS limiter_window (id INTEGER PRIMARY KEY CHECK (id = 1), started_at INTEGER NOT NULL, ends_at INTEGER NOT NULL, count INTEGER NOT NULL)',
		);
		this.ready = true;
	}
}
