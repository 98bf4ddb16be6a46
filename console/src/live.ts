/**
 * The console's sockets (docs/live-protocol.md): the inbox feed (`/v3/live`) and one conversation's socket. The
 * browser sends the session cookie on the upgrade; the socket offers `parley.v1`. Both reconnect with a growing
 * delay (1 s doubling to 30 s) and ping every 25 s so an idle proxy does not drop them.
 */
export type Frame = { type: string } & Record<string, unknown>;

export interface LiveSocket {
	send(frame: Frame): boolean;
	/** Drops the connection and opens a new one at once (its path asked again): to fetch what a backlog cut off. */
	reconnect(): void;
	close(): void;
}

export function openLive(
	path: () => string,
	handlers: { onFrame(frame: Frame): void; onOpen?(): void; onClose?(): void },
): LiveSocket {
	let socket: WebSocket | null = null;
	let closed = false;
	let delay = 1000;
	let ping: ReturnType<typeof setInterval> | undefined;
	let retry: ReturnType<typeof setTimeout> | undefined;
	const connect = () => {
		const url = new URL(path(), location.href);
		url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
		const current = new WebSocket(url, ['parley.v1']);
		socket = current;
		current.onopen = () => {
			delay = 1000;
			ping = setInterval(() => current.send('{"type":"ping"}'), 25_000);
			handlers.onOpen?.();
		};
		current.onmessage = (event) => {
			try {
				handlers.onFrame(JSON.parse(String(event.data)) as Frame);
			} catch {
				// Not a frame of the protocol: ignored.
			}
		};
		current.onclose = () => {
			clearInterval(ping);
			handlers.onClose?.();
			if (closed) return;
			retry = setTimeout(connect, delay);
			delay = Math.min(30_000, delay * 2);
		};
	};
	connect();
	return {
		send(frame) {
			if (socket?.readyState !== WebSocket.OPEN) return false;
			socket.send(JSON.stringify(frame));
			return true;
		},
		reconnect() {
			delay = 0;
			socket?.close();
		},
		close() {
			closed = true;
			clearTimeout(retry);
			clearInterval(ping);
			socket?.close();
		},
	};
}
