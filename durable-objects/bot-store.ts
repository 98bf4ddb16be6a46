import type { BotDefinition } from '../src/engines/bot-definition';
import type { Effect, RunState } from '../src/engines/bot-interpreter';
import { iso } from '../src/lib/ids';
import type { BotRunTrigger } from '../src/model/bot-runs';

/** Step log entries kept per run: a run that loops on re-prompts cannot grow the room's storage for ever. */
const MAX_LOG_PER_RUN = 500;

/** The bot tables, created with the room's others (see `room-store.ts`). */
export const BOT_SCHEMA = [
	// The last message the bots have looked at: each message is an event for a run, or a trigger, once.
	'CREATE TABLE IF NOT EXISTS bot_cursor (id INTEGER PRIMARY KEY CHECK (id = 1), seen_seq INTEGER NOT NULL)',
	`CREATE TABLE IF NOT EXISTS bot_runs (
		id TEXT PRIMARY KEY, bot_id TEXT NOT NULL, bot_name TEXT NOT NULL, version INTEGER NOT NULL,
		trigger TEXT NOT NULL, started_by TEXT, start_key TEXT UNIQUE, definition TEXT NOT NULL, state TEXT NOT NULL, status TEXT NOT NULL,
		pending TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0, failures INTEGER NOT NULL DEFAULT 0,
		started_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL, ended_at INTEGER)`,
	'CREATE INDEX IF NOT EXISTS bot_runs_status ON bot_runs (status)',
	`CREATE TABLE IF NOT EXISTS bot_log (
		id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, step_id TEXT NOT NULL, input TEXT, output TEXT,
		error TEXT, at INTEGER NOT NULL)`,
	'CREATE INDEX IF NOT EXISTS bot_log_run ON bot_log (run_id, id)',
	// A room from before bots starts them on its next messages, not on its history.
	'INSERT OR IGNORE INTO bot_cursor (id, seen_seq) SELECT 1, COALESCE(MAX(seq), 0) FROM log',
];

export type RunRow = {
	id: string;
	bot_id: string;
	bot_name: string;
	version: number;
	trigger: BotRunTrigger;
	started_by: string | null;
	definition: string;
	state: string;
	status: RunState['status'];
	pending: string;
	sent: number;
	failures: number;
	started_at: number;
	updated_at: number;
	ended_at: number | null;
};

export interface Run {
	row: RunRow;
	definition: BotDefinition;
	state: RunState;
	pending: Effect[];
}

export interface BotRunView {
	id: string;
	bot: { id: string; name: string; version: number };
	trigger: BotRunTrigger;
	startedBy: string | null;
	status: RunState['status'];
	waitingAt: string | null;
	reason: string | null;
	variables: Record<string, unknown>;
	startedAt: string;
	endedAt: string | null;
	log: Array<{ stepId: string; input: unknown; output: unknown; error: string | null; at: string }>;
}

/**
 * A room's bot runs in its storage: the cursor of messages looked at, each run with its state and the effects
 * it still has to perform, and its step log. Synchronous reads and writes; the caller groups the writes of one
 * change in a transaction.
 */
export class BotStore {
	constructor(private readonly sql: SqlStorage) {}

	seen(): number {
		return this.sql.exec<{ seen_seq: number }>('SELECT seen_seq FROM bot_cursor WHERE id = 1').one().seen_seq;
	}

	setSeen(seq: number): void {
		this.sql.exec('UPDATE bot_cursor SET seen_seq = MAX(seen_seq, ?) WHERE id = 1', seq);
	}

	run(id: string): Run | null {
		const row = this.sql.exec<RunRow>('SELECT * FROM bot_runs WHERE id = ?', id).toArray()[0];
		return row ? toRun(row) : null;
	}

	/** The run under way (running or waiting), if any. */
	active(): Run | null {
		const row = this.sql
			.exec<RunRow>("SELECT * FROM bot_runs WHERE status IN ('running', 'waiting') ORDER BY started_at DESC LIMIT 1")
			.toArray()[0];
		return row ? toRun(row) : null;
	}

	/** Whether a run is under way or has effects left to perform. */
	busy(): boolean {
		return (
			this.sql
				.exec("SELECT 1 FROM bot_runs WHERE status IN ('running', 'waiting') OR pending != '[]' LIMIT 1")
				.toArray().length > 0
		);
	}

	/** The runs with effects left to perform, oldest first. */
	unfinished(): string[] {
		return this.sql
			.exec<{ id: string }>("SELECT id FROM bot_runs WHERE pending != '[]' ORDER BY started_at")
			.toArray()
			.map((row) => row.id);
	}

	/** The run an earlier start with this key began, if any. */
	startedWith(startKey: string): string | null {
		return (
			this.sql.exec<{ id: string }>('SELECT id FROM bot_runs WHERE start_key = ?', startKey).toArray()[0]?.id ?? null
		);
	}

	insert(run: Omit<RunRow, 'sent' | 'failures' | 'ended_at'> & { start_key: string | null }): void {
		this.sql.exec(
			'INSERT INTO bot_runs (id, bot_id, bot_name, version, trigger, started_by, start_key, definition, state, status, pending, started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
			run.id,
			run.bot_id,
			run.bot_name,
			run.version,
			run.trigger,
			run.started_by,
			run.start_key,
			run.definition,
			run.state,
			run.status,
			run.pending,
			run.started_at,
			run.updated_at,
		);
	}

	/** The run's new state and pending effects; `ended` marks when it ended (kept once set). */
	update(id: string, state: RunState, pending: Effect[], now: number, ended: number | null): void {
		this.sql.exec(
			'UPDATE bot_runs SET state = ?, status = ?, pending = ?, updated_at = ?, ended_at = COALESCE(ended_at, ?) WHERE id = ?',
			JSON.stringify(state),
			state.status,
			JSON.stringify(pending),
			now,
			ended,
			id,
		);
	}

	/** The first pending effect done: the rest left (a message also counts as sent). */
	done(id: string, rest: Effect[], sent = false): void {
		this.sql.exec(
			`UPDATE bot_runs SET pending = ?${sent ? ', sent = sent + 1' : ''} WHERE id = ?`,
			JSON.stringify(rest),
			id,
		);
	}

	/** Counts a failure to perform the run's effects; answers how many there have been. */
	failed(id: string): number {
		return this.sql
			.exec<{ failures: number }>('UPDATE bot_runs SET failures = failures + 1 WHERE id = ? RETURNING failures', id)
			.one().failures;
	}

	writeLog(runId: string, entry: Extract<Effect, { kind: 'log' }>): void {
		const count = this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM bot_log WHERE run_id = ?', runId).one().n;
		if (count >= MAX_LOG_PER_RUN) return;
		this.sql.exec(
			'INSERT INTO bot_log (run_id, step_id, input, output, error, at) VALUES (?, ?, ?, ?, ?, ?)',
			runId,
			entry.stepId,
			entry.input === undefined ? null : JSON.stringify(entry.input),
			entry.output === undefined ? null : JSON.stringify(entry.output),
			entry.error ?? null,
			Date.now(),
		);
	}

	/** The conversation's runs, newest first, each with its step log. */
	views(limit: number): BotRunView[] {
		const rows = this.sql
			.exec<RunRow>('SELECT * FROM bot_runs ORDER BY started_at DESC, id DESC LIMIT ?', limit)
			.toArray();
		// Every listed run's log in one read, grouped here.
		const logs = new Map<string, BotRunView['log']>(rows.map((row) => [row.id, []]));
		const entries = this.sql
			.exec<{
				run_id: string;
				step_id: string;
				input: string | null;
				output: string | null;
				error: string | null;
				at: number;
			}>(
				`SELECT run_id, step_id, input, output, error, at FROM bot_log WHERE run_id IN (${rows.map(() => '?').join(', ') || 'NULL'}) ORDER BY id`,
				...rows.map((row) => row.id),
			)
			.toArray();
		for (const entry of entries) {
			logs.get(entry.run_id)?.push({
				stepId: entry.step_id,
				input: entry.input === null ? null : JSON.parse(entry.input),
				output: entry.output === null ? null : JSON.parse(entry.output),
				error: entry.error,
				at: iso(entry.at),
			});
		}
		return rows.map((row) => {
			const state = JSON.parse(row.state) as RunState;
			return {
				id: row.id,
				bot: { id: row.bot_id, name: row.bot_name, version: row.version },
				trigger: row.trigger,
				startedBy: row.started_by,
				status: row.status,
				waitingAt: state.waiting?.stepId ?? null,
				reason: state.reason,
				variables: state.variables,
				startedAt: iso(row.started_at),
				endedAt: row.ended_at === null ? null : iso(row.ended_at),
				log: logs.get(row.id) ?? [],
			};
		});
	}
}

function toRun(row: RunRow): Run {
	return {
		row,
		definition: JSON.parse(row.definition) as BotDefinition,
		state: JSON.parse(row.state) as RunState,
		pending: JSON.parse(row.pending) as Effect[],
	};
}
