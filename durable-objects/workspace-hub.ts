import { DurableObject } from 'cloudflare:workers';
import { hasPermission } from '../src/auth/permissions';
import type { DomainEvent } from '../src/events/catalogue';
import { PING, PONG, type ServerFrame } from '../src/protocol/live';
import { answerClose, switchingProtocols, trySend } from './sockets';

/** Who holds a feed socket; kept as the socket's attachment so it survives hibernation. */
interface FeedSubscriber {
	operatorId: string;
	permissions: string[];
}

/**
 * The live side of one workspace, addressed by workspace id: the inbox feed operators' consoles (or any API
 * client) subscribe to. Conversation rooms and the Worker publish domain events here after the events Queue
 * has them; each socket receives the events its operator may read.
 */
export class WorkspaceHub extends DurableObject<Env> {
	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		ctx.blockConcurrencyWhile(async () => {
			// Which conversations an operator has opened sockets on, so a replaced token can close them all.
			ctx.storage.sql.exec(
				'CREATE TABLE IF NOT EXISTS room_sockets (operator_id TEXT NOT NULL, conversation_id TEXT NOT NULL, PRIMARY KEY (operator_id, conversation_id))',
			);
		});
		ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING, PONG));
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

	/** Opens a feed socket for an operator the Worker has authenticated (it builds this request). */
	override async fetch(request: Request): Promise<Response> {
		const url = new URL(request.url);
		const subscriber: FeedSubscriber = {
			operatorId: url.searchParams.get('operatorId') ?? '',
			permissions: url.searchParams.getAll('permission'),
		};
		const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
		this.ctx.acceptWebSocket(server, [subscriber.operatorId]);
		server.serializeAttachment(subscriber);
		return switchingProtocols(request, client);
	}

	/** Sends each event to every socket allowed to read it. Returns how many frames went out. */
	publish(events: DomainEvent[]): number {
		let sent = 0;
		for (const socket of this.ctx.getWebSockets()) {
			const subscriber = socket.deserializeAttachment() as FeedSubscriber;
			if (!hasPermission(subscriber.permissions, 'conversations:read')) continue;
			for (const event of events) {
				if (trySend(socket, JSON.stringify({ type: 'event', event } satisfies ServerFrame))) sent++;
			}
		}
		return sent;
	}

	/**
	 * Closes an operator's feed sockets (its token was replaced: the console reconnects with the new one) and
	 * hands over the conversations it has sockets on, for their rooms to close those too. The list is emptied
	 * at once, so the sockets the console opens again with its new token register afresh; rooms that could
	 * not be reached are put back (`trackRoomSockets`) for the next time.
	 */
	disconnect(operatorId: string): string[] {
		for (const socket of this.ctx.getWebSockets(operatorId)) answerClose(socket, 4001, 'token replaced');
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
	}
}
