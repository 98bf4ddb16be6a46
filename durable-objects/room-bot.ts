import { workspaceDb } from '../src/db/shards';
import { type RunnableBot, runnableBots } from '../src/domain/automation/bots/bots';
import { type RunNames, runEnded, runStarted, triggeredBot } from '../src/domain/automation/bots/run-events';
import { type BotRoom, performBotEffect } from '../src/domain/automation/bots/runner';
import { loadScene, type Scene } from '../src/domain/automation/core/scene';
import type { CheckedMessage, PostOutcome } from '../src/domain/conversations/message-command';
import { advance, type BotEvent, type Effect, newRun, type RunState } from '../src/engines/bot-interpreter';
import { newId } from '../src/lib/ids';
import type { BotRunTrigger } from '../src/model/bot-runs';
import type { ServerFrame } from '../src/protocol/live';
import { type BotRunView, BotStore, type Run } from './bot-store';
import type { LogRow } from './room-schema';
import type { RoomStore } from './room-store';
import type { RoomTimers } from './room-timers';

export type { BotRunView } from './bot-store';

/** The kind of a run's delay and typing timers; one per run at a time, id `bot:<run id>`. */
export const BOT_TIMER = 'bot';
/** The id and kind of the timer that finishes a bot's work if the instance doing it is lost. */
export const BOT_WATCHDOG = 'bot-watchdog';
const WATCHDOG_MS = 30_000;
/** How long a room trusts the list of bots its triggers may start (a bot published meanwhile waits this long). */
const BOTS_CACHE_MS = 15_000;
/**
 * Tries of a run's pending effects that fail (D1 down, an action that throws) before the run is given up as
 * failed: each retry is the watchdog's, WATCHDOG_MS apart, so a short outage is waited out but one broken
 * effect never blocks the room's bots for good.
 */
const MAX_EFFECT_FAILURES = 5;

/** What the room lends its bots: its one write path for messages, its sockets, its outbox. */
interface BotHost {
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
 * pure: a run's state, and the effects it still has to perform (`pending`), are stored together in one turn
 * (./bot-store.ts), then the effects are performed one by one by the bot runner
 * (src/domain/automation/bots/runner.ts), each removed as it is done. So an instance lost mid-way leaves the
 * rest for its successor (the watchdog timer).
 *
 * All work goes through one queue (`enqueue`), so a run sees one event at a time in order, however messages,
 * timers and manual starts interleave.
 */
export class RoomBot {
	private queue: Promise<unknown> = Promise.resolve();
	private bots: { at: number; list: RunnableBot[] } | null = null;
	/** The conversation as the current job read it; forgotten between jobs and after actions (they change it). */
	private scene: Scene | null = null;
	private readonly runsStore: BotStore;

	constructor(
		private readonly env: Env,
		private readonly storage: DurableObjectStorage,
		private readonly store: RoomStore,
		private readonly timers: RoomTimers,
		private readonly host: BotHost,
	) {
		this.runsStore = new BotStore(storage.sql);
	}

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
		if (this.runsStore.seen() !== row.seq - 1) return false;
		if (this.runsStore.busy()) return false;
		const noBots = this.bots !== null && Date.now() - this.bots.at <= BOTS_CACHE_MS && this.bots.list.length === 0;
		if (row.author_kind === 'contact' && !noBots) return false;
		this.runsStore.setSeen(row.seq);
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
			const run = this.runsStore.run(runId);
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
			const before = startKey === null ? null : this.runsStore.startedWith(startKey);
			if (before) return { runId: before };
			const active = this.runsStore.active();
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
		const waiting = this.runsStore.active()?.state.waiting;
		return waiting?.for === 'timer' && waiting.resume === 'send';
	}

	/** The conversation's runs, newest first, each with its step log. */
	runs(limit = 20): BotRunView[] {
		return this.runsStore.views(limit);
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

	/** Finishes what runs left pending, then looks at every new message in order; drops the watchdog when done. */
	private async drain(): Promise<void> {
		for (const id of this.runsStore.unfinished()) await this.performGuarded(id);
		for (;;) {
			const [row] = this.store.after(this.runsStore.seen(), 1);
			if (!row) break;
			await this.look(row);
		}
		this.timers.cancel(BOT_WATCHDOG);
		await this.timers.scheduleNextAlarm();
	}

	/** One message: an event for the run under way, or a trigger. Marks it looked at with what it caused. */
	private async look(row: LogRow): Promise<void> {
		// A private note is the team talking among itself: no answer, no trigger, no takeover.
		if (row.private === 1) return this.runsStore.setSeen(row.seq);
		const active = this.runsStore.active();
		if (row.author_kind === 'operator' && active) return this.feed(active, { type: 'takeover' }, row.seq);
		if (row.author_kind !== 'contact') return this.runsStore.setSeen(row.seq);
		if (active) return this.feed(active, answerOf(row), row.seq);
		const started = await this.triggered(row);
		if (!started) return this.runsStore.setSeen(row.seq);
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
		const { channel } = await this.loadScene();
		const message = { body: row.body, file: row.attachments !== '[]', first: !wroteBefore('contact'), channel };
		return triggeredBot(candidates, message);
	}

	/** The workspace's bots that messages may start, whatever their channels (kept BOTS_CACHE_MS). */
	private async startable(): Promise<RunnableBot[]> {
		const now = Date.now();
		if (!this.bots || now - this.bots.at > BOTS_CACHE_MS) {
			const db = await workspaceDb(this.env, this.host.workspaceId());
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
		const names = this.names(id, bot.id, bot.name);
		this.storage.transactionSync(() => {
			this.runsStore.insert({
				id,
				bot_id: bot.id,
				bot_name: bot.name,
				version: bot.version,
				trigger,
				started_by: startedBy,
				start_key: startKey,
				definition: JSON.stringify(bot.definition),
				state: JSON.stringify(state),
				status: state.status,
				pending: JSON.stringify(effects),
				started_at: now,
				updated_at: now,
			});
			this.runsStore.setSeen(seen);
			this.store.queueEvent(runStarted(names, bot.version, trigger, now));
			const ended = runEnded(names, state, now);
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
			run.row.ended_at === null ? runEnded(this.names(run.row.id, run.row.bot_id, run.row.bot_name), state, now) : null;
		this.storage.transactionSync(() => {
			this.runsStore.update(run.row.id, state, [...pending, ...effects], now, ended ? now : null);
			if (seen !== undefined) this.runsStore.setSeen(seen);
			if (ended) this.store.queueEvent(ended);
		});
		if (ended) void this.host.armOutbox();
	}

	private names(runId: string, botId: string, botName: string): RunNames {
		return {
			workspaceId: this.host.workspaceId(),
			conversationId: this.host.conversationId(),
			runId,
			bot: { id: botId, name: botName },
		};
	}

	/**
	 * `perform`, counting failures: past MAX_EFFECT_FAILURES the run is given up (failed, nothing pending), so
	 * that the room's bots go on with the next messages; before that the failure is thrown for a retry.
	 */
	private async performGuarded(runId: string): Promise<void> {
		try {
			await this.perform(runId);
		} catch (error) {
			if (this.runsStore.failed(runId) < MAX_EFFECT_FAILURES) throw error;
			this.abandon(runId, error);
		}
	}

	/** A run whose effects kept failing: failed, with why, and nothing left to perform. */
	private abandon(runId: string, error: unknown): void {
		const run = this.runsStore.run(runId);
		if (!run) return;
		const now = Date.now();
		const reason = `an effect kept failing: ${error instanceof Error ? error.message : String(error)}`;
		const state: RunState = { ...run.state, status: 'failed', waiting: null, reason };
		const ended =
			run.row.ended_at === null ? runEnded(this.names(runId, run.row.bot_id, run.row.bot_name), state, now) : null;
		this.storage.transactionSync(() => {
			this.runsStore.update(runId, state, [], now, now);
			this.runsStore.writeLog(runId, { kind: 'log', stepId: run.pending[0]?.kind ?? 'effect', error: reason });
			this.timers.cancel(`${BOT_TIMER}:${runId}`);
			if (ended) this.store.queueEvent(ended);
		});
		if (ended) void this.host.armOutbox();
		console.error(`bot run ${runId} given up`, error);
	}

	/** Performs a run's pending effects in order, through the bot runner, each removed (in storage) once done. */
	private async perform(runId: string): Promise<void> {
		for (;;) {
			const run = this.runsStore.run(runId);
			const [effect, ...rest] = run?.pending ?? [];
			if (!run || !effect) return;
			await performBotEffect(this.env, this.lend(run, rest), effect);
		}
	}

	/** What the bot runner may do with the room for the first effect of `run`, `rest` being those after it. */
	private lend(run: Run, rest: Effect[]): BotRoom {
		const runId = run.row.id;
		const timerId = `${BOT_TIMER}:${runId}`;
		return {
			workspaceId: this.host.workspaceId(),
			conversationId: this.host.conversationId(),
			run: {
				id: runId,
				botId: run.row.bot_id,
				botName: run.row.bot_name,
				variables: run.state.variables,
				sent: run.row.sent,
			},
			scene: () => this.loadScene(),
			forgetScene: () => {
				this.scene = null;
			},
			done: (sent) => this.runsStore.done(runId, rest, sent),
			feed: (event, scene) => this.advanceStored(run, event, scene, rest),
			log: (entry) => this.runsStore.writeLog(runId, entry),
			typing: (on) => this.host.broadcast({ type: 'typing', author: 'operator', operatorId: null, typing: on }),
			setTimer: (stepId, at) =>
				this.timers.schedule({ id: timerId, kind: BOT_TIMER, dueAt: at, payload: { runId, stepId } }, 'replace'),
			cancelTimer: () => this.timers.cancel(timerId),
			armAlarm: () => this.timers.scheduleNextAlarm(),
			post: (message) => this.host.post(message),
		};
	}

	/** The conversation as templates, facts and actions see it (the core's scene), read once per job. */
	private async loadScene(): Promise<Scene> {
		const workspaceId = this.host.workspaceId();
		this.scene ??= await loadScene(await workspaceDb(this.env, workspaceId), workspaceId, this.host.conversationId());
		return this.scene;
	}
}

/** A visitor's message as a run's event: a file when it carries one, its text otherwise. */
function answerOf(row: LogRow): BotEvent {
	const [file] = JSON.parse(row.attachments) as Array<{ url: string; name: string }>;
	return file ? { type: 'file', ref: file.url, name: file.name } : { type: 'answer', text: row.body };
}
