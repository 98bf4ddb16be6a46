import { newId } from '../src/lib/ids';

/** A failing timer is tried this many times in all, then dropped with an error logged (about 20 minutes). */
export const MAX_TIMER_ATTEMPTS = 10;
/** The first retry after a failed run; it doubles on each failure up to MAX_RETRY_DELAY_MS. */
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_DELAY_MS = 5 * 60_000;

/** How long to wait after the `attempts`-th failure in a row: 5 s doubling to 5 min. */
export function retryDelay(attempts: number): number {
	return Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_MS * 2 ** (attempts - 1));
}

/**
 * The timers table, created with the room's other tables (see `room-store.ts`). `CREATE ... IF NOT EXISTS`:
 * a room stored before this table existed gets it on its next start.
 */
export const TIMERS_SCHEMA = [
	`CREATE TABLE IF NOT EXISTS timers (
		id TEXT PRIMARY KEY, kind TEXT NOT NULL, due_at INTEGER NOT NULL, payload TEXT NOT NULL,
		attempts INTEGER NOT NULL DEFAULT 0)`,
	'CREATE INDEX IF NOT EXISTS timers_due_at ON timers (due_at)',
];

/** Something to do at `dueAt`: `kind` picks the handler, `payload` (kept as JSON) is what it needs. */
export interface Timer {
	id: string;
	kind: string;
	dueAt: number;
	payload: unknown;
	/** Failed runs so far. */
	attempts: number;
}

/** A timer to schedule; without an id it gets a new one (returned by `schedule`). */
export type NewTimer = Omit<Timer, 'id' | 'attempts'> & { id?: string };

/**
 * What `schedule` does with an existing timer of the same id. `replace`: it becomes exactly the new timer
 * (a retry setting its backoff). `earliest`: it keeps its payload and only moves to the new time if that is
 * sooner (a watchdog that must never push a due retry later). Either way a missing timer is created.
 */
export type ScheduleMode = 'replace' | 'earliest';

/** The work of each kind of timer. A handler that throws gets its timer back with a backoff. */
export type TimerHandlers = Record<string, (payload: unknown, timer: Timer) => Promise<void>>;

type TimerRow = { id: string; kind: string; due_at: number; payload: string; attempts: number };

/**
 * Every timer of one Durable Object over its single alarm: the timers live in a table, and the alarm is
 * always set to the earliest of them (`scheduleNextAlarm`), so a watchdog of seconds and a delay of days never
 * overwrite each other. `schedule` and `cancel` write synchronously, in the caller's turn, so the runtime
 * stores a timer together with the change it guards; they do not touch the alarm: call `scheduleNextAlarm`
 * once the turn's timers are set.
 *
 * @example
 * timers.schedule({ id: 'delay:step-3', kind: 'bot-delay', dueAt: Date.now() + 60_000, payload: { step: 3 } }, 'replace');
 * await timers.scheduleNextAlarm();
 * // in alarm():
 * await timers.runDue({ 'bot-delay': (payload) => bot.resume(payload) });
 */
export class RoomTimers {
	/**
	 * The time the alarm is set to as far as this instance knows (null: none), so an unchanged earliest timer
	 * costs no storage write. Unknown (undefined) before `load` and after a fired alarm: the next arm writes.
	 */
	private armedAt: number | null | undefined;
	/** Timers whose handler is running now; `cancelled` when `cancel` came meanwhile, so a failure does not put them back. */
	private readonly running = new Map<string, { kind: string; cancelled: boolean }>();

	/** The table must exist (`TIMERS_SCHEMA`) before any method is called. */
	constructor(private readonly storage: DurableObjectStorage) {}

	/**
	 * Learns the time the alarm is set to, once, when the object starts: a woken room whose alarm already
	 * points at its earliest timer then writes none (an alarm write is a storage commit of its own).
	 */
	async load(): Promise<void> {
		this.armedAt = await this.storage.getAlarm();
	}

	/** Stores a timer (see `ScheduleMode` for one that exists already) and returns its id. */
	schedule(timer: NewTimer, mode: ScheduleMode): string {
		const id = timer.id ?? newId('tmr');
		const onConflict =
			mode === 'replace'
				? 'DO UPDATE SET kind = excluded.kind, due_at = excluded.due_at, payload = excluded.payload, attempts = 0'
				: 'DO UPDATE SET due_at = excluded.due_at WHERE excluded.due_at < timers.due_at';
		this.storage.sql.exec(
			`INSERT INTO timers (id, kind, due_at, payload) VALUES (?, ?, ?, ?) ON CONFLICT (id) ${onConflict}`,
			id,
			timer.kind,
			timer.dueAt,
			JSON.stringify(timer.payload ?? null),
		);
		return id;
	}

	/** Removes a timer; one whose handler is running is not put back if that run fails. */
	cancel(id: string): void {
		this.storage.sql.exec('DELETE FROM timers WHERE id = ?', id);
		const run = this.running.get(id);
		if (run) run.cancelled = true;
	}

	/** Removes every timer of a kind, as `cancel` does. */
	cancelKind(kind: string): void {
		this.storage.sql.exec('DELETE FROM timers WHERE kind = ?', kind);
		for (const run of this.running.values()) if (run.kind === kind) run.cancelled = true;
	}

	/** The timer with this id, or null (none, or claimed by a run under way). */
	get(id: string): Timer | null {
		const row = this.storage.sql.exec<TimerRow>('SELECT * FROM timers WHERE id = ?', id).toArray()[0];
		return row ? toTimer(row) : null;
	}

	/**
	 * The one place that sets the alarm: at the earliest timer, or none when no timer is left. Writes only
	 * when that differs from what this instance last set. The promise settles when the alarm is stored.
	 */
	scheduleNextAlarm(): Promise<void> {
		const next = this.storage.sql.exec<{ at: number | null }>('SELECT MIN(due_at) AS at FROM timers').one().at;
		if (next === this.armedAt) return Promise.resolve();
		this.armedAt = next;
		return next === null ? this.storage.deleteAlarm() : this.storage.setAlarm(next);
	}

	/**
	 * Runs every timer due at `now`, in due order, with the handler of its kind, then arms the alarm for the
	 * next. Call it from `alarm()`. Each timer runs once however alarms repeat, come late or overlap with other
	 * calls: all due timers are claimed (deleted) in one statement before the first await, so a second run
	 * finds them gone. A handler that throws gets its timer back, due after a backoff (5 s doubling to 5 min),
	 * until MAX_TIMER_ATTEMPTS; a timer of a kind with no handler is dropped. Both are logged.
	 */
	async runDue(handlers: TimerHandlers, now = Date.now()): Promise<void> {
		// The alarm that called this has fired and is gone: whatever comes next must be written.
		this.armedAt = undefined;
		const due = this.storage.sql
			.exec<TimerRow>('DELETE FROM timers WHERE due_at <= ? RETURNING *', now)
			.toArray()
			.map(toTimer)
			.sort((a, b) => a.dueAt - b.dueAt);
		for (const timer of due) await this.run(timer, handlers, now);
		await this.scheduleNextAlarm();
	}

	private async run(timer: Timer, handlers: TimerHandlers, now: number): Promise<void> {
		// Own properties only: a kind such as "toString" must not find Object's.
		const handler = Object.hasOwn(handlers, timer.kind) ? handlers[timer.kind] : undefined;
		if (!handler) {
			console.error(`timer ${timer.id} has a kind with no handler (${timer.kind}); dropped`);
			return;
		}
		const run = { kind: timer.kind, cancelled: false };
		this.running.set(timer.id, run);
		try {
			await handler(timer.payload, timer);
		} catch (error) {
			if (!run.cancelled) this.putBack(timer, now, error);
		} finally {
			if (this.running.get(timer.id) === run) this.running.delete(timer.id);
		}
	}

	private putBack(timer: Timer, now: number, error: unknown): void {
		const attempts = timer.attempts + 1;
		if (attempts >= MAX_TIMER_ATTEMPTS) {
			console.error(`timer ${timer.id} (${timer.kind}) failed ${attempts} times; dropped`, error);
			return;
		}
		const delay = retryDelay(attempts);
		console.error(`timer ${timer.id} (${timer.kind}) failed (attempt ${attempts}); retrying in ${delay} ms`, error);
		// From the later of the run's time and the clock: a test's `now` ahead of the clock stays deterministic,
		// and a slow handler's retry is still `delay` away. A timer scheduled again under this id meanwhile wins.
		this.storage.sql.exec(
			'INSERT INTO timers (id, kind, due_at, payload, attempts) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
			timer.id,
			timer.kind,
			Math.max(now, Date.now()) + delay,
			JSON.stringify(timer.payload),
			attempts,
		);
	}
}

function toTimer(row: TimerRow): Timer {
	return { id: row.id, kind: row.kind, dueAt: row.due_at, payload: JSON.parse(row.payload), attempts: row.attempts };
}
