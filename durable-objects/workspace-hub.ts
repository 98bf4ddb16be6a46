import { DurableObject } from 'cloudflare:workers';
import { hasPermission } from '../src/auth/permissions';
import { workspaceBinding, workspaceDb } from '../src/db/shards';
import type { WaitingConversation } from '../src/domain/assignment/auto-assignment';
import { isCredentialActive } from '../src/domain/team/tokens';
import { errorBody } from '../src/lib/error-status';
import type { Actor } from '../src/model/actor';
import type { Alert } from '../src/model/alerts';
import { ADMIN_FEED_TYPES, type DomainEvent } from '../src/model/events';
import type { PresenceStatus } from '../src/model/presence';
import { PING, PONG, type ServerFrame } from '../src/protocol/live';
import { ASSIGNMENT_RETRY_TIMER, ASSIGNMENT_SCHEMA, HubAssignment, type QueuedView } from './hub-assignment';
import {
	HubPresence,
	PRESENCE_DELIVER_TIMER,
	PRESENCE_OFFLINE_TIMER,
	PRESENCE_SCHEMA,
	type PresenceEntry,
} from './hub-presence';
import { reactPromptly, SeenRules } from './hub-prompt';
import { RoomTimers, TIMERS_SCHEMA } from './room-timers';
import { answerClose, switchingProtocols, trySend } from './sockets';

/** Feed sockets per operator: a console or two in a few tabs; a client opening more is refused (429). */
const MAX_FEEDS_PER_OPERATOR = 5;

/** Who holds a feed socket; kept as the socket's attachment so it survives hibernation. */
interface FeedSubscriber {
	operatorId: string;
	permissions: string[];
	/** The hub's own workspace (for the `live_feed` flag); absent on sockets opened before it was kept. */
	workspaceId?: string;
}

/**
 * The live side of one workspace, addressed by workspace id: the inbox feed operators' consoles (or any API
 * client) subscribe to, and the operators' presence (hub-presence.ts). Conversation rooms and the Worker
 * publish domain events here after the events Queue has them; each socket receives the events its operator
 * may read.
 */
export class WorkspaceHub extends DurableObject<Env> {
	/** Feed sockets being opened (awaiting their token check), per operator: they count against the cap. */
	private readonly opening = new Map<string, number>();
	/** `disconnect` calls per operator since this instance started: an opening that saw one is refused. */
	private readonly disconnects = new Map<string, number>();
	/** The workspace's `live_feed` flag as this instance last wrote it (null: not known). */
	private flagged: boolean | null = null;
	/** Writes of the flag, one after the other: each decides its value when it runs (see `syncFeedFlag`). */
	private flagWrites: Promise<void> = Promise.resolve();
	/** The hub's timers (presence's grace periods and event retries) over its one alarm. */
	private readonly timers: RoomTimers;
	private readonly presence: HubPresence;
	private readonly assignment: HubAssignment;
	/** The rules a person sees, for the prompt path (hub-prompt.ts). */
	private readonly seenRules = new SeenRules();

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		this.timers = new RoomTimers(ctx.storage);
		this.presence = new HubPresence(
			ctx.storage,
			env,
			this.timers,
			(events) => this.publish(events),
			// Open ones only: a socket the hub closed is still listed until the client answers.
			(operatorId, except) =>
				ctx.getWebSockets(operatorId).some((socket) => socket !== except && socket.readyState === WebSocket.OPEN),
			(moved) => this.presenceMoved(moved),
		);
		this.assignment = new HubAssignment(
			ctx.storage,
			env,
			this.timers,
			() => new Map(this.presence.all().map((p) => [p.operatorId, p.status])),
		);
		ctx.blockConcurrencyWhile(async () => {
			// Which conversations an operator has opened sockets on, so a replaced token can close them all.
			ctx.storage.sql.exec(
				'CREATE TABLE IF NOT EXISTS room_sockets (operator_id TEXT NOT NULL, conversation_id TEXT NOT NULL, PRIMARY KEY (operator_id, conversation_id))',
			);
			for (const statement of [...TIMERS_SCHEMA, ...PRESENCE_SCHEMA, ...ASSIGNMENT_SCHEMA]) {
				ctx.storage.sql.exec(statement);
			}
			await this.timers.load();
			// Sockets lost without a close (a restart) leave operators online with no feed: their grace starts now.
			await this.presence.recover();
		});
		ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING, PONG));
	}

	/** Every operator's presence in the workspace (an operator never seen is offline and absent). */
	presenceOf(): PresenceEntry[] {
		return this.presence.all();
	}

	/** An operator sets its status. */
	setStatus(workspaceId: string, operatorId: string, status: PresenceStatus): Promise<PresenceEntry> {
		return this.presence.set(workspaceId, operatorId, status);
	}

	/** An operator was disabled or deleted: offline now (its sockets are closed by `disconnect`). */
	async removeOperator(workspaceId: string, operatorId: string, actor: Actor): Promise<void> {
		await this.presence.removed(workspaceId, operatorId, actor);
	}

	/**
	 * Queues conversations waiting for an operator and assigns what can be (see hub-assignment.ts); `eventId`
	 * names the event that queued them, so its second delivery changes nothing.
	 */
	enqueueForAssignment(workspaceId: string, waiting: WaitingConversation[], eventId?: string): Promise<void> {
		return this.assignment.enqueue(workspaceId, waiting, eventId);
	}

	/**
	 * Events the events Queue has just accepted (src/events/deliver.ts): `feed` goes to the feed sockets now,
	 * and `prompt` (`isPrompt`) to the reactions a person waits on (hub-prompt.ts), after this answers, so
	 * the sender waits for neither. Returns the frames sent.
	 */
	announce(workspaceId: string, feed: DomainEvent[], prompt: DomainEvent[]): number {
		const sent = feed.length > 0 ? this.publish(feed) : 0;
		if (prompt.length > 0)
			this.ctx.waitUntil(reactPromptly(this.env, this.assignment, this.seenRules, workspaceId, prompt));
		return sent;
	}

	/** The workspace's automation rules changed: the prompt path reads them again. */
	automationRulesChanged(): void {
		this.seenRules.changed();
	}

	/**
	 * Something that may let a waiting conversation be taken happened (a close, a rule or member changed, the
	 * business hours): the rules are read again, and the loop runs.
	 */
	assignmentChanged(workspaceId: string): Promise<void> {
		return this.assignment.rulesChanged(workspaceId);
	}

	/** The conversations waiting for an operator, longest first. */
	assignmentQueue(): QueuedView[] {
		return this.assignment.queue();
	}

	/**
	 * Assignment reacts to presence at once: an operator available again may take waiting conversations; one
	 * gone offline past its grace period (or removed) hands its unanswered ones back to the queue.
	 */
	private presenceMoved(moved: { workspaceId: string; operatorId: string; to: PresenceStatus; reason: string }) {
		const work =
			moved.to === 'offline' && (moved.reason === 'disconnected' || moved.reason === 'removed')
				? this.assignment.operatorGone(moved.workspaceId, moved.operatorId)
				: this.assignment.run(moved.workspaceId);
		this.ctx.waitUntil(
			work.catch((error: unknown) => console.error('assignment did not react to a presence change', error)),
		);
	}

	/** Runs the hub's due timers: presence turning offline after its grace period, event delivery retries. */
	override async alarm(): Promise<void> {
		await this.timers.runDue({
			[PRESENCE_OFFLINE_TIMER]: (payload) => this.presence.graceOver(payload),
			[PRESENCE_DELIVER_TIMER]: () => this.presence.deliver(),
			[ASSIGNMENT_RETRY_TIMER]: (payload) => this.assignment.retry(payload),
		});
		// A delivery given up after its retries is taken up again: events wait in the outbox until the Queue has them.
		await this.presence.keepDelivering();
	}

	/** Notes that an operator has a socket on each of these conversations' rooms. */
	trackRoomSockets(operatorId: string, conversationIds: string[]): void {
		for (const id of conversationIds) {
			this.ctx.storage.sql.exec(
				'INSERT OR IGNORE INTO room_sockets (operator_id, conversation_id) VALUES (?, ?)',
				operatorId,
				id,
			);
		}
	}

	/** Forgets rooms where the operator has no socket left (its last one closed, or the room closed them). */
	forgetRoomSockets(operatorId: string, conversationIds: string[]): void {
		for (const id of conversationIds) {
			this.ctx.storage.sql.exec(
				'DELETE FROM room_sockets WHERE operator_id = ? AND conversation_id = ?',
				operatorId,
				id,
			);
		}
	}

	/**
	 * Opens a feed socket for an operator the Worker has authenticated (it builds this request). The token is
	 * checked again here, as a conversation room does: one revoked between the Worker's check and this accept
	 * gets no feed. A token replacement whose `disconnect` runs during that check is seen too (`disconnects`).
	 */
	override async fetch(request: Request): Promise<Response> {
		const url = new URL(request.url);
		const subscriber: FeedSubscriber = {
			operatorId: url.searchParams.get('operatorId') ?? '',
			permissions: url.searchParams.getAll('permission'),
		};
		const { operatorId } = subscriber;
		const opening = this.opening.get(operatorId) ?? 0;
		if (this.ctx.getWebSockets(operatorId).length + opening >= MAX_FEEDS_PER_OPERATOR) {
			const message = `At most ${MAX_FEEDS_PER_OPERATOR} inbox feed sockets per operator; close one first.`;
			return Response.json(errorBody(429, message), { status: 429 });
		}
		const disconnectsBefore = this.disconnects.get(operatorId) ?? 0;
		this.opening.set(operatorId, opening + 1);
		let active: boolean;
		const workspaceId = url.searchParams.get('workspaceId') ?? '';
		subscriber.workspaceId = workspaceId;
		try {
			const db = await workspaceDb(this.env, workspaceId);
			active = await isCredentialActive(db, workspaceId, url.searchParams.get('tokenId') ?? '');
			// Set before the socket is accepted (this opening counts): from then on every room pushes to the feed.
			if (active) await this.syncFeedFlag(workspaceId);
		} finally {
			this.opening.set(operatorId, (this.opening.get(operatorId) ?? 1) - 1);
		}
		if (!active || (this.disconnects.get(operatorId) ?? 0) !== disconnectsBefore) {
			const message = 'The token this socket was opened with is revoked; reconnect with the new one.';
			return Response.json(errorBody(401, message), { status: 401 });
		}
		// The console is back: its operator's chosen status with it (announced to the other sockets; this one
		// learns it from the presence list it gets first, which `member.status_changed` events keep up to date).
		await this.presence.connected(workspaceId, operatorId);
		// That wait let other calls in: a `disconnect` (the token replaced, the member disabled) refuses it still.
		if ((this.disconnects.get(operatorId) ?? 0) !== disconnectsBefore) {
			const message = 'The token this socket was opened with is revoked; reconnect with the new one.';
			return Response.json(errorBody(401, message), { status: 401 });
		}
		const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
		this.ctx.acceptWebSocket(server, [subscriber.operatorId]);
		server.serializeAttachment(subscriber);
		trySend(server, JSON.stringify({ type: 'presence', presence: this.presenceView() } satisfies ServerFrame));
		return switchingProtocols(request, client);
	}

	/** Presence as the feed and the API show it. */
	private presenceView() {
		return this.presence
			.all()
			.map((p) => ({ operatorId: p.operatorId, status: p.status, changedAt: new Date(p.changedAt).toISOString() }));
	}

	/** Sends each event to every socket allowed to read it. Returns how many frames went out. */
	publish(events: DomainEvent[]): number {
		let sent = 0;
		for (const socket of this.ctx.getWebSockets()) {
			const subscriber = socket.deserializeAttachment() as FeedSubscriber;
			if (!hasPermission(subscriber.permissions, 'conversations:read')) continue;
			const admin = hasPermission(subscriber.permissions, 'admin');
			for (const event of events) {
				if (!admin && ADMIN_FEED_TYPES.includes(event.type)) continue;
				if (trySend(socket, JSON.stringify({ type: 'event', event } satisfies ServerFrame))) sent++;
			}
		}
		return sent;
	}

	/**
	 * Sends `alert` to the feeds of `operatorIds` that may read conversations (`chiming`: those who chose the
	 * sound). Returns the operators it reached: the others have no console open, and get it by Web Push.
	 */
	alert(operatorIds: string[], alert: Alert, chiming: string[]): string[] {
		const reached: string[] = [];
		for (const operatorId of operatorIds) {
			const frame = JSON.stringify({
				type: 'alert',
				alert,
				sound: chiming.includes(operatorId),
			} satisfies ServerFrame);
			let sent = false;
			for (const socket of this.ctx.getWebSockets(operatorId)) {
				const subscriber = socket.deserializeAttachment() as FeedSubscriber;
				if (!hasPermission(subscriber.permissions, 'conversations:read')) continue;
				if (trySend(socket, frame)) sent = true;
			}
			if (sent) reached.push(operatorId);
		}
		return reached;
	}

	/**
	 * Closes an operator's feed sockets (its token was replaced, its permissions changed or it was disabled: the
	 * console reconnects with what it has now) and
	 * hands over the conversations it has sockets on, for their rooms to close those too. The list is emptied
	 * at once, so the sockets the console opens again with its new token register afresh; rooms that could
	 * not be reached are put back (`trackRoomSockets`) for the next time.
	 */
	async disconnect(operatorId: string): Promise<string[]> {
		this.disconnects.set(operatorId, (this.disconnects.get(operatorId) ?? 0) + 1);
		const feeds = this.ctx.getWebSockets(operatorId);
		for (const socket of feeds) answerClose(socket, 4001, 'token replaced');
		// Closed by the hub, so no close event follows: its grace period starts here (a console that reconnects
		// with its new token calls it off).
		const workspaceId = (feeds[0]?.deserializeAttachment() as FeedSubscriber | undefined)?.workspaceId;
		if (workspaceId) await this.presence.lostFeeds(workspaceId, operatorId);
		const rooms = this.ctx.storage.sql
			.exec<{ conversation_id: string }>('SELECT conversation_id FROM room_sockets WHERE operator_id = ?', operatorId)
			.toArray()
			.map((r) => r.conversation_id);
		this.ctx.storage.sql.exec('DELETE FROM room_sockets WHERE operator_id = ?', operatorId);
		return rooms;
	}

	/** Feed sockets only listen; whatever a client sends (other than pings) is ignored. */
	override async webSocketMessage(): Promise<void> {}

	override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
		answerClose(socket, code, reason);
		const { workspaceId, operatorId } = (socket.deserializeAttachment() ?? {}) as Partial<FeedSubscriber>;
		// A socket from before the flag was kept leaves it as it is: set, which only costs pushes.
		if (!workspaceId) return;
		if (operatorId) await this.presence.dropped(workspaceId, operatorId, socket);
		try {
			await this.syncFeedFlag(workspaceId, socket);
		} catch (error) {
			console.error('could not clear the inbox feed flag; rooms keep pushing to the feed', error);
		}
	}

	/** A feed socket that failed is gone as a closed one is: its operator's presence may turn offline. */
	override async webSocketError(socket: WebSocket): Promise<void> {
		await this.webSocketClose(socket, 1006, 'error');
	}

	/**
	 * Brings the workspace's `live_feed` flag in D1 to the truth: set while a feed socket is open or being
	 * opened (`except`: one that is closing), clear otherwise. Writes run one after the other and each reads
	 * the sockets when it runs, so the last one written is the latest state whatever the order of opens and
	 * closes: a close's write can never land after, and undo, an open's.
	 *
	 * Why it is safe to skip pushes while the flag is clear: a room reads the flag in the same D1 batch that
	 * writes its messages. A batch after the flag was set pushes; a batch before it committed its change before
	 * the socket was accepted, so the console, which loads the inbox after subscribing, reads that change.
	 */
	private syncFeedFlag(workspaceId: string, except?: WebSocket): Promise<void> {
		const write = this.flagWrites.then(async () => {
			const open = this.ctx.getWebSockets().some((s) => s !== except);
			const opening = [...this.opening.values()].some((n) => n > 0);
			const on = open || opening;
			if (on === this.flagged) return;
			const d1 = await workspaceBinding(this.env, workspaceId);
			await d1
				.prepare('UPDATE workspaces SET live_feed = ? WHERE id = ?')
				.bind(on ? 1 : 0, workspaceId)
				.run();
			this.flagged = on;
		});
		this.flagWrites = write.catch(() => undefined);
		return write;
	}
}
