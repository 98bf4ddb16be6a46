/** Helpers shared by the Durable Objects that hold hibernatable WebSockets. */

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
