/**
 * The frames a client sends on a conversation socket, checked cheapest first so that a flood costs nothing:
 * the frame's length before it is parsed, the socket's own budget (kept in its attachment, no I/O) before the
 * credential and the rate limiters, and read receipts that move nothing before anything at all.
 */
import { type MessageTarget, messageTarget, posted } from '../src/domain/conversations/live';
import {
	type CheckedMessage,
	checkMessage,
	invalidMessage,
	type PostOutcome,
	type ReplayOutcome,
} from '../src/domain/conversations/message-command';
import { visitorView } from '../src/domain/conversations/messages';
import { bodyOf } from '../src/lib/error-status';
import { AppError, Invalid, Malformed } from '../src/lib/errors';
import { type ClientFrame, clientFrameSchema, type Participant, type ServerFrame } from '../src/protocol/live';
import {
	assertCredential,
	assertMaySend,
	frameLength,
	maxFrameLength,
	type SocketIdentity,
	socketIdentity,
	spendSocketBudget,
	storedClientId,
} from './room-sockets';
import type { RoomStore } from './room-store';
import { answerClose, trySend } from './sockets';

/** Typing frames relayed per socket: at most one a second. */
const TYPING_INTERVAL_MS = 1000;
/** Read receipts written to D1 per socket: at most one a second (the others wait for the next flush). */
const READ_INTERVAL_MS = 1000;
/**
 * How often a socket re-checks its credential for a frame that costs nothing else (typing, a retried send); a
 * read receipt written to D1 always does, and a new message too (an operator's: see below).
 */
const CREDENTIAL_RECHECK_MS = 60_000;
/**
 * How often an operator's socket re-checks its token for new messages: at most once a second, so a console
 * or an integration sending fast costs D1 one read a second, not one per message. A replaced token does not
 * wait for it: the replacement closes the token's sockets before it answers (`closeReplacedTokenSockets`).
 */
const OPERATOR_MESSAGE_RECHECK_MS = 1_000;

/** What the frame handlers need of their conversation room. */
export interface FrameRoom {
	/** Answers once the message is stored here; D1 gets it with the flush that follows. */
	post(message: CheckedMessage, target: MessageTarget | null): Promise<PostOutcome>;
	/** Answers from this object's storage; a message not yet in D1 is left to the outbox's timer. */
	replay(message: CheckedMessage): Promise<ReplayOutcome>;
	recordRead(reader: Participant, operatorId: string | null, seq: number, writeNow: boolean): Promise<number>;
	broadcast(frame: ServerFrame, except?: WebSocket): void;
}

export class RoomFrames {
	constructor(
		private readonly env: Env,
		private readonly store: RoomStore,
		private readonly room: FrameRoom,
	) {}

	/** Handles one frame from a socket of this room. */
	async receive(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
		const room = this.store.room();
		if (!room) return;
		const who = socketIdentity(socket, room);
		// Longer than any valid frame: refused unread, and the socket closed (1009, "message too big"), since
		// only a broken or hostile client sends one and an error frame would let it go on sending them.
		if (frameLength(data) > maxFrameLength(who.role)) return answerClose(socket, 1009, 'frame too big');
		let frame: unknown;
		try {
			frame = JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data));
		} catch {
			return refuse(socket, new Malformed('A frame must be a JSON object.'));
		}
		const parsed = clientFrameSchema.safeParse(frame);
		// A refused message names its client id when it has a usable one, so the sender can tell which of its
		// pending messages failed (a text over the limit must not stay in its outbox, re-sent forever).
		if (!parsed.success) return refuse(socket, Invalid.fromIssues(parsed.error.issues), clientIdOf(frame));
		const f = parsed.data;
		try {
			if (f.type === 'typing') return await this.typingFrame(socket, who, f.typing);
			if (f.type === 'read') return await this.readFrame(socket, who, f.seq);
			await this.messageFrame(socket, who, f);
		} catch (error) {
			if (!(error instanceof AppError)) throw error;
			refuse(socket, error, f.type === 'message' ? f.clientMessageId : undefined);
			// A credential that is gone ends the socket: it must not go on receiving the conversation.
			if (error.kind === 'unauthenticated') answerClose(socket, 4001, 'credential gone');
		}
	}

	private async typingFrame(socket: WebSocket, who: SocketIdentity, typing: boolean): Promise<void> {
		const now = Date.now();
		if (now - who.typingAt < TYPING_INTERVAL_MS) return;
		// Stored before the await: another frame handled meanwhile updates the attachment too, and writing
		// back this frame's older copy afterwards would undo its counts.
		socket.serializeAttachment({ ...who, typingAt: now });
		if (now - who.checkedAt > CREDENTIAL_RECHECK_MS) await this.recheckCredential(socket, who, now);
		this.room.broadcast({ type: 'typing', author: who.role, operatorId: who.operatorId, typing }, socket);
	}

	/** Checks the socket's credential and records when, in the attachment as it is now (see `typingFrame`). */
	private async recheckCredential(socket: WebSocket, who: SocketIdentity, now: number): Promise<void> {
		await assertCredential(this.env, who);
		socket.serializeAttachment({ ...(socket.deserializeAttachment() as SocketIdentity), checkedAt: now });
	}

	/**
	 * A receipt that moves nothing costs nothing. One that moves the position checks the credential and
	 * writes D1 at most once a second per socket; one sooner after that is recorded in the room at once (the
	 * sockets see it) and reaches D1 with the flush a second later, so no receipt is lost to the throttle.
	 */
	private async readFrame(socket: WebSocket, who: SocketIdentity, seq: number): Promise<void> {
		if (Math.min(seq, this.store.lastSeq()) <= this.store.readSeq(who.role)) return;
		const now = Date.now();
		if (now - who.readAt < READ_INTERVAL_MS) {
			await this.room.recordRead(who.role, who.operatorId, seq, false);
			return;
		}
		socket.serializeAttachment({ ...who, readAt: now });
		await assertCredential(this.env, who);
		await this.room.recordRead(who.role, who.operatorId, seq, true);
	}

	/**
	 * A send, checked cheapest first: a retry of a message already stored is answered from the room's own
	 * storage without counting it and without a flush (the credential re-checked once it is stale, as for
	 * typing); a new one spends the socket's own budget (no I/O), then passes the credential and the same
	 * limits as over HTTP.
	 */
	private async messageFrame(
		socket: WebSocket,
		who: SocketIdentity,
		f: Extract<ClientFrame, { type: 'message' }>,
	): Promise<void> {
		const checked = checkMessage({
			workspaceId: who.workspaceId,
			conversationId: who.conversationId,
			authorKind: who.role,
			authorId: who.role === 'operator' ? who.operatorId : null,
			text: f.text,
			attachments: [],
			clientMessageId: storedClientId(who, f.clientMessageId),
			// A visitor's `private: true` is refused by `checkMessage` (422), as over HTTP it could not be sent.
			private: f.private ?? false,
		});
		// Checked once here, for the replay and the post alike; a refusal is answered as over HTTP.
		if (!checked.ok) throw invalidMessage(checked.problems);
		const input = checked.message;
		let result: PostOutcome | ReplayOutcome = await this.room.replay(input);
		const now = Date.now();
		if (result.status !== 'absent') {
			if (now - who.checkedAt > CREDENTIAL_RECHECK_MS) await this.recheckCredential(socket, who, now);
		} else {
			// From the attachment as it is now: other frames of this socket may have changed it meanwhile.
			const current = { ...who, ...(socket.deserializeAttachment() as Partial<SocketIdentity>) };
			socket.serializeAttachment(spendSocketBudget(this.env, current, now));
			// A visitor sends at human speed (20 a minute): its session is checked before every message.
			const recheckAfter = who.role === 'operator' ? OPERATOR_MESSAGE_RECHECK_MS : 0;
			if (now - who.checkedAt >= recheckAfter) await this.recheckCredential(socket, who, now);
			await assertMaySend(this.env, socket, who);
			// Only a visitor's message depends on the workspace's choice for closed conversations (cached).
			result = await this.room.post(input, await messageTarget(this.env, input));
		}
		// As over HTTP: the stored message, or the error it stands for.
		const stored = posted(result, who.conversationId).message;
		const message = who.role === 'contact' ? visitorView(stored) : stored;
		send(socket, { type: 'ack', clientMessageId: f.clientMessageId, message });
	}
}

/** Sends one frame to one socket. */
export function send(socket: WebSocket, frame: ServerFrame): void {
	trySend(socket, JSON.stringify(frame));
}

/** An `error` frame: the error's body as HTTP would give it, its fields named as the frame's. */
function refuse(socket: WebSocket, error: AppError, clientMessageId?: string): void {
	send(socket, { type: 'error', ...bodyOf(error, 'frame'), ...(clientMessageId ? { clientMessageId } : {}) });
}

/** The `clientMessageId` of a message frame that failed validation, when it is itself a valid one. */
function clientIdOf(frame: unknown): string | undefined {
	if (typeof frame !== 'object' || frame === null) return undefined;
	const { type, clientMessageId } = frame as { type?: unknown; clientMessageId?: unknown };
	if (type !== 'message' || typeof clientMessageId !== 'string') return undefined;
	return clientMessageId.length >= 1 && clientMessageId.length <= 64 ? clientMessageId : undefined;
}
