import { DurableObject } from 'cloudflare:workers';

export interface RateLimitDecision {
	allowed: boolean;
	limit: number;
	remaining: number;
	/** Seconds until the current window ends and the count starts again. */
	resetSeconds: number;
	windowSeconds: number;
}

/**
 * One instance per operator (who holds one active API token), so every isolate in every location counts
 * against the same number.
 * A fixed window per minute, kept in the object's SQLite storage so an eviction does not reset it.
 */
export class RateLimiter extends DurableObject<Env> {
	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		ctx.blockConcurrencyWhile(async () => {
			ctx.storage.sql.exec(
				'CREATE TABLE IF NOT EXISTS window (id INTEGER PRIMARY KEY CHECK (id = 1), started_at INTEGER NOT NULL, count INTEGER NOT NULL)',
			);
		});
	}

	/** Counts one request and says whether it fits in the current window. */
	hit(limit: number, windowSeconds = 60, now = Date.now()): RateLimitDecision {
		const windowMs = windowSeconds * 1000;
		const windowStart = now - (now % windowMs);
		const row = this.ctx.storage.sql
			.exec<{ started_at: number; count: number }>('SELECT started_at, count FROM window WHERE id = 1')
			.toArray()[0];
		const used = row && row.started_at === windowStart ? row.count : 0;
		const allowed = used < limit;
		const count = allowed ? used + 1 : used;
		this.ctx.storage.sql.exec(
			'INSERT INTO window (id, started_at, count) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, count = excluded.count',
			windowStart,
			count,
		);
		return {
			allowed,
			limit,
			remaining: Math.max(0, limit - count),
			resetSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
			windowSeconds,
		};
	}
}
