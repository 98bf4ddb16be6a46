import { exports } from 'cloudflare:workers';
import type { ServerFrame } from '../src/protocol/live';
import type { Visitor } from './factories';

/** A client WebSocket opened through the Worker, recording every frame it receives. */
export interface TestSocket {
	socket: WebSocket;
	frames: ServerFrame[];
	/** Resolves with the first frame (already received or future) matching `match`, after `from` frames. */
	next<T extends ServerFrame['type']>(
		type: T,
		match?: (f: Extract<ServerFrame, { type: T }>) => boolean,
	): Promise<Extract<ServerFrame, { type: T }>>;
	messageSeqs(): number[];
	/** Resolves with the close code once the server closes the socket. */
	closed: Promise<number>;
	send(frame: unknown): void;
	close(): void;
}

/** Opens a WebSocket on `path` (with the given headers); throws with the body when the upgrade is refused. */
export async function openSocket(path: string, headers: Record<string, string> = {}): Promise<TestSocket> {
	const res = await exports.default.fetch(
		new Request(`https://parley.test${path}`, { headers: { Upgrade: 'websocket', ...headers } }),
	);
	const socket = res.webSocket;
	if (res.status !== 101 || !socket) throw new Error(`upgrade refused: ${res.status} ${await res.text()}`);
	const frames: ServerFrame[] = [];
	const waiters: Array<() => void> = [];
	const closed = new Promise<number>((resolve) => socket.addEventListener('close', (event) => resolve(event.code)));
	socket.accept();
	socket.addEventListener('message', (event) => {
		frames.push(JSON.parse(event.data as string) as ServerFrame);
		for (const wake of waiters.splice(0)) wake();
	});
	const api: TestSocket = {
		socket,
		frames,
		async next(type, match = () => true) {
			const deadline = Date.now() + 10_000;
			for (;;) {
				const found = frames.find((f) => f.type === type && match(f as never));
				if (found) return found as never;
				if (Date.now() > deadline) throw new Error(`no ${type} frame; got ${JSON.stringify(frames)}`);
				await new Promise<void>((resolve) => {
					waiters.push(resolve);
					setTimeout(resolve, 200);
				});
			}
		},
		closed,
		messageSeqs: () => frames.flatMap((f) => (f.type === 'message' ? [f.message.seq] : [])),
		send: (frame) => socket.send(JSON.stringify(frame)),
		close: () => socket.close(1000, 'done'),
	};
	return api;
}

/** Upgrade refusals come back as ordinary responses: this returns one for asserting. */
export function tryUpgrade(path: string, headers: Record<string, string> = {}): Promise<Response> {
	return exports.default.fetch(
		new Request(`https://parley.test${path}`, { headers: { Upgrade: 'websocket', ...headers } }),
	);
}

/**
 * A visitor's socket on one of its conversations, as the widget opens it (`after`: the last seq it saw).
 * Waits for the `synced` frame unless `synced: false`.
 */
export async function visitorSocket(
	visitor: Visitor,
	conversationId: string,
	options: { after?: number; synced?: boolean } = {},
): Promise<TestSocket> {
	const after = options.after === undefined ? '' : `&after=${options.after}`;
	const socket = await openSocket(
		`/widget/${visitor.workspaceId}/conversations/${conversationId}/live?session=${visitor.session}${after}`,
		{ 'CF-Connecting-IP': visitor.ip },
	);
	if (options.synced !== false) await socket.next('synced');
	return socket;
}
