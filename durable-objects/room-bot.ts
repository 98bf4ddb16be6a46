import { performAction } from '../src/actions';
import { openDatabase } from '../src/db/client';
import { type RunnableBot, runnableBots } from '../src/domain/automation/bots/bots';
import { loadFacts } from '../src/domain/automation/facts';
import { updateConversation } from '../src/domain/conversations/changes';
import { type CheckedMessage, checkMessage, type PostOutcome } from '../src/domain/conversations/message-command';
import { loadWidgetSettings } from '../src/domain/widget/settings';
import type { BotDefinition } from '../src/engines/bot-definition';
import {
	advance,
	type BotEvent,
	type Effect,
	newRun,
	type RunContext,
	type RunState,
} from '../src/engines/bot-interpreter';
import { matchedKeyword } from '../src/engines/keywords';
import { AppError } from '../src/lib/errors';
import { iso, newId } from '../src/lib/ids';
import type { Actor } from '../src/model/actor';
import type { BotRunTrigger } from '../src/model/bot-runs';
import { type DomainEvent, newEvent } from '../src/model/events';
import { INPUT_KINDS, type Interactive, quickReplies } from '../src/model/messages';
import type { ServerFrame } from '../src/protocol/live';
import type { LogRow, RoomStore } from './room-store';
import type { RoomTimers } from './room-timers';

/** The kind of a run's delay and typing timers; one per run at a time, id `bot:<run id>`. */
export const BOT_TIMER = 'bot';
/** The id and kind of the timer that finishes a bot's work if the instance doing it is lost. */
export const BOT_WATCHDOG = 'bot-watchdog';
const WATCHDOG_MS = 30_000;
/** How long a room trusts the list of bots its triggers may start (a bot published meanwhile waits this long). */
const BOTS_CACHE_MS = 15_000;
/** Step log entries kept per run: a run that loops on re-prompts cannot grow the room's storage for ever. */
const MAX_LOG_PER_RUN = 500;
/**
 * Tries of a run's pending effects that fail (D1 down, an action that throws) before the run is given up as
 * failed: each retry is the watchdog's, WATCHDOG_MS apart, so a short outage is waited out but one broken
 * effect never blocks the room's bots for good.
 */
const MAX_EFFECT_FAILURES = 5;

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

type RunRow = {
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

interface Run {
	row: RunRow;
	definition: BotDefinition;
	state: RunState;
	pending: Effect[];
}

/** What a run reads about its conversation: for templates, facts and actions. */
interface Scene {
	channel: string;
	contactId: string | null;
	context: RunContext;
	locale: 'en' | 'pt';
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

/** What the room lends its bots: its one write path for messages, its sockets, its outbox. */
export interface BotHost {
	workspaceId(): string;
	conversationId(): string;
	post(message: CheckedMessage): Promise<PostOutcome>;
	broadcast(frame: ServerFrame): void;
	/** Arms the outbox after events were queued in the room's storage (in the same turn). */
	armOutbox(): Promise<void>;
}

/**
 * The bots of one conversation, run by its room. Every message of the conversation is looked at once, in
 * order (`bot_cursor`): a visitor's is an answer for the run under way, or may start a bot (the first one:
 * `new_conversation`; any: `keyword`); an operator's stops the run (the person takes over). The interpreter is
 * pure: a run's state, and the effects it still has to perform (`pending`), are stored together in one turn,
 * then the effects are performed one by one, each removed as it is done. So an instance lost mid-way leaves the
 * rest for its successor (the watchdog timer): a message goes out once (its client id is the run's and its
 * rank), a CRM or integration call may be made again (at least once, as every outbound call is).
 *
 * All work goes through one queue (`enqueue`), so a run sees one event at a time in order, however messages,
 * timers and manual starts interleave.
 */
export class RoomBot {
	private queue: Promise<unknown> = Promise.resolve();
	private bots: { at: number; list: RunnableBot[] } | null = null;
	/** The conversation as the current job read it; forgotten between jobs and after actions (they change it). */
	private scene: Scene | null = null;

	constructor(
		private readonly env: Env,
		private readonly storage: DurableObjectStorage,
		private readonly store: RoomStore,
		private readonly timers: RoomTimers,
		private readonly host: BotHost,
	) {}

	/**
	 * In the turn of an append that the bots must look at (a visitor's or an operator's message): the watchdog
	 * that finishes the look if this instance is lost before it does.
	 */
	guard(): void {
		this.timers.schedule(
			{ id: BOT_WATCHDOG, kind: BOT_WATCHDOG, dueAt: Date.now() + WATCHDOG_MS, payload: null },
			'earliest',
		);
	}

	/**
	 * In the turn of an append: marks the message looked at right away when it plainly needs no bot (no run
	 * under way or unfinished, nothing before it unlooked at, and it is the team's, or a visitor's in a
	 * workspace known to have no bot a message may start), so the usual message costs no look and no commit of
	 * its own. False when the bots must look at it (`guard`, then `kick`).
	 */
	settle(row: LogRow): boolean {
		if (this.seen() !== row.seq - 1) return false;
		const busy = this.storage.sql
			.exec("SELECT 1 FROM bot_runs WHERE status IN ('running', 'waiting') OR pending != '[]' LIMIT 1")
			.toArray().length;
		if (busy > 0) return false;
		const noBots = this.bots !== null && Date.now() - this.bots.at <= BOTS_CACHE_MS && this.bots.list.length === 0;
		if (row.author_kind === 'contact' && !noBots) return false;
		this.setSeen(row.seq);
		return true;
	}

	/** Looks at the messages not looked at yet, and performs what any run left pending. */
	kick(): Promise<void> {
		return this.enqueue(() => this.drain());
	}

	/** A run's delay or typing pause is over. */
	onTimer(payload: unknown): Promise<void> {
		const { runId, stepId } = payload as { runId: string; stepId: string };
		return this.enqueue(async () => {
			const run = this.run(runId);
			if (run && (run.row.status === 'waiting' || run.row.status === 'running')) {
				await this.feed(run, { type: 'timer', stepId });
			}
			await this.drain();
		});
	}

	/**
	 * Starts a bot now (an operator's manual start, a deal entering a stage): `busy` while another run is
	 * under way. The messages before it are not its input. A start with the `startKey` of an earlier one
	 * answers that run.
	 */
	start(
		bot: RunnableBot,
		trigger: BotRunTrigger,
		startedBy: string | null,
		startKey: string | null,
	): Promise<{ runId: string } | { busy: string }> {
		return this.enqueue(async () => {
			await this.drain();
			const before =
				startKey === null
					? undefined
					: this.storage.sql.exec<{ id: string }>('SELECT id FROM bot_runs WHERE start_key = ?', startKey).toArray()[0];
			if (before) return { runId: before.id };
			const active = this.active();
			if (active) return { busy: active.row.id };
			// Answered once the run is stored: its effects (an integration may take seconds) are a job of their own,
			// and the watchdog stored with the run finishes them if this instance is lost.
			const runId = await this.begin(bot, trigger, startedBy, this.store.lastSeq(), startKey, false);
			void this.kick().catch(() => undefined);
			return { runId };
		});
	}

	/** Whether a run is in a typing pause now: a socket that connects meanwhile is told, as the others were. */
	typing(): boolean {
		const waiting = this.active()?.state.waiting;
		return waiting?.for === 'timer' && waiting.resume === 'send';
	}

	/** The conversation's runs, newest first, each with its step log. */
	runs(limit = 20): BotRunView[] {
		const rows = this.storage.sql
			.exec<RunRow>('SELECT * FROM bot_runs ORDER BY started_at DESC, id DESC LIMIT ?', limit)
			.toArray();
		// Every listed run's log in one read, grouped here.
		const logs = new Map<string, BotRunView['log']>(rows.map((row) => [row.id, []]));
		const entries = this.storage.sql
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

	private enqueue<T>(job: () => Promise<T>): Promise<T> {
		const result = this.queue.then(async () => {
			this.scene = null;
			// Until the job is done, the watchdog stands in for it (stored with the append that asked for a look).
			if (this.timers.get(BOT_WATCHDOG) === null) {
				this.guard();
				await this.timers.scheduleNextAlarm();
			}
			return job();
		});
		this.queue = result.catch((error) => console.error('a bot job failed; the watchdog retries it', error));
		return result;
	}

	private seen(): number {
		return this.storage.sql.exec<{ seen_seq: number }>('SELECT seen_seq FROM bot_cursor WHERE id = 1').one().seen_seq;
	}

	private setSeen(seq: number): void {
		this.storage.sql.exec('UPDATE bot_cursor SET seen_seq = MAX(seen_seq, ?) WHERE id = 1', seq);
	}

	private run(id: string): Run | null {
		const row = this.storage.sql.exec<RunRow>('SELECT * FROM bot_runs WHERE id = ?', id).toArray()[0];
		return row ? toRun(row) : null;
	}

	private active(): Run | null {
		const row = this.storage.sql
			.exec<RunRow>("SELECT * FROM bot_runs WHERE status IN ('running', 'waiting') ORDER BY started_at DESC LIMIT 1")
			.toArray()[0];
		return row ? toRun(row) : null;
	}

	/** Finishes what runs left pending, then looks at every new message in order; drops the watchdog when done. */
	private async drain(): Promise<void> {
		const unfinished = this.storage.sql
			.exec<{ id: string }>("SELECT id FROM bot_runs WHERE pending != '[]' ORDER BY started_at")
			.toArray();
		for (const { id } of unfinished) await this.performGuarded(id);
		for (;;) {
			const [row] = this.store.after(this.seen(), 1);
			if (!row) break;
			await this.look(row);
		}
		this.timers.cancel(BOT_WATCHDOG);
		await this.timers.scheduleNextAlarm();
	}

	/** One message: an event for the run under way, or a trigger. Marks it looked at with what it caused. */
	private async look(row: LogRow): Promise<void> {
		// A private note is the team talking among itself: no answer, no trigger, no takeover.
		if (row.private === 1) return this.setSeen(row.seq);
		const active = this.active();
		if (row.author_kind === 'operator' && active) return this.feed(active, { type: 'takeover' }, row.seq);
		if (row.author_kind !== 'contact') return this.setSeen(row.seq);
		if (active) return this.feed(active, answerOf(row), row.seq);
		const started = await this.triggered(row);
		if (!started) return this.setSeen(row.seq);
		await this.begin(started.bot, started.trigger, null, row.seq);
	}

	/** The bot a visitor's message starts, if any: the best by priority whose trigger it meets. */
	private async triggered(row: LogRow): Promise<{ bot: RunnableBot; trigger: BotRunTrigger } | null> {
		// A workspace without bots costs one read every BOTS_CACHE_MS, and nothing per message.
		const candidates = await this.startable();
		if (candidates.length === 0) return null;
		// New conversation: the customer's first message, before anyone of the team wrote (a conversation the
		// team opened is theirs). Keyword: only while no person of the team has written in it (to the customer: a
		// private note is not). Each is a lookup that stops at the first row found, not a count of the log.
		const wroteBefore = (kind: 'contact' | 'operator') =>
			this.storage.sql
				.exec('SELECT 1 FROM log WHERE author_kind = ? AND private = 0 AND seq < ? LIMIT 1', kind, row.seq)
				.toArray().length > 0;
		if (wroteBefore('operator')) return null;
		const first = !wroteBefore('contact');
		const { channel } = await this.loadScene();
		for (const bot of candidates) {
			if (bot.channels !== null && !bot.channels.includes(channel)) continue;
			if (bot.trigger === 'new_conversation' && first) return { bot, trigger: 'new_conversation' };
			// A file's message text is its name: "pricing.pdf" is no one asking about pricing.
			const typed = row.attachments === '[]';
			if (bot.trigger === 'keyword' && typed && matchedKeyword(row.body, bot.keywords) !== null) {
				return { bot, trigger: 'keyword' };
			}
		}
		return null;
	}

	/** The workspace's bots that messages may start, whatever their channels (kept BOTS_CACHE_MS). */
	private async startable(): Promise<RunnableBot[]> {
		const now = Date.now();
		if (!this.bots || now - this.bots.at > BOTS_CACHE_MS) {
			const db = openDatabase(this.env.DB);
			const list = await runnableBots(db, this.host.workspaceId(), ['new_conversation', 'keyword']);
			this.bots = { at: now, list };
		}
		return this.bots.list;
	}

	/** Stores a new run with its start (and `seen`, the message that started it), then performs its effects. */
	private async begin(
		bot: RunnableBot,
		trigger: BotRunTrigger,
		startedBy: string | null,
		seen: number,
		startKey: string | null = null,
		performNow = true,
	): Promise<string> {
		const scene = await this.loadScene();
		const now = Date.now();
		const id = newId('run', now);
		const { state, effects } = advance(bot.definition, newRun(), { type: 'start' }, scene.context, now);
		const started = newEvent(
			'bot.run_started',
			this.host.workspaceId(),
			botActor(bot.id),
			{
				bot: { id: bot.id, name: bot.name },
				runId: id,
				conversationId: this.host.conversationId(),
				version: bot.version,
				trigger,
			},
			now,
		);
		this.storage.transactionSync(() => {
			this.storage.sql.exec(
				'INSERT INTO bot_runs (id, bot_id, bot_name, version, trigger, started_by, start_key, definition, state, status, pending, started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
				id,
				bot.id,
				bot.name,
				bot.version,
				trigger,
				startedBy,
				startKey,
				JSON.stringify(bot.definition),
				JSON.stringify(state),
				state.status,
				JSON.stringify(effects),
				now,
				now,
			);
			this.setSeen(seen);
			this.store.queueEvent(started);
			const ended = this.endEvent(id, bot.id, bot.name, state, now);
			if (ended) this.store.queueEvent(ended);
		});
		await this.host.armOutbox();
		if (performNow) await this.performGuarded(id);
		return id;
	}

	/** Runs one event through a run and stores the outcome (with `seen`), then performs the effects. */
	private async feed(run: Run, event: BotEvent, seen?: number): Promise<void> {
		const scene = await this.loadScene();
		this.advanceStored(run, event, scene, run.pending, seen);
		await this.performGuarded(run.row.id);
	}

	/** The synchronous half of `feed`: the new state and its effects after `pending`, in one transaction. */
	private advanceStored(run: Run, event: BotEvent, scene: Scene, pending: Effect[], seen?: number): void {
		const now = Date.now();
		const { state, effects } = advance(run.definition, run.state, event, scene.context, now);
		const ended =
			run.row.ended_at === null ? this.endEvent(run.row.id, run.row.bot_id, run.row.bot_name, state, now) : null;
		this.storage.transactionSync(() => {
			this.storage.sql.exec(
				'UPDATE bot_runs SET state = ?, status = ?, pending = ?, updated_at = ?, ended_at = COALESCE(ended_at, ?) WHERE id = ?',
				JSON.stringify(state),
				state.status,
				JSON.stringify([...pending, ...effects]),
				now,
				ended ? now : null,
				run.row.id,
			);
			if (seen !== undefined) this.setSeen(seen);
			if (ended) this.store.queueEvent(ended);
		});
		if (ended) void this.host.armOutbox();
	}

	private endEvent(runId: string, botId: string, botName: string, state: RunState, now: number): DomainEvent | null {
		if (state.status === 'running' || state.status === 'waiting') return null;
		return newEvent(
			'bot.run_ended',
			this.host.workspaceId(),
			botActor(botId),
			{
				bot: { id: botId, name: botName },
				runId,
				conversationId: this.host.conversationId(),
				status: state.status,
				reason: state.reason,
			},
			now,
		);
	}

	/**
	 * `perform`, counting failures: past MAX_EFFECT_FAILURES the run is given up (failed, nothing pending), so
	 * that the room's bots go on with the next messages; before that the failure is thrown for a retry.
	 */
	private async performGuarded(runId: string): Promise<void> {
		try {
			await this.perform(runId);
		} catch (error) {
			const { failures } = this.storage.sql
				.exec<{ failures: number }>(
					'UPDATE bot_runs SET failures = failures + 1 WHERE id = ? RETURNING failures',
					runId,
				)
				.one();
			if (failures < MAX_EFFECT_FAILURES) throw error;
			this.abandon(runId, error);
		}
	}

	/** A run whose effects kept failing: failed, with why, and nothing left to perform. */
	private abandon(runId: string, error: unknown): void {
		const run = this.run(runId);
		if (!run) return;
		const now = Date.now();
		const reason = `an effect kept failing: ${error instanceof Error ? error.message : String(error)}`;
		const state: RunState = { ...run.state, status: 'failed', waiting: null, reason };
		const ended = run.row.ended_at === null ? this.endEvent(runId, run.row.bot_id, run.row.bot_name, state, now) : null;
		this.storage.transactionSync(() => {
			this.storage.sql.exec(
				"UPDATE bot_runs SET state = ?, status = 'failed', pending = '[]', updated_at = ?, ended_at = COALESCE(ended_at, ?) WHERE id = ?",
				JSON.stringify(state),
				now,
				now,
				runId,
			);
			this.writeLog(runId, { kind: 'log', stepId: run.pending[0]?.kind ?? 'effect', error: reason });
			this.timers.cancel(`${BOT_TIMER}:${runId}`);
			if (ended) this.store.queueEvent(ended);
		});
		if (ended) void this.host.armOutbox();
		console.error(`bot run ${runId} given up`, error);
	}

	/** Performs a run's pending effects in order, each removed (in storage) once done. */
	private async perform(runId: string): Promise<void> {
		for (;;) {
			const run = this.run(runId);
			const [effect, ...rest] = run?.pending ?? [];
			if (!run || !effect) return;
			const done = (extra = '') =>
				this.storage.sql.exec(`UPDATE bot_runs SET pending = ?${extra} WHERE id = ?`, JSON.stringify(rest), runId);
			switch (effect.kind) {
				case 'log':
					this.writeLog(runId, effect);
					done();
					break;
				case 'typing':
					this.host.broadcast({ type: 'typing', author: 'operator', operatorId: null, typing: effect.on });
					done();
					break;
				case 'timer':
					this.timers.schedule(
						{
							id: `${BOT_TIMER}:${runId}`,
							kind: BOT_TIMER,
							dueAt: effect.at,
							payload: { runId, stepId: effect.stepId },
						},
						'replace',
					);
					done();
					await this.timers.scheduleNextAlarm();
					break;
				case 'cancel_timer':
					this.timers.cancel(`${BOT_TIMER}:${runId}`);
					done();
					await this.timers.scheduleNextAlarm();
					break;
				case 'message': {
					const problem = await this.say(run, effect);
					if (problem) this.writeLog(runId, { kind: 'log', stepId: 'message', error: problem });
					done(', sent = sent + 1');
					break;
				}
				case 'transfer':
					await this.transfer(run);
					done();
					break;
				case 'facts': {
					const scene = await this.loadScene();
					const facts = await loadFacts(
						this.env,
						openDatabase(this.env.DB),
						{
							workspaceId: this.host.workspaceId(),
							conversationId: this.host.conversationId(),
							contactId: scene.contactId,
							variables: run.state.variables,
							now: Date.now(),
						},
						effect.roots,
					);
					this.advanceStored(run, { type: 'facts', stepId: effect.stepId, facts }, scene, rest);
					break;
				}
				case 'action': {
					const scene = await this.loadScene();
					const result = await performAction(
						{
							env: this.env,
							db: openDatabase(this.env.DB),
							workspaceId: this.host.workspaceId(),
							actor: botActor(run.row.bot_id),
							conversationId: this.host.conversationId(),
							contactId: scene.contactId,
							variables: run.state.variables,
							locale: scene.locale,
							now: Date.now(),
						},
						effect.step,
					);
					// The action may have changed what templates read (the contact, the assignee).
					this.scene = null;
					this.advanceStored(run, { type: 'result', stepId: effect.step.id, ...result }, await this.loadScene(), rest);
					break;
				}
			}
		}
	}

	private writeLog(runId: string, entry: Extract<Effect, { kind: 'log' }>): void {
		const count = this.storage.sql
			.exec<{ n: number }>('SELECT COUNT(*) AS n FROM bot_log WHERE run_id = ?', runId)
			.one().n;
		if (count >= MAX_LOG_PER_RUN) return;
		this.storage.sql.exec(
			'INSERT INTO bot_log (run_id, step_id, input, output, error, at) VALUES (?, ?, ?, ?, ?, ?)',
			runId,
			entry.stepId,
			entry.input === undefined ? null : JSON.stringify(entry.input),
			entry.output === undefined ? null : JSON.stringify(entry.output),
			entry.error ?? null,
			Date.now(),
		);
	}

	/** Posts a bot message through the room's write path; its client id makes a repeat (after a loss) a replay. */
	private async say(run: Run, effect: Extract<Effect, { kind: 'message' }>): Promise<string | null> {
		const checked = checkMessage({
			workspaceId: this.host.workspaceId(),
			conversationId: this.host.conversationId(),
			authorKind: 'bot',
			authorId: run.row.bot_id,
			text: effect.text.trim() === '' ? '…' : effect.text,
			attachments: (effect.media ?? []).map((item) => ({
				url: item.url,
				name: item.name ?? (item.url.split('/').pop() || item.kind),
				contentType: MEDIA_TYPES[item.kind] ?? 'application/octet-stream',
				size: 0,
			})),
			interactive: interactiveOf(effect),
			clientMessageId: `bot:${run.row.id}:${run.row.sent}`,
		});
		if (!checked.ok)
			return `message not sent: ${checked.problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; ')}`;
		const outcome = await this.host.post(checked.message);
		return outcome.status === 'created' || outcome.status === 'replayed' ? null : `message not sent: ${outcome.status}`;
	}

	/** Transfer to Agent: the conversation waits, unassigned and open, for a person. */
	private async transfer(run: Run): Promise<void> {
		try {
			await updateConversation(
				this.env,
				openDatabase(this.env.DB),
				this.host.workspaceId(),
				this.host.conversationId(),
				{ assigneeId: null, status: 'open' },
				botActor(run.row.bot_id),
			);
		} catch (error) {
			// The conversation was deleted meanwhile: nothing to hand over. D1 down: thrown, retried.
			if (!(error instanceof AppError)) throw error;
			this.writeLog(run.row.id, { kind: 'log', stepId: 'transfer', error: error.message });
		}
	}

	/** The conversation as templates, facts and actions see it: one D1 round trip, once per job. */
	private async loadScene(): Promise<Scene> {
		if (this.scene) return this.scene;
		const db = this.env.DB;
		const [row, { settings }] = await Promise.all([
			db
				.prepare(
					`SELECT c.channel, c.contact_id, ct.name, ct.email, ct.phone, ct.custom_fields, o.id AS agent_id, o.name AS agent_name
					FROM conversations c LEFT JOIN contacts ct ON ct.id = c.contact_id AND ct.workspace_id = c.workspace_id
					LEFT JOIN operators o ON o.id = c.assignee_id AND o.workspace_id = c.workspace_id
					WHERE c.id = ? AND c.workspace_id = ?`,
				)
				.bind(this.host.conversationId(), this.host.workspaceId())
				.first<{
					channel: string;
					contact_id: string | null;
					name: string | null;
					email: string | null;
					phone: string | null;
					custom_fields: string | null;
					agent_id: string | null;
					agent_name: string | null;
				}>(),
			loadWidgetSettings(openDatabase(db), this.host.workspaceId()),
		]);
		this.scene = {
			channel: row?.channel ?? 'unknown',
			contactId: row?.contact_id ?? null,
			locale: settings.locale,
			context: {
				timeZone: settings.businessHours.timeZone,
				contact: row?.contact_id
					? {
							id: row.contact_id,
							name: row.name,
							email: row.email,
							phone: row.phone,
							customFields: JSON.parse(row.custom_fields ?? '{}'),
						}
					: null,
				conversation: { id: this.host.conversationId(), channel: row?.channel ?? 'unknown' },
				agent: row?.agent_id ? { id: row.agent_id, name: row.agent_name ?? '' } : null,
			},
		};
		return this.scene;
	}
}

const MEDIA_TYPES: Record<string, string> = {
	image: 'image/*',
	video: 'video/*',
	document: 'application/octet-stream',
};

function toRun(row: RunRow): Run {
	return {
		row,
		definition: JSON.parse(row.definition) as BotDefinition,
		state: JSON.parse(row.state) as RunState,
		pending: JSON.parse(row.pending) as Effect[],
	};
}

function botActor(botId: string): Actor {
	return { kind: 'bot', id: botId };
}

/** A visitor's message as a run's event: a file when it carries one, its text otherwise. */
function answerOf(row: LogRow): BotEvent {
	const [file] = JSON.parse(row.attachments) as Array<{ url: string; name: string }>;
	return file ? { type: 'file', ref: file.url, name: file.name } : { type: 'answer', text: row.body };
}

/** What a bot message asks of the visitor, for the widget: buttons, a rating, a typed input. */
function interactiveOf(effect: Extract<Effect, { kind: 'message' }>): Interactive | null {
	if (effect.ask === 'rating') return { type: 'rating', max: 5 };
	if (effect.buttons && effect.buttons.length > 0) return quickReplies(effect.buttons);
	const input = INPUT_KINDS.find((kind) => kind === effect.ask);
	return input ? { type: 'input', input } : null;
}
