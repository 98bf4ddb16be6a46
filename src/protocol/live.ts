/**
 * The live protocol: the frames a browser (widget or console) and the Worker exchange over a conversation's
 * WebSocket or an inbox feed. One module of `type`-keyed unions so both ends agree; the server parses every
 * client frame with `clientFrameSchema` and answers a bad one with an `error` frame.
 */
import { z } from '@hono/zod-openapi';
import type { Alert } from '../model/alerts';
import type { DomainEvent } from '../model/events';
import { MAX_OPERATOR_TEXT, type MessageView, messageText } from '../model/messages';
import type { PresenceStatus } from '../model/presence';

export { MAX_OPERATOR_TEXT, MAX_VISITOR_TEXT } from '../model/messages';

export const clientFrameSchema = z.discriminatedUnion('type', [
	z.strictObject({ type: z.literal('typing'), typing: z.boolean() }),
	z.strictObject({ type: z.literal('read'), seq: z.number().int().min(0) }),
	z.strictObject({
		type: z.literal('message'),
		text: messageText(MAX_OPERATOR_TEXT),
		clientMessageId: z.string().min(1).max(64),
		/** A private note for the team (operators' sockets only): never sent to the visitor. */
		private: z.boolean().optional(),
	}),
]);

export type ClientFrame = z.infer<typeof clientFrameSchema>;

export type Participant = 'contact' | 'operator';

export type ServerFrame =
	/** A message of the conversation, in `seq` order, each exactly once per socket. */
	| { type: 'message'; message: MessageView }
	/**
	 * Sent after the backlog a (re)connecting socket asked for: what follows is live. With `complete: false`
	 * the backlog was cut at `lastSeq` (it was long): reconnect with `after=lastSeq` for the rest.
	 */
	| { type: 'synced'; lastSeq: number; complete: boolean }
	| { type: 'typing'; author: Participant; operatorId: string | null; typing: boolean }
	| { type: 'read'; reader: Participant; seq: number }
	/** The answer to a `message` frame: the stored message (also for a repeated clientMessageId). */
	| { type: 'ack'; clientMessageId: string; message: MessageView }
	| { type: 'error'; error: string; message: string; statusCode: number; clientMessageId?: string }
	/** The operators' inbox feed: one domain event. */
	| { type: 'event'; event: DomainEvent }
	/**
	 * The inbox feed: something that concerns this operator (src/model/alerts.ts), sent to its feeds alone;
	 * `sound`: it chose the chime.
	 */
	| { type: 'alert'; alert: Alert; sound: boolean }
	/**
	 * The inbox feed's first frame: every operator's presence (one never seen is offline and absent);
	 * `member.status_changed` events keep it up to date.
	 */
	| { type: 'presence'; presence: Array<{ operatorId: string; status: PresenceStatus; changedAt: string }> };

/**
 * Browsers cannot set headers on a WebSocket, so a browser passes its credential as a subprotocol next to
 * this one: `new WebSocket(url, ['parley.v1', 'bearer.' + token])` for an operator, `'session.' + token` for a
 * visitor. The server selects `parley.v1`; the credential stays out of URLs and their logs.
 */
export const LIVE_SUBPROTOCOL = 'parley.v1';

/**
 * The credential with `prefix` (`bearer.` or `session.`) among the subprotocols a client offered. Only on a
 * WebSocket upgrade: on any other request the header is not a credential channel (elsewhere it is an ordinary
 * header that proxies and logs keep, and no endpoint but a socket has a reason to read a credential there).
 */
export function credentialFromSubprotocols(headers: Headers, prefix: 'bearer.' | 'session.') {
	if (headers.get('Upgrade')?.toLowerCase() !== 'websocket') return undefined;
	const offered = (headers.get('Sec-WebSocket-Protocol') ?? '').split(',').map((p) => p.trim());
	if (!offered.includes(LIVE_SUBPROTOCOL)) return undefined;
	return offered.find((p) => p.startsWith(prefix))?.slice(prefix.length);
}

/** Ping frames are answered by the runtime without waking a hibernated object. */
export const PING = '{"type":"ping"}';
export const PONG = '{"type":"pong"}';
