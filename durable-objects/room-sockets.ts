/**
 * Who is on the other end of a conversation socket, and the checks a send on it passes: the same ones the
 * HTTP routes make (credential still valid, permission, rate and size limits), since a socket can outlive
 * the token or session that opened it.
 */
import { credentialLimit, overBudget, spendOperatorBudget } from '../src/auth/middleware';
import { workspaceDb } from '../src/db/shards';
import { visitorClientId } from '../src/domain/conversations/messages';
import { isCredentialActive } from '../src/domain/team/tokens';
import { spendVisitorMessage, visitorLimits } from '../src/domain/widget/visitor-limits';
import { sessionReaches } from '../src/domain/widget/visitor-sessions';
import { Forbidden, TooManyRequests, Unauthorized } from '../src/lib/errors';
import { MAX_OPERATOR_TEXT, MAX_VISITOR_TEXT, type Participant } from '../src/protocol/live';
import type { RoomRow } from './room-schema';

/** Kept as the socket's attachment, so it survives hibernation. */
export interface SocketIdentity {
	role: Participant;
	workspaceId: string;
	conversationId: string;
	operatorId: string | null;
	/** The API token an operator's socket was opened with. */
	tokenId: string | null;
	/** That token's hash, naming the `TokenGate` that counts the operator's budget (null for a visitor). */
	tokenHash: string | null;
	/** Whether an operator may send messages on this socket (`messages:send`); visitors always may. */
	canSend: boolean;
	visitorId: string | null;
	ip: string;
	/** When this socket last relayed a typing frame (typing is throttled per socket). */
	typingAt: number;
	/** When the credential was last checked (typing re-checks it at most once a minute). */
	checkedAt: number;
	/** When this socket last had a read receipt recorded (read receipts are throttled per socket). */
	readAt: number;
	/** The per-socket message budget: the start of its one-minute window and the frames counted in it. */
	sendWindow: number;
	sendsInWindow: number;
	/** Units of the operator's budget this socket took ahead (see `spendOperatorSend`), valid in `leaseWindow`. */
	leased: number;
	leaseWindow: number;
}

/** The identity kept in a socket's attachment, with defaults for fields an older release did not write. */
export function socketIdentity(socket: WebSocket, room: RoomRow): SocketIdentity {
	const stored = socket.deserializeAttachment() as Partial<SocketIdentity> & Pick<SocketIdentity, 'role'>;
	return {
		workspaceId: room.workspace_id,
		conversationId: room.conversation_id,
		operatorId: null,
		tokenId: null,
		tokenHash: null,
		canSend: false,
		visitorId: null,
		ip: 'local',
		typingAt: 0,
		checkedAt: 0,
		readAt: 0,
		sendWindow: 0,
		sendsInWindow: 0,
		leased: 0,
		leaseWindow: 0,
		...stored,
	};
}

/**
 * The longest frame a participant can send that could be valid: a message of the longest text it may send
 * with every character written as a JSON escape (`\u00e9`, 6 characters), plus room for the rest of the frame.
 * Anything longer is refused before it is parsed.
 */
export function maxFrameLength(role: Participant): number {
	return (role === 'contact' ? MAX_VISITOR_TEXT : MAX_OPERATOR_TEXT) * 6 + 1024;
}

/** A frame's length as `maxFrameLength` counts it: characters of a text frame (JSON escapes are ASCII), bytes of a binary one. */
export function frameLength(data: string | ArrayBuffer): number {
	return typeof data === 'string' ? data.length : data.byteLength;
}

/**
 * Counts a message frame against the socket's own budget, kept in its attachment: the first check a send
 * passes, before anything that costs a D1 read or a rate-limiter call, so a flood of frames is turned away
 * for nothing. The budget is the participant's exact limit per minute (20 for a visitor, the token's rate
 * for an operator); those exact limits are then still counted in their RateLimiter objects. Returns the
 * identity to store, or throws TooManyRequests.
 */
export function spendSocketBudget(env: Env, who: SocketIdentity, now: number): SocketIdentity {
	const limit = who.role === 'contact' ? visitorLimits(env).messagesPerVisitor : credentialLimit(env, who.tokenId);
	const window = now - (now % SOCKET_WINDOW_MS);
	const used = who.sendWindow === window ? who.sendsInWindow : 0;
	if (used >= limit) {
		const retryAfter = Math.max(1, Math.ceil((window + SOCKET_WINDOW_MS - now) / 1000));
		throw new TooManyRequests(
			`At most ${limit} messages a minute on one socket; try again in ${retryAfter} s.`,
			retryAfter,
		);
	}
	return { ...who, sendWindow: window, sendsInWindow: used + 1 };
}

const SOCKET_WINDOW_MS = 60_000;

/** Tag of an operator's sockets, so that replacing its token can close them. */
export function operatorTag(operatorId: string): string {
	return `operator:${operatorId}`;
}

/** Tag of a visitor's sockets, so that `reset` can close them. */
export function visitorTag(visitorId: string): string {
	return `visitor:${visitorId}`;
}

/**
 * Throws Unauthorized once the token (operator) is revoked, or the session (visitor) has ended or no longer
 * reaches this conversation: a socket can outlive what opened it.
 */
export async function assertCredential(env: Env, who: SocketIdentity): Promise<void> {
	const db = await workspaceDb(env, who.workspaceId);
	if (who.role === 'operator') {
		if (!who.tokenId || !(await isCredentialActive(db, who.workspaceId, who.tokenId))) {
			throw new Unauthorized('The token this socket was opened with is revoked; reconnect with the new one.');
		}
		return;
	}
	if (!who.visitorId || !(await sessionReaches(db, who.workspaceId, who.visitorId, who.conversationId))) {
		throw new Unauthorized('This visitor session has ended or no longer reaches this conversation.');
	}
}

/**
 * After `assertCredential` (and `checkMessage`, which holds the text to its author's limit), throws the named
 * error an equivalent HTTP send of a new message would get: Forbidden without `messages:send`,
 * TooManyRequests over a limit.
 */
export async function assertMaySend(env: Env, socket: WebSocket, who: SocketIdentity): Promise<void> {
	if (who.role === 'operator') {
		if (!who.canSend) throw new Forbidden('This token\'s operator lacks the "messages:send" permission.');
		await spendOperatorSend(env, socket, who, Date.now());
		return;
	}
	await spendVisitorMessage(await workspaceDb(env, who.workspaceId), env, { ...who, visitorId: who.visitorId ?? '' });
}

/**
 * The stored client message id: the sender's own id, namespaced by who sent it so that two senders can
 * never collide (the API uses `api:<operator>:<Idempotency-Key>`).
 */
export function storedClientId(who: Pick<SocketIdentity, 'role' | 'operatorId' | 'visitorId'>, id: string): string {
	return who.role === 'operator' ? `op:${who.operatorId}:${id}` : visitorClientId(who.visitorId ?? '', id);
}

/**
 * Counts an operator's socket send against the operator's budget (the one its HTTP requests spend), taking
 * it from the token's gate a few units at a time: a socket sending fast costs the gate one call per lease,
 * not one per message. A lease is counted when taken, so the budget is never exceeded; what a socket leaves
 * unused lapses with the window (at most `leaseSize - 1` units, see there). The attachment is read again
 * around the await: other frames of the socket may have spent from it meanwhile.
 */
export async function spendOperatorSend(
	env: Env,
	socket: WebSocket,
	who: Pick<SocketIdentity, 'tokenId' | 'tokenHash' | 'operatorId'>,
	now: number,
): Promise<void> {
	const window = now - (now % SOCKET_WINDOW_MS);
	const before = socket.deserializeAttachment() as SocketIdentity;
	if (before.leaseWindow === window && before.leased > 0) {
		socket.serializeAttachment({ ...before, leased: before.leased - 1 });
		return;
	}
	// A socket opened before token gates existed has no hash: it counts in a gate named after its operator.
	const gate = { tokenId: who.tokenId, tokenHash: who.tokenHash ?? `operator:${who.operatorId}` };
	const decision = await spendOperatorBudget(env, gate, leaseSize(credentialLimit(env, who.tokenId)));
	if (!decision.allowed) throw overBudget(decision);
	const after = socket.deserializeAttachment() as SocketIdentity;
	const carried = after.leaseWindow === window ? after.leased : 0;
	socket.serializeAttachment({ ...after, leaseWindow: window, leased: carried + decision.granted - 1 });
}

/**
 * Units a socket leases at a time: a sixtieth of the limit (one second's worth at the full rate), from 1 to
 * 20. With the default 120 a minute that is 2, so an idle socket holds back at most one request's worth.
 */
export function leaseSize(limit: number): number {
	return Math.min(20, Math.max(1, Math.floor(limit / 60)));
}
