import { DurableObject } from 'cloudflare:workers';
import { workspaceBinding } from '../src/db/shards';
import type { RunnableBot } from '../src/domain/automation/bots/bots';
import type { MessageTarget } from '../src/domain/conversations/live';
import {
	type CheckedMessage,
	checkMessage,
	type MessageCommand,
	type PostOutcome,
	type Replayed,
	type ReplayOutcome,
} from '../src/domain/conversations/message-command';
import { visitorView } from '../src/domain/conversations/messages';
import { newId } from '../src/lib/ids';
import type { BotRunTrigger } from '../src/model/bot-runs';
import { newEvent } from '../src/model/events';
import { type Participant, PING, PONG, type ServerFrame } from '../src/protocol/live';
import { BOT_TIMER, BOT_WATCHDOG, type BotRunView, RoomBot } from './room-bot';
import { RoomDoor } from './room-door';
import { RoomFrames } from './room-frames';
import { CONTINUATION_TIMER, RoomMail } from './room-mail';
import { OUTBOX_TIMER, RoomOutbox } from './room-outbox';
import { messageEvent, messageView, readerActor } from './room-schema';
import { RoomSnooze, SNOOZE_TIMER } from './room-snooze';
import { operatorTag, visitorTag } from './room-sockets';
import { RoomStore } from './room-store';
import { RoomTimers } from './room-timers';
import { whatsappRefusal } from './room-whatsapp';
import { trySend } from './sockets';

/**
 * How long a message sent on a socket waits for others before the flush that copies it to D1 and the Queue.
 * Sent one by one as they come, eight busy sockets cost a D1 write and a Queue send per message or two (the
 * bench measured less than half the messages a second); the wait delays only the copies: the sender's ack
 * and the other sockets' frames go out as soon as the room has stored the message.
 */
export const SOCKET_FLUSH_DELAY_MS = 50;

/**
 * The live side of one conversation, addressed by conversation id: the single writer of its messages.
 *
 * A message is numbered, stored in this object's SQLite (with its D1 write and its event in the outbox, in
 * the same transaction), broadcast, then copied to D1 and the events Queue. The runtime holds the answer until
 * the local write is durable, so an acknowledged message survives a crash; if D1 or the Queue fail, the
 * outbox keeps the work and an alarm retries it. Sockets use the Hibernation API and every fact lives in
 * storage or in a socket's attachment (what a flush sent is recorded with the next change; a successor
 * redoes what a lost instance had not recorded), so an idle conversation costs nothing and wakes up whole.
 */
export class ConversationRoom extends DurableObject<Env> {
	/** SOCKET_FLUSH_DELAY_MS, as the rooms of this isolate use it: a test may widen it to make a burst certain. */
	static socketFlushDelayMs = SOCKET_FLUSH_DELAY_MS;
	private readonly store: RoomStore;
	/** Everything this room does later (the outbox's retry, bots' delays, continuations), over its one alarm. */
	private readonly timers: RoomTimers;
	private readonly outbox: RoomOutbox;
	private readonly frames: RoomFrames;
	/** The conversation's bots: they look at every message and answer through `postChecked`. */
	private readonly bot: RoomBot;
	/** Sockets opened and closed. */
	private readonly door: RoomDoor;
	/** The team's messages the visitor has not seen, mailed after the workspace's delay. */
	private readonly mail: RoomMail;
	private readonly snoozing: RoomSnooze;
	/** D1 statements this instance sent itself (imports, status reads); with the outbox's, the cost a caller is told. */
	private importStatements = 0;
	/** The flush a socket's change is waiting for (see SOCKET_FLUSH_DELAY_MS); unset when none is. */
	private socketFlush: ReturnType<typeof setTimeout> | undefined;

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		this.store = new RoomStore(ctx.storage);
		this.timers = new RoomTimers(ctx.storage);
		this.outbox = new RoomOutbox(env, this.store, this.timers);
		this.frames = new RoomFrames(env, this.store, {
			post: (message, target) => this.postChecked(message, target, false),
			replay: (message) => this.replayChecked(message, false),
			recordRead: (...args) => this.recordRead(...args),
			broadcast: (frame, except) => this.broadcast(frame, except),
		});
		this.bot = new RoomBot(env, ctx.storage, this.store, this.timers, {
			workspaceId: () => this.store.room()?.workspace_id ?? '',
			conversationId: () => this.store.room()?.conversation_id ?? '',
			post: (message) => this.postChecked(message, null, false),
			broadcast: (frame) => this.broadcast(frame),
			armOutbox: () => this.outbox.arm(),
		});
		this.door = new RoomDoor(ctx, env, this.store, () => this.bot.typing());
		this.mail = new RoomMail(env, ctx.storage, this.store, this.timers);
		this.snoozing = new RoomSnooze(env, this.store, this.timers);
		ctx.blockConcurrencyWhile(async () => {
			this.store.open();
			await this.timers.load();
		});
		ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING, PONG));
	}

	/**
	 * Appends a message (idempotent by client message id) and returns it once it is durable here. A visitor's
	 * message may reopen a closed conversation: that is decided by D1 when the flush writes the message (see
	 * `RoomOutbox`), against the message's time, so it is ordered with the team's status changes however the
	 * calls interleave. When the workspace has visitors start a new conversation instead (`target`, from
	 * `messageTarget`), the room reads the status itself right before storing and refuses (`closed`).
	 * An operator's message leaves the status as it is (as Chatwoot does): the team closes and opens.
	 * The answer waits until D1 has the message too: the caller may read it back from the API. A socket's
	 * sender has it from its ack (`RoomFrames`), so its answer waits only for this object's storage, and the
	 * sends of SOCKET_FLUSH_DELAY_MS share one D1 write.
	 */
	async post(command: MessageCommand, target: MessageTarget | null): Promise<PostOutcome> {
		const checked = checkMessage(command);
		if (!checked.ok) return { status: 'invalid', problems: checked.problems };
		return this.postChecked(checked.message, target, true);
	}

	/** `post` of a command already checked (a socket's frame, checked once for its replay and its post). */
	private async postChecked(
		input: CheckedMessage,
		target: MessageTarget | null,
		untilD1: boolean,
	): Promise<PostOutcome> {
		const sentBefore = this.d1Statements();
		const startedAt = Date.now();
		if (!(await this.open(input.workspaceId, input.conversationId))) return { status: 'not_found' };
		const openedAt = Date.now();
		const visitor = input.authorKind === 'contact';
		const startsNew = visitor && target?.closedReply === 'new';
		// Read before the replay check and the append, which then run in one turn: nothing comes in between.
		const closed = startsNew && (await this.closedInD1(input.workspaceId, input.conversationId));
		const refused = await whatsappRefusal(this.env, this.store.room()?.channel ?? null, input);
		// A socket's send answered here as a replay (the same id stored since its own replay check) is not
		// flushed either, as in `replayChecked`.
		const replayed = await this.replayed(input, sentBefore, untilD1);
		if (replayed) return replayed;
		if (closed) return { status: 'closed' };
		if (refused !== null) return { status: 'refused', reason: refused };
		const now = Date.now();
		const row = this.store.append(
			{
				id: newId('msg', now),
				author_kind: input.authorKind,
				author_id: input.authorId,
				body: input.text,
				attachments: JSON.stringify(input.attachments),
				interactive: input.interactive === null ? null : JSON.stringify(input.interactive),
				client_message_id: input.clientMessageId,
				created_at: now,
				private: input.private ? 1 : 0,
			},
			(row) => [messageEvent(input, row, this.store.room()?.channel ?? null)],
			visitor && !startsNew,
		);
		// A visitor's message may be a bot's answer or trigger, an operator's takes over from a bot (a private
		// note does not: `RoomBot.look` passes over it): the bots look at it later (their watchdog is stored with
		// it, so a lost instance's successor still does), unless it plainly concerns no bot: then it is marked
		// looked at now, in the same commit.
		const forBots = (input.authorKind === 'contact' || input.authorKind === 'operator') && !this.bot.settle(row);
		if (forBots) this.bot.guard();
		this.mail.noted(row);
		if (visitor) this.snoozing.customerWrote();
		// Armed in the same turn as the append, so the two are stored together: no pending work without an alarm.
		const armed = this.outbox.arm();
		const message = messageView(row, input.conversationId);
		this.broadcast({ type: 'message', message });
		await armed;
		const storedAt = Date.now();
		await this.sendOut(armed, untilD1);
		// Not awaited: the sender is answered once its message is stored. A failed look is logged by the bots'
		// queue and redone by their watchdog.
		if (forBots) void this.bot.kick().catch(() => undefined);
		// The Workers clock moves only across I/O: these are the waits (the first use's import from D1, the
		// storage write with its timer, the D1 copy), not CPU.
		const spans = { open: openedAt - startedAt, stored: storedAt - openedAt, d1: Date.now() - storedAt };
		const d1Statements = this.d1Statements() - sentBefore;
		return { status: 'created', message, d1Statements, d1Bookmark: this.outbox.d1Bookmark, spans };
	}

	/**
	 * A repeated client message id: the stored message (or `conflict` when it was a different message), without
	 * storing anything; `absent` for a new id. A visitor's retry is answered so before any limit counts it.
	 * It makes sure D1 has the message before answering (the API reads D1). A socket's replay does not: its
	 * client has the message from the answer, and the alarm armed with any pending work sends it, so a flood of
	 * retries on one socket costs no storage write and no flush.
	 */
	async replay(command: MessageCommand): Promise<ReplayOutcome> {
		const checked = checkMessage(command);
		if (!checked.ok) return { status: 'invalid', problems: checked.problems };
		return this.replayChecked(checked.message, true);
	}

	private async replayChecked(input: CheckedMessage, finish: boolean): Promise<ReplayOutcome> {
		const sentBefore = this.d1Statements();
		if (!(await this.open(input.workspaceId, input.conversationId))) return { status: 'not_found' };
		return (await this.replayed(input, sentBefore, finish)) ?? { status: 'absent' };
	}

	private async replayed(input: CheckedMessage, sentBefore: number, finish = true): Promise<Replayed | null> {
		// What flushes sent is recorded first (in the turn of the append that may follow, so in its commit), so
		// that a stored row tells whether D1 has it.
		if (finish) this.outbox.record();
		const existing = input.clientMessageId === null ? null : this.store.byClientId(input.clientMessageId);
		if (!existing) return null;
		const same =
			existing.body === input.text &&
			existing.author_id === input.authorId &&
			existing.attachments === JSON.stringify(input.attachments) &&
			existing.interactive === (input.interactive === null ? null : JSON.stringify(input.interactive)) &&
			existing.private === (input.private ? 1 : 0);
		if (!same) return { status: 'conflict' };
		// The first attempt may have died before its copy reached D1: make sure this one finishes the job.
		if (finish && (existing.in_d1 === 0 || this.store.hasPendingEvents())) await this.sendOut(this.outbox.arm());
		const message = messageView(existing, input.conversationId);
		return {
			status: 'replayed',
			message,
			d1Statements: this.d1Statements() - sentBefore,
			d1Bookmark: this.outbox.d1Bookmark,
		};
	}

	/** A read receipt: `reader` has seen everything up to `seq`. Not a message; it resets the unread count. */
	async markRead(
		workspaceId: string,
		conversationId: string,
		reader: Participant,
		operatorId: string | null,
		seq: number,
	) {
		if (!(await this.open(workspaceId, conversationId))) return { status: 'not_found' as const };
		const upTo = await this.recordRead(reader, operatorId, seq, true);
		return { status: 'ok' as const, seq: upTo, d1Bookmark: this.outbox.d1Bookmark };
	}

	/**
	 * Moves a read position in this (open) room and tells the sockets; returns the position. `writeNow`
	 * false: D1 gets it with a flush a second later at most instead of before returning (a socket sending read
	 * receipts faster than that costs D1 one write a second, and no receipt is lost).
	 */
	async recordRead(reader: Participant, operatorId: string | null, seq: number, writeNow: boolean): Promise<number> {
		const room = this.store.room();
		if (!room) return 0;
		const { workspace_id: workspaceId, conversation_id: conversationId } = room;
		const upTo = this.store.markRead(reader, seq, (readSeq) =>
			newEvent('conversation.read', workspaceId, readerActor(reader, operatorId), {
				conversationId,
				reader,
				operatorId,
				seq: readSeq,
			}),
		);
		if (upTo !== null) {
			// Armed in the same turn as the change, as for a message.
			const armed = writeNow ? this.outbox.arm() : this.outbox.armSoon();
			this.broadcast({ type: 'read', reader, seq: upTo });
			if (writeNow) await this.sendOut(armed);
			else await armed;
		}
		return upTo ?? this.store.readSeq(reader);
	}

	/**
	 * Opens a socket for a participant the Worker has already authenticated (this object is reachable only
	 * through the Worker, which builds this request). Sends the messages after `after`, then `synced`, then
	 * everything live: storage reads are synchronous, so nothing can slip in between.
	 */
	override async fetch(request: Request): Promise<Response> {
		const url = new URL(request.url);
		const workspaceId = url.searchParams.get('workspaceId') ?? '';
		const conversationId = url.searchParams.get('conversationId') ?? '';
		if (!(await this.open(workspaceId, conversationId))) return new Response('not found', { status: 404 });
		return this.door.accept(request, url, workspaceId, conversationId);
	}

	override async webSocketMessage(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
		await this.frames.receive(socket, data);
	}

	/**
	 * Starts a bot in this conversation now (an operator's manual start, a deal entering a stage): `busy` with
	 * the run under way when there is one. A `startKey` makes a repeated start (a redelivered event) answer
	 * the run it started the first time.
	 */
	async startBot(
		workspaceId: string,
		conversationId: string,
		bot: RunnableBot,
		trigger: BotRunTrigger,
		startedBy: string | null,
		startKey: string | null = null,
	): Promise<{ status: 'not_found' } | { status: 'started'; runId: string } | { status: 'busy'; runId: string }> {
		if (!(await this.open(workspaceId, conversationId))) return { status: 'not_found' };
		const outcome = await this.bot.start(bot, trigger, startedBy, startKey);
		return 'busy' in outcome ? { status: 'busy', runId: outcome.busy } : { status: 'started', runId: outcome.runId };
	}

	/** The conversation's bot runs, newest first, with their step logs. */
	async botRuns(workspaceId: string, conversationId: string): Promise<BotRunView[] | null> {
		if (!(await this.open(workspaceId, conversationId))) return null;
		return this.bot.runs();
	}

	/** `reset`: closes the sockets a visitor opened, so a logged-out browser stops receiving this conversation. */
	disconnectVisitor(visitorId: string): number {
		return this.door.closeTagged(visitorTag(visitorId), 'session ended');
	}

	/** A replaced token: closes the operator's sockets here; its console reconnects with the new token. */
	disconnectOperator(operatorId: string): number {
		return this.door.closeTagged(operatorTag(operatorId), 'token replaced');
	}

	/** Sets the snooze timer (see `RoomSnooze`); false outside the caller's workspace. */
	async snooze(workspaceId: string, conversationId: string, until: number): Promise<boolean> {
		return (await this.open(workspaceId, conversationId)) && this.snoozing.schedule(until);
	}

	override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
		await this.door.closed(socket, code, reason);
	}

	/**
	 * After a change. An HTTP caller's: D1 is brought up to date before it is answered (the API reads messages
	 * from D1), and the events go out in the background. A socket's (`untilD1` false): its sender has the
	 * message from the ack, so the flush starts SOCKET_FLUSH_DELAY_MS later, for whatever the room's sockets
	 * sent meanwhile: a busy room writes D1 and the Queue once for a run of messages. Either way the outbox
	 * timer armed with the change finishes the work if this object is evicted first.
	 */
	private async sendOut(armed: Promise<void>, untilD1 = true): Promise<void> {
		await armed;
		if (!untilD1) {
			this.socketFlush ??= setTimeout(() => {
				this.socketFlush = undefined;
				void this.outbox.flush();
			}, ConversationRoom.socketFlushDelayMs);
			return;
		}
		void this.outbox.flush();
		// A D1 failure is not the caller's: the message is stored here and the outbox timer retries the write.
		await this.outbox.writeMessages().catch(() => undefined);
	}

	/** Runs the room's due timers (the outbox's retry: D1 writes and events that failed earlier), then re-arms. */
	override async alarm(): Promise<void> {
		// An object that never served a conversation has no tables, hence no timers.
		if (!this.store.room()) return;
		this.outbox.beforeAlarm();
		await this.timers.runDue({
			[BOT_TIMER]: (payload) => this.bot.onTimer(payload),
			[BOT_WATCHDOG]: () => this.bot.kick(),
			[CONTINUATION_TIMER]: () => this.mail.onTimer(),
			[SNOOZE_TIMER]: (payload) => this.snoozing.onTimer(payload),
			[OUTBOX_TIMER]: async () => {
				await this.outbox.flush();
				// The run claimed the outbox timer, so nothing would redo what this flush sent if the instance were
				// lost before its next change: it is recorded now.
				this.outbox.record();
			},
		});
	}

	/** Loads the room on first use (from D1) and checks the caller's workspace owns the conversation. */
	private async open(workspaceId: string, conversationId: string): Promise<boolean> {
		let room = this.store.room();
		if (!room) {
			await this.ctx.blockConcurrencyWhile(async () => {
				if (!this.store.room()) {
					const d1 = await workspaceBinding(this.env, workspaceId);
					this.importStatements += await this.store.importFromD1(d1, workspaceId, conversationId, (facts) =>
						this.mail.learn(facts),
					);
				}
			});
			room = this.store.room();
		}
		return room !== null && room.workspace_id === workspaceId && room.conversation_id === conversationId;
	}

	/**
	 * Whether D1 has the conversation closed now: the check, for a workspace whose visitors start a new
	 * conversation, that a message is not stored on a closed one. A close that lands after this read is a
	 * close after the message, as when the team closes right after reading it.
	 */
	private async closedInD1(workspaceId: string, conversationId: string): Promise<boolean> {
		this.importStatements++;
		const d1 = await workspaceBinding(this.env, workspaceId);
		const row = await d1
			.prepare('SELECT status FROM conversations WHERE id = ? AND workspace_id = ?')
			.bind(conversationId, workspaceId)
			.first<{ status: string }>();
		return row?.status === 'closed';
	}

	private d1Statements(): number {
		return this.importStatements + this.outbox.statementsSent;
	}

	/**
	 * Sends a frame to every socket (but `except`), in each side's view: visitors never see operator ids, nor
	 * a private note at all.
	 */
	private broadcast(frame: ServerFrame, except?: WebSocket): void {
		const forTeam = JSON.stringify(frame);
		for (const socket of this.ctx.getWebSockets('operator')) if (socket !== except) trySend(socket, forTeam);
		if (frame.type === 'message' && frame.message.private) return;
		const forVisitor =
			frame.type === 'message'
				? JSON.stringify({ ...frame, message: visitorView(frame.message) })
				: frame.type === 'typing'
					? JSON.stringify({ ...frame, operatorId: null })
					: forTeam;
		for (const socket of this.ctx.getWebSockets('contact')) if (socket !== except) trySend(socket, forVisitor);
	}
}
