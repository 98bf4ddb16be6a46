/**
 * Who is on the other end of a conversation socket, and the checks a send on it passes: the same ones the
 * HTTP routes make (credential still valid, permission, rate and size limits), since a socket can outlive
 * the token or session that opened it.
 */
import { overBudget, spendOperatorBudget } from '../src/auth/middleware';
import { openDatabase } from '../src/db/client';
import { visitorClientId } from '../src/domain/messages';
import { isTokenActive } from '../src/domain/team';
import { spendVisitorMessage } from '../src/domain/visitor-limits';
import { sessionReaches } from '../src/domain/visitor-sessions';
import { Forbidden, Invalid, Unauthorized } from '../src/lib/errors';
import { MAX_VISITOR_TEXT, type Participant } from '../src/protocol/live';

/** Kept as the socket's attachment, so it survives hibernation. */
export interface SocketIdentity {
	role: Participant;
	workspaceId: string;
	conversationId: string;
	operatorId: string | null;
	/** The API token an operator's socket was opened with. */
	tokenId: string | null;
	/** Whether an operator may send messages on this socket (`messages:send`); visitors always may. */
	canSend: boolean;
	visitorId: string | null;
	ip: string;
	/** When this socket last relayed a typing frame (typing is throttled per socket). */
	typingAt: number;
	/** When the credential was last checked (typing re-checks it at most once a minute). */
	checkedAt: number;
}

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
	const db = openDatabase(env.DB);
	if (who.role === 'operator') {
		if (!who.tokenId || !(await isTokenActive(db, who.workspaceId, who.tokenId))) {
			throw new Unauthorized('The token this socket was opened with is revoked; reconnect with the new one.');
		}
		return;
	}
	if (!who.visitorId || !(await sessionReaches(db, who.workspaceId, who.visitorId, who.conversationId))) {
		throw new Unauthorized('This visitor session has ended or no longer reaches this conversation.');
	}
}

/**
 * Throws the named error an equivalent HTTP send would get: Unauthorized (see above), Forbidden without
 * `messages:send`, Invalid over 4,000 characters, TooManyRequests over a limit.
 */
export async function assertMaySend(env: Env, who: SocketIdentity, text: string): Promise<void> {
	await assertCredential(env, who);
	if (who.role === 'operator') {
		if (!who.canSend) throw new Forbidden('This token\'s operator lacks the "messages:send" permission.');
		const decision = await spendOperatorBudget(env, who.operatorId ?? '');
		if (!decision.allowed) throw overBudget(decision);
		return;
	}
	if (text.length > MAX_VISITOR_TEXT) {
		throw new Invalid(`text: a message may be at most ${MAX_VISITOR_TEXT} characters`);
	}
	await spendVisitorMessage(openDatabase(env.DB), env, { ...who, visitorId: who.visitorId ?? '' });
}

/**
 * The stored client message id: the sender's own id, namespaced by who sent it so that two senders can
 * never collide (the API uses `api:<operator>:<Idempotency-Key>`).
 */
export function storedClientId(who: Pick<SocketIdentity, 'role' | 'operatorId' | 'visitorId'>, id: string): string {
	return who.role === 'operator' ? `op:${who.operatorId}:${id}` : visitorClientId(who.visitorId ?? '', id);
}
