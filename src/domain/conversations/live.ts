/**
 * The Worker's side of the live conversation objects: the one write path for messages (every sender goes
 * through `postMessage`) and the hand-over of WebSocket upgrades to a conversation room or a workspace hub.
 */
import type { Caller } from '../../app-env';
import { workspaceDb } from '../../db/shards';
import { Conflict, Invalid, NotFound, UpgradeRequired } from '../../lib/errors';
import type { Participant } from '../../protocol/live';
import { conversationRoom, workspaceHub } from '../objects';
import type { WidgetSettings } from '../widget/settings';
import { closedConversationReply } from '../widget/visitor-limits';
import { invalidMessage, type MessageCommand, type PostOutcome, type ReplayOutcome } from './message-command';
import type { MessageView } from './messages';

export interface Posted {
	message: MessageView;
	/** D1 statements the conversation's room sent for this message (reported in Server-Timing). */
	d1Statements: number;
	/** The bookmark of the room's latest D1 write, for the answer's `x-d1-bookmark`; null when it made none. */
	d1Bookmark: string | null;
	/** False when the client message id (or Idempotency-Key) was seen before: the first message is returned. */
	created: boolean;
	/** The room's own timings of a new message (see `PostOutcome`). */
	spans: Record<string, number>;
}

/**
 * What the room needs to know of a conversation a visitor's message is sent to: only the workspace's choice.
 * Its status is not passed on: read here it may be stale by the time the message is stored (see
 * `ConversationRoom.post`).
 */
export interface MessageTarget {
	/** The workspace's `closedConversationReply`: a visitor's message on a closed conversation reopens it, or is refused. */
	closedReply: WidgetSettings['closedConversationReply'];
}

/**
 * The target of a visitor's message: the workspace's choice, from the isolate's cached widget policy (no D1
 * read once it is warm). Only a contact's message depends on it; the others get null.
 */
export async function messageTarget(env: Env, command: Pick<MessageCommand, 'authorKind' | 'workspaceId'>) {
	if (command.authorKind !== 'contact') return null;
	return {
		closedReply: await closedConversationReply(await workspaceDb(env, command.workspaceId), command.workspaceId),
	};
}

/**
 * Appends a message through the conversation's Durable Object, the one write path of every sender. The room
 * checks the command (`checkMessage`) and that the conversation is the workspace's, reading D1 itself the
 * first time it serves the conversation, and storing nothing for an id that is not one: no D1 check is needed
 * before it. NotFound outside the workspace; Invalid for a command that breaks a rule; Conflict for a
 * visitor's message on a closed conversation of a workspace whose visitors start a new one. A visitor's
 * message on a conversation closed before it otherwise reopens it: D1 decides when the message reaches it
 * (see `ConversationRoom.post`).
 */
export async function postMessage(env: Env, command: MessageCommand): Promise<Posted> {
	const target = await messageTarget(env, command);
	const result = await conversationRoom(env, command.conversationId).post(command, target);
	return posted(result, command.conversationId);
}

/**
 * A visitor's send: a retry of a clientMessageId the room already has gets the stored message without
 * counting against any limit (`limit` runs only for a new message), so a widget retrying one message
 * cannot use up the visitor's budget.
 */
export async function postVisitorMessage(
	env: Env,
	command: MessageCommand,
	limit: () => Promise<void>,
): Promise<Posted> {
	const room = conversationRoom(env, command.conversationId);
	const replay = await room.replay(command);
	if (replay.status !== 'absent') return posted(replay, command.conversationId);
	await limit();
	return postMessage(env, command);
}

/** Why a visitor's message on a closed conversation is refused when the workspace's visitors start a new one. */
export const CLOSED_CONVERSATION =
	'This conversation is closed: start a new conversation (POST /widget/{workspaceId}/conversations) to write to the team.';

/** The room's answer as the caller's result, or the domain error it stands for. */
export function posted(
	result: PostOutcome | Exclude<ReplayOutcome, { status: 'absent' }>,
	conversationId: string,
): Posted {
	if (result.status === 'not_found') throw new NotFound(`Conversation ${conversationId} not found.`);
	if (result.status === 'invalid') throw invalidMessage(result.problems);
	if (result.status === 'conflict') {
		throw new Invalid(
			"This client message id (an API call's Idempotency-Key) was already used for a different message.",
		);
	}
	if (result.status === 'closed') throw new Conflict(CLOSED_CONVERSATION);
	if (result.status === 'refused') throw new Conflict(result.reason);
	const { message, d1Statements } = result;
	const spans = 'spans' in result ? (result.spans ?? {}) : {};
	return { message, created: result.status === 'created', d1Statements, d1Bookmark: result.d1Bookmark ?? null, spans };
}

/**
 * Records a read receipt through the conversation's Durable Object: returns the read position, and the bookmark
 * of the room's D1 write (for the answer's `x-d1-bookmark`).
 */
export async function markRead(
	env: Env,
	workspaceId: string,
	conversationId: string,
	reader: Participant,
	operatorId: string | null,
	seq: number,
): Promise<{ seq: number; d1Bookmark: string | null }> {
	const result = await conversationRoom(env, conversationId).markRead(
		workspaceId,
		conversationId,
		reader,
		operatorId,
		seq,
	);
	if (result.status === 'not_found') throw new NotFound(`Conversation ${conversationId} not found.`);
	return { seq: result.seq, d1Bookmark: result.d1Bookmark };
}

export interface RoomSocket {
	workspaceId: string;
	conversationId: string;
	role: Participant;
	operatorId?: string;
	/**
	 * The credential an operator's socket is opened with (a token's or a console session's id): the room checks
	 * it is still active before each send.
	 */
	tokenId?: string;
	/** Its hash: the gate its socket sends are counted by (the operator's budget). */
	tokenHash?: string;
	/** Whether the participant may send messages on the socket (an operator needs `messages:send`). */
	canSend: boolean;
	visitorId?: string;
	ip: string;
	/** The last seq the client has: it receives every message after it, then live ones. */
	after: number;
}

/** Throws UpgradeRequired unless the request asks for a WebSocket (checked before anything else is looked up). */
export function assertUpgrade(request: Request): void {
	if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket') throw new UpgradeRequired();
}

/** The upgrade headers to hand on: the subprotocols go too, so the object can select `parley.v1`. */
function upgradeHeaders(request: Request): HeadersInit {
	const protocols = request.headers.get('Sec-WebSocket-Protocol');
	return protocols ? { Upgrade: 'websocket', 'Sec-WebSocket-Protocol': protocols } : { Upgrade: 'websocket' };
}

/**
 * Hands a WebSocket upgrade to the conversation's room. Identity travels in a request the Worker builds
 * (never the client's own), so a client cannot claim to be someone else.
 */
export async function connectToRoom(env: Env, request: Request, socket: RoomSocket): Promise<Response> {
	assertUpgrade(request);
	const url = new URL('https://room.internal/connect');
	for (const [key, value] of Object.entries(socket)) {
		if (value !== undefined) url.searchParams.set(key, String(value));
	}
	const response = await conversationRoom(env, socket.conversationId).fetch(url, {
		headers: upgradeHeaders(request),
	});
	if (response.status === 404) throw new NotFound(`Conversation ${socket.conversationId} not found.`);
	return response;
}

/**
 * Hands a WebSocket upgrade to the workspace's inbox feed, with the token it was opened with: the hub checks
 * it again when it accepts (see `WorkspaceHub.fetch`).
 */
export async function connectToFeed(
	env: Env,
	request: Request,
	caller: Pick<Caller, 'workspaceId' | 'operatorId' | 'credential' | 'permissions'>,
): Promise<Response> {
	assertUpgrade(request);
	const url = new URL('https://hub.internal/feed');
	url.searchParams.set('workspaceId', caller.workspaceId);
	url.searchParams.set('operatorId', caller.operatorId);
	url.searchParams.set('tokenId', caller.credential.id);
	for (const permission of caller.permissions) url.searchParams.append('permission', permission);
	return workspaceHub(env, caller.workspaceId).fetch(url, { headers: upgradeHeaders(request) });
}

/**
 * Closes an operator's sockets, its inbox feed and every conversation socket: after its token is replaced,
 * nothing may go on streaming to whoever held the old one. (A socket also re-checks the token before a send.)
 */
export async function disconnectOperator(env: Env, workspaceId: string, operatorId: string): Promise<void> {
	const hub = workspaceHub(env, workspaceId);
	const rooms = await hub.disconnect(operatorId);
	const results = await Promise.allSettled(rooms.map((id) => conversationRoom(env, id).disconnectOperator(operatorId)));
	const failed = rooms.filter((_, i) => results[i]?.status !== 'fulfilled');
	if (failed.length > 0) {
		console.error('some rooms could not close the sockets of', operatorId, failed);
		await hub.trackRoomSockets(operatorId, failed);
	}
}

/**
 * Closes the sockets of a token that was just replaced, before the replacement is answered: once the caller
 * has the new token, nothing opened with the old one streams or sends any more (a socket otherwise re-checks
 * its token only once a second). A failure is logged, not thrown: the new token must reach its owner, and
 * the sockets the rooms could not close are still refused at their next re-check.
 */
export async function closeReplacedTokenSockets(env: Env, workspaceId: string, operatorId: string): Promise<void> {
	try {
		await disconnectOperator(env, workspaceId, operatorId);
	} catch (error) {
		console.error('closing the sockets of a replaced token failed', operatorId, error);
	}
}

/**
 * Closes a visitor's sockets on the given conversations (its `reset`, or identify moving it to someone else).
 * Best effort: the change it follows is already committed, and each socket re-checks its session before it
 * acts (and is closed then), so a room that cannot be reached now only delays the close.
 */
export async function disconnectVisitor(env: Env, conversationIds: string[], visitorId: string): Promise<void> {
	const results = await Promise.allSettled(
		conversationIds.map((id) => conversationRoom(env, id).disconnectVisitor(visitorId)),
	);
	if (results.some((r) => r.status === 'rejected')) console.error('some rooms could not close visitor', visitorId);
}
