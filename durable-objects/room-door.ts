/**
 * The room's door: opening a socket on the conversation (its limits, an operator's token checked again, the
 * backlog and `synced`) and closing them (a visitor's reset, a replaced token, the hub's list of an operator's
 * rooms kept short). The room loads the conversation first and hands over the request.
 */
import { visitorView } from '../src/domain/conversations/messages';
import { bodyOf, errorBody, httpStatus } from '../src/lib/error-status';
import { AppError } from '../src/lib/errors';
import { send } from './room-frames';
import { messageView } from './room-schema';
import { assertCredential, operatorTag, type SocketIdentity, visitorTag } from './room-sockets';
import type { RoomStore } from './room-store';
import { answerClose, switchingProtocols } from './sockets';

/**
 * At most this many backlog frames per (re)connect; a client further behind gets `complete: false` and
 * reconnects from the last seq it received.
 */
const MAX_BACKLOG = 500;
/**
 * Sockets per conversation: a visitor in a few tabs, visitors on the whole, and the team, counted apart so
 * that no number of visitor sockets can keep an operator out.
 */
const MAX_SOCKETS_PER_VISITOR = 5;
const MAX_SOCKETS_PER_SIDE = 50;

export class RoomDoor {
	/** Operator sockets being opened (awaiting the hub and the token check), per operator; see `accept`. */
	private readonly opening = new Map<string, number>();

	constructor(
		private readonly ctx: DurableObjectState,
		private readonly env: Env,
		private readonly store: RoomStore,
		/** Whether a bot's typing pause is under way: a new socket is told, or it would see the message without it. */
		private readonly botTyping: () => boolean,
	) {}

	/**
	 * Opens a socket on the room (already loaded for this workspace and conversation): its limits, an operator's
	 * token checked again, the backlog from `after`, then `synced`.
	 */
	async accept(request: Request, url: URL, workspaceId: string, conversationId: string): Promise<Response> {
		const identity: SocketIdentity = {
			role: url.searchParams.get('role') === 'operator' ? 'operator' : 'contact',
			workspaceId,
			conversationId,
			operatorId: url.searchParams.get('operatorId'),
			tokenId: url.searchParams.get('tokenId'),
			tokenHash: url.searchParams.get('tokenHash'),
			canSend: url.searchParams.get('canSend') === 'true',
			visitorId: url.searchParams.get('visitorId'),
			ip: url.searchParams.get('ip') ?? 'local',
			typingAt: 0,
			checkedAt: Date.now(),
			readAt: 0,
			sendWindow: 0,
			sendsInWindow: 0,
			leased: 0,
			leaseWindow: 0,
		};
		const full =
			this.ctx.getWebSockets(identity.role).length >= MAX_SOCKETS_PER_SIDE ||
			(identity.visitorId !== null &&
				this.ctx.getWebSockets(visitorTag(identity.visitorId)).length >= MAX_SOCKETS_PER_VISITOR);
		if (full) return Response.json(errorBody(429, 'Too many open sockets on this conversation.'), { status: 429 });
		if (identity.operatorId) {
			const refused = await this.registerOperatorSocket(identity.operatorId, identity);
			if (refused) return refused;
		}
		const after = Math.max(0, Number(url.searchParams.get('after') ?? 0) || 0);
		const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
		const tags: string[] = [identity.role];
		if (identity.visitorId) tags.push(visitorTag(identity.visitorId));
		if (identity.operatorId) tags.push(operatorTag(identity.operatorId));
		this.ctx.acceptWebSocket(server, tags);
		server.serializeAttachment(identity);
		// A visitor's backlog leaves the private notes out: its seqs have gaps there, which the widget never
		// waits for (it asks for what comes after the last seq it saw, whatever that is).
		const backlog = this.store.after(after, MAX_BACKLOG, identity.role);
		for (const row of backlog) {
			const message = messageView(row, conversationId);
			send(server, { type: 'message', message: identity.role === 'contact' ? visitorView(message) : message });
		}
		// Complete: everything up to the last message this socket may see was sent. Otherwise up to the last
		// one sent: the client reconnects from there for the rest.
		const complete = backlog.length < MAX_BACKLOG;
		const lastSeq = complete ? this.store.lastSeq(identity.role) : (backlog.at(-1)?.seq ?? after);
		send(server, { type: 'synced', lastSeq, complete });
		// A bot's typing pause under way: this socket would otherwise see the message without the "typing…".
		if (this.botTyping()) send(server, { type: 'typing', author: 'operator', operatorId: null, typing: true });
		return switchingProtocols(request, client);
	}

	/**
	 * Registers an operator's socket with the workspace hub before checking its token once more, so a token
	 * replacement landing in between either finds the room in the hub's list or is seen by the check. While
	 * this runs the socket is not accepted yet: `opening` keeps a close of another socket of the same
	 * operator from dropping the room from the list meanwhile. Returns the refusal when the token is gone.
	 */
	private async registerOperatorSocket(operatorId: string, identity: SocketIdentity): Promise<Response | null> {
		this.opening.set(operatorId, (this.opening.get(operatorId) ?? 0) + 1);
		try {
			await this.env.WORKSPACE_HUB.getByName(identity.workspaceId).trackRoomSockets(operatorId, [
				identity.conversationId,
			]);
			await assertCredential(this.env, identity);
			return null;
		} catch (error) {
			if (!(error instanceof AppError)) throw error;
			return Response.json(bodyOf(error, 'query'), { status: httpStatus(error) });
		} finally {
			this.opening.set(operatorId, (this.opening.get(operatorId) ?? 1) - 1);
		}
	}

	/** Closes the sockets with this tag (a visitor's, an operator's) with 4001 and the reason. */
	closeTagged(tag: string, reason: string): number {
		const sockets = this.ctx.getWebSockets(tag);
		for (const socket of sockets) answerClose(socket, 4001, reason);
		return sockets.length;
	}

	/** A socket closed: answered, and the hub told when it was the operator's last one here. */
	async closed(socket: WebSocket, code: number, reason: string): Promise<void> {
		answerClose(socket, code, reason);
		const who = socket.deserializeAttachment() as Partial<SocketIdentity> | null;
		const room = this.store.room();
		if (!who?.operatorId || !room) return;
		const others = this.ctx.getWebSockets(operatorTag(who.operatorId)).filter((s) => s !== socket);
		if (others.length > 0 || (this.opening.get(who.operatorId) ?? 0) > 0) return;
		// The hub's list of the operator's rooms stays short: a room with no socket of it left is dropped.
		// Best effort: a stale entry only costs a no-op close on the next token replacement.
		try {
			await this.env.WORKSPACE_HUB.getByName(room.workspace_id).forgetRoomSockets(who.operatorId, [
				room.conversation_id,
			]);
		} catch (error) {
			console.error('could not drop a closed room from the hub list', error);
		}
	}
}
