import { DurableObject } from 'cloudflare:workers';
import type { AttachmentMeta } from '../src/db/schema';
import type { AuthorKind, MessageView } from '../src/domain/messages';
import { enforceLimits, messageBuckets } from '../src/domain/visitor-limits';
import { type DomainEvent, newEvent } from '../src/events/catalogue';
import { TooManyRequests } from '../src/lib/errors';
import { iso, newId } from '../src/lib/ids';
import {
	clientFrameSchema,
	MAX_VISITOR_TEXT,
	type Participant,
	PING,
	PONG,
	type ServerFrame,
} from '../src/protocol/live';
import { RoomOutbox } from './room-outbox';
import { type LogRow, RoomStore } from './room-store';
import { answerClose, trySend } from './sockets';

export interface PostInput {
	workspaceId: string;
	conversationId: string;
	authorKind: AuthorKind;
	authorId: string | null;
	text: string;
	attachments: AttachmentMeta[];
	/** A client's own id for the message (or an API Idempotency-Key): a retry never duplicates. */
	clientMessageId: string | null;
}

export type PostResult =
	/** `d1Statements`: what this call sent to D1 (with any write it shared with concurrent calls). */
	| { status: 'created' | 'replayed'; message: MessageView; d1Statements: number }
	| { status: 'not_found' }
	/** The client message id was already used for a different message. */
	| { status: 'conflict' };

/** What a socket carries through hibernation: who is on the other end. */
interface SocketIdentity {
	role: Participant;
	operatorId: string | null;
	/** Whether an operator may send messages on this socket (`messages:send`); visitors always may. */
	canSend: boolean;
	visitorId: string | null;
	ip: string;
}

/** At most this many backlog frames on (re)connect; a client further behind pages the HTTP API. */
const MAX_BACKLOG = 1000;

/**
 * The live side of one conversation, addressed by conversation id: the single writer of its messages.
 *
 * A message is numbered, stored in this object's SQLite (with its D1 write and its event in the outbox, in
 * the same transaction), broadcast, then copied to D1 and the events Queue. The runtime holds the answer until
 * the local write is durable, so an acknowledged message survives a crash; if D1 or the Queue fail, the
 * outbox keeps the work and an alarm retries it. Sockets use the Hibernation API and every fact lives in
 * storage or in a socket's attachment, so an idle conversation costs nothing and wakes up whole.
 */
export class ConversationRoom extends DurableObject<Env> {
	private readonly store: RoomStore;
	private readonly outbox: RoomOutbox;
	/** D1 statements this instance sent while importing; with the outbox's, the cost a caller is told. */
	private importStatements = 0;

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		this.store = new RoomStore(ctx.storage);
		this.outbox = new RoomOutbox(ctx, env, this.store);
		ctx.blockConcurrencyWhile(async () => this.store.migrate());
		ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING, PONG));
	}

	/** Appends a message (idempotent by client message id) and returns it once it is durable here. */
	async post(input: PostInput): Promise<PostResult> {
		const sentBefore = this.d1Statements();
		if (!(await this.open(input.workspaceId, input.conversationId))) return { status: 'not_found' };
		const existing = input.clientMessageId === null ? null : this.store.byClientId(input.clientMessageId);
		if (existing) {
			const same = existing.body === input.text && existing.author_id === input.authorId;
			if (!same) return { status: 'conflict' };
			return { status: 'replayed', message: this.view(existing), d1Statements: this.d1Statements() - sentBefore };
		}
		const now = Date.now();
		const row = this.store.append(
			{
				id: newId('msg', now),
				author_kind: input.authorKind,
				author_id: input.authorId,
				body: input.text,
				attachments: JSON.stringify(input.attachments),
				client_message_id: input.clientMessageId,
				created_at: now,
			},
			(row) => this.messageEvent(input.workspaceId, row),
		);
		const message = this.view(row);
		this.broadcast({ type: 'message', message });
		await this.sendOut();
		return { status: 'created', message, d1Statements: this.d1Statements() - sentBefore };
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
		const upTo = this.store.markRead(reader, seq, (readSeq) =>
			newEvent('conversation.read', workspaceId, { conversationId, reader, operatorId, seq: readSeq }),
		);
		if (upTo !== null) {
			this.broadcast({ type: 'read', reader, seq: upTo });
			await this.sendOut();
		}
		return { status: 'ok' as const, seq: upTo ?? this.store.readSeq(reader) };
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
		const identity: SocketIdentity = {
			role: url.searchParams.get('role') === 'operator' ? 'operator' : 'contact',
			operatorId: url.searchParams.get('operatorId'),
			canSend: url.searchParams.get('canSend') === 'true',
			visitorId: url.searchParams.get('visitorId'),
			ip: url.searchParams.get('ip') ?? 'local',
		};
		const after = Math.max(0, Number(url.searchParams.get('after') ?? 0) || 0);
		const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
		this.ctx.acceptWebSocket(server, [identity.role]);
		server.serializeAttachment(identity);
		for (const row of this.store.after(after, MAX_BACKLOG)) send(server, { type: 'message', message: this.view(row) });
		send(server, { type: 'synced', lastSeq: this.store.lastSeq() });
		return new Response(null, { status: 101, webSocket: client });
	}

	override async webSocketMessage(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
		const who = socket.deserializeAttachment() as SocketIdentity;
		const room = this.store.room();
		if (!room) return;
		let frame: unknown;
		try {
			frame = JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data));
		} catch {
			return refuse(socket, 400, 'Bad Request', 'A frame must be a JSON object.');
		}
		const parsed = clientFrameSchema.safeParse(frame);
		if (!parsed.success)
			return refuse(socket, 422, 'Unprocessable Entity', parsed.error.issues[0]?.message ?? 'bad frame');
		const f = parsed.data;
		if (f.type === 'typing') {
			this.broadcast({ type: 'typing', author: who.role, operatorId: who.operatorId, typing: f.typing }, socket);
			return;
		}
		if (f.type === 'read') {
			await this.markRead(room.workspace_id, room.conversation_id, who.role, who.operatorId, f.seq);
			return;
		}
		const refusal = await this.sendRefusal(who, f.text);
		if (refusal) return refuse(socket, refusal.statusCode, refusal.error, refusal.message, f.clientMessageId);
		const result = await this.post({
			workspaceId: room.workspace_id,
			conversationId: room.conversation_id,
			authorKind: who.role,
			authorId: who.role === 'operator' ? who.operatorId : null,
			text: f.text,
			attachments: [],
			clientMessageId: f.clientMessageId,
		});
		if (result.status === 'created' || result.status === 'replayed') {
			send(socket, { type: 'ack', clientMessageId: f.clientMessageId, message: result.message });
		} else {
			refuse(
				socket,
				409,
				'Conflict',
				'This clientMessageId was already used for a different message.',
				f.clientMessageId,
			);
		}
	}

	override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
		answerClose(socket, code, reason);
	}

	/**
	 * The checks the HTTP routes make before a send, for a message arriving on a socket: the visitor's size
	 * and rate limits, or the operator's `messages:send` permission and API rate limit.
	 */
	private async sendRefusal(who: SocketIdentity, text: string) {
		if (who.role === 'operator') {
			if (!who.canSend) {
				return { statusCode: 403, error: 'Forbidden', message: 'This operator lacks the "messages:send" permission.' };
			}
			const limit = Number.parseInt(this.env.RATE_LIMIT_PER_MINUTE, 10) || 120;
			const decision = await this.env.RATE_LIMITER.getByName(who.operatorId ?? '').hit(limit);
			if (decision.allowed) return null;
			return {
				statusCode: 429,
				error: 'Too Many Requests',
				message: `Rate limit of ${limit} requests a minute exceeded; retry in ${decision.resetSeconds} s.`,
			};
		}
		if (text.length > MAX_VISITOR_TEXT) {
			return {
				statusCode: 422,
				error: 'Unprocessable Entity',
				message: `A message may be at most ${MAX_VISITOR_TEXT} characters.`,
			};
		}
		try {
			await enforceLimits(this.env, messageBuckets(this.env, who.visitorId ?? 'unknown', who.ip));
			return null;
		} catch (error) {
			if (error instanceof TooManyRequests)
				return { statusCode: 429, error: 'Too Many Requests', message: error.message };
			throw error;
		}
	}

	/**
	 * After a change: D1 is brought up to date before the caller is answered (the API reads messages from D1),
	 * while the events go out in the background; the guard alarm finishes the job if this object is evicted.
	 */
	private async sendOut(): Promise<void> {
		await this.outbox.guard();
		const drained = this.outbox.flush();
		this.ctx.waitUntil(drained);
		// A D1 failure is not the caller's: the message is stored here and the alarm retries the write.
		await this.outbox.writeMessages().catch(() => undefined);
	}

	/** Retries the outbox: D1 writes and events that failed earlier. */
	override async alarm(): Promise<void> {
		await this.outbox.flush();
	}

	/** Loads the room on first use (from D1) and checks the caller's workspace owns the conversation. */
	private async open(workspaceId: string, conversationId: string): Promise<boolean> {
		let room = this.store.room();
		if (!room) {
			await this.ctx.blockConcurrencyWhile(async () => {
				if (!this.store.room()) {
					this.importStatements += await this.store.importFromD1(this.env.DB, workspaceId, conversationId);
				}
			});
			room = this.store.room();
		}
		return room !== null && room.workspace_id === workspaceId && room.conversation_id === conversationId;
	}

	private d1Statements(): number {
		return this.importStatements + this.outbox.statementsSent;
	}

	private messageEvent(workspaceId: string, row: LogRow): DomainEvent {
		const message = this.view(row);
		const { attachments, clientMessageId: _, ...summary } = message;
		return newEvent(
			'message.created',
			workspaceId,
			{ message: { ...summary, attachmentCount: attachments.length } },
			row.created_at,
		);
	}

	private view(row: LogRow): MessageView {
		const room = this.store.room();
		return {
			id: row.id,
			conversationId: room?.conversation_id ?? '',
			seq: row.seq,
			authorKind: row.author_kind,
			authorId: row.author_id,
			text: row.body,
			attachments: JSON.parse(row.attachments) as AttachmentMeta[],
			clientMessageId: row.client_message_id,
			createdAt: iso(row.created_at),
		};
	}

	private broadcast(frame: ServerFrame, except?: WebSocket): void {
		const text = JSON.stringify(frame);
		for (const socket of this.ctx.getWebSockets()) {
			if (socket !== except) trySend(socket, text);
		}
	}
}

function send(socket: WebSocket, frame: ServerFrame): void {
	trySend(socket, JSON.stringify(frame));
}

function refuse(socket: WebSocket, statusCode: number, error: string, message: string, clientMessageId?: string): void {
	send(socket, { type: 'error', error, message, statusCode, ...(clientMessageId ? { clientMessageId } : {}) });
}
