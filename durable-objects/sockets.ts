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
 * Completes the closing handshake the client started. 1005 and 1006 only describe how a socket ended and
 * cannot be sent back; a runtime that already answered the close makes `close` throw, which is harmless.
 */
export function answerClose(socket: WebSocket, code: number, reason: string): void {
	if (code === 1005 || code === 1006) return;
	try {
		socket.close(code, reason);
	} catch {
		// Already closed.
	}
}
