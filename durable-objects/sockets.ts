/** Helpers shared by the Durable Objects that hold hibernatable WebSockets. */
import { LIVE_SUBPROTOCOL } from '../src/protocol/live';

/** Sends a frame; a socket that is closing may refuse it, and the others must still get theirs. */
export function trySend(socket: WebSocket, text: string): boolean {
	try {
		socket.send(text);
		return true;
	} catch {
		// The client is gone; on reconnect it catches up from its last seq (or re-reads the inbox).
		return false;
	}
}

/**
 * Completes the closing handshake the client started, with the same code: 1005 (the client sent none) is
 * answered with a close frame without a code, 1006 (the connection dropped) needs no answer. A runtime that
 * already answered the close makes `close` throw, which is harmless.
 */
export function answerClose(socket: WebSocket, code: number, reason: string): void {
	if (code === 1006) return;
	try {
		if (code === 1005) socket.close();
		else socket.close(code, reason);
	} catch {
		// Already closed.
	}
}

/**
 * The 101 answer for an accepted socket; it selects the `parley.v1` subprotocol when the client offered it
 * (a browser passing its credential that way refuses a connection that selects none).
 */
export function switchingProtocols(request: Request, client: WebSocket): Response {
	const offered = (request.headers.get('Sec-WebSocket-Protocol') ?? '').split(',').map((p) => p.trim());
	const headers: HeadersInit = offered.includes(LIVE_SUBPROTOCOL) ? { 'Sec-WebSocket-Protocol': LIVE_SUBPROTOCOL } : {};
	return new Response(null, { status: 101, webSocket: client, headers });
}
