/**
 * The visitor's side of the public widget endpoints: the session (its token kept in localStorage), the
 * REST calls, and one conversation socket at a time that reconnects with backoff and asks for exactly the
 * messages it missed (`after=<last seq>`).
 */
import type { Conversation, ErrorBody, Message, ServerFrame, Session } from '../api-types';
import type { Identity } from '../commands';
import { endSession } from '../session-end';
import { load, save } from '../storage';
import { alreadyTold, markTold } from '../visit';

/** A failed call: `status` 0 when the service could not be reached. */
export class CallError extends Error {
	constructor(
		readonly status: number,
		message: string,
		readonly retryAfterMs?: number,
	) {
		super(message);
	}

	/** Worth retrying unchanged: unreachable, rate-limited, or a server-side failure. */
	get transient(): boolean {
		return this.status === 0 || this.status === 429 || this.status >= 500;
	}
}

export class VisitorClient {
	private token?: string;
	private starting?: Promise<Session>;
	/** Bumped by `forget`: a session answer to a request sent before it is not taken. */
	private epoch = 0;
	/** Called when the Worker no longer accepts the session (a reset in another tab, 30 idle days). */
	onSessionLost = () => {};

	/**
	 * `handed`: the session the loader already started or resumed on this page, taken as the first `session()`
	 * instead of a request of its own (and, if it failed, replaced by one).
	 */
	constructor(
		private readonly api: string,
		private readonly workspaceId: string,
		private handed?: Promise<Session>,
	) {
		this.token = load<string>(this.key);
	}

	private get key() {
		return `session:${this.workspaceId}`;
	}

	get hasSession(): boolean {
		return this.token !== undefined;
	}

	get sessionToken(): string | undefined {
		return this.token;
	}

	/** Calls a public endpoint with a JSON body, or a file's bytes as they are (`body` a Blob). */
	async call<T>(method: string, path: string, body?: unknown): Promise<T> {
		const token = this.token;
		const file = body instanceof Blob;
		let response: Response;
		try {
			response = await fetch(`${this.api}/widget/${encodeURIComponent(this.workspaceId)}${path}`, {
				method,
				headers: {
					...(body === undefined ? {} : { 'Content-Type': file ? 'application/octet-stream' : 'application/json' }),
					...(token ? { 'Parley-Session': token } : {}),
				},
				body: body === undefined ? undefined : file ? body : JSON.stringify(body),
			});
		} catch (error) {
			throw new CallError(0, String(error));
		}
		if (response.status === 204) return undefined as T;
		const json = (await response.json().catch(() => null)) as T | ErrorBody | null;
		if (response.ok) return json as T;
		if (response.status === 401 && token && token === this.token) {
			// Another tab may have started a new session meanwhile: take it rather than starting a third.
			const stored = load<string>(this.key);
			if (stored && stored !== token) this.token = stored;
			else this.forget(token);
			this.starting = undefined;
			this.onSessionLost();
		}
		const seconds = Number(response.headers.get('Retry-After'));
		throw new CallError(
			response.status,
			(json as ErrorBody | null)?.message ?? response.statusText,
			Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined,
		);
	}

	/**
	 * Sends a file's bytes to a public endpoint with XMLHttpRequest, whose upload reports its progress (fetch
	 * reports none); `progress` hears the fraction sent. Answers and refuses as `call` does.
	 */
	upload<T>(path: string, file: Blob, progress: (fraction: number) => void): Promise<T> {
		const token = this.token;
		return new Promise((resolve, reject) => {
			const request = new XMLHttpRequest();
			request.open('POST', `${this.api}/widget/${encodeURIComponent(this.workspaceId)}${path}`);
			request.responseType = 'json';
			request.setRequestHeader('Content-Type', 'application/octet-stream');
			if (token) request.setRequestHeader('Parley-Session', token);
			request.upload.onprogress = (event) => {
				if (event.lengthComputable) progress(event.loaded / event.total);
			};
			request.onload = () => {
				const json = request.response as (T & Partial<ErrorBody>) | null;
				if (request.status >= 200 && request.status < 300) resolve(json as T);
				else reject(new CallError(request.status, json?.message ?? request.statusText));
			};
			request.onerror = () => reject(new CallError(0, 'network error'));
			request.send(file);
		});
	}

	/** A file of one of the visitor's conversations (an attachment stored by Parley), as a Blob. */
	async file(conversationId: string, fileId: string): Promise<Blob> {
		const path = `/conversations/${encodeURIComponent(conversationId)}/files/${encodeURIComponent(fileId)}`;
		const response = await fetch(`${this.api}/widget/${encodeURIComponent(this.workspaceId)}${path}`, {
			headers: this.token ? { 'Parley-Session': this.token } : {},
		});
		if (!response.ok) throw new CallError(response.status, response.statusText);
		return response.blob();
	}

	/**
	 * Starts or resumes the session (once per page); sends the campaign origin so it is recorded. A stored
	 * token the Worker no longer knows (ended elsewhere, or idle for 30 days) comes back as a new session:
	 * that is a lost session too.
	 */
	session(origin: unknown): Promise<Session> {
		const epoch = this.epoch;
		const presented = this.token;
		const handed = this.handed;
		this.handed = undefined;
		const request = () =>
			this.call<Session>('POST', '/sessions', {
				...(presented ? { sessionToken: presented } : {}),
				...(origin ? { origin } : {}),
			});
		this.starting ??= (handed ? handed.catch(request) : request()).then(
			(session) => {
				if (epoch !== this.epoch) throw new CallError(401, 'the session was reset meanwhile');
				this.token = session.sessionToken;
				save(this.key, session.sessionToken);
				if (presented && !session.resumed) this.onSessionLost();
				return session;
			},
			(error) => {
				this.starting = undefined;
				throw error;
			},
		);
		return this.starting;
	}

	/**
	 * Forgets the session (reset, or a token the Worker no longer accepts): the next call starts anew. With
	 * `only`, the stored token is removed only if it is still that one (another tab may have replaced it).
	 */
	forget(only?: string): void {
		this.epoch++;
		this.token = undefined;
		this.starting = undefined;
		if (only === undefined || load<string>(this.key) === only) save(this.key, undefined);
	}

	/**
	 * Tells the Worker who the visitor is. A site calls identify on every page: the same visitor, said again in
	 * the same session, is not resent (null). Otherwise whether the identity was verified.
	 */
	async identify(identity: Identity): Promise<boolean | null> {
		const token = this.token;
		if (alreadyTold(this.workspaceId, token, identity)) return null;
		const answer = await this.call<{ verified: boolean }>('POST', '/identify', identity);
		if (token) markTold(this.workspaceId, token, identity);
		return answer.verified;
	}

	/** The visitor logs out: forgotten here at once, and the session ended on the Worker without waiting. */
	end(): void {
		const token = this.token;
		this.forget();
		save(`identity:${this.workspaceId}`, undefined);
		if (token) endSession(this.api, this.workspaceId, token);
	}

	conversations(): Promise<{ data: Conversation[] }> {
		return this.call('GET', '/conversations');
	}

	/** Opens the live socket of a conversation; `after` is the last seq already shown. */
	socket(conversationId: string, after: number): WebSocket {
		const url = new URL(`${this.api}/widget/${encodeURIComponent(this.workspaceId)}/conversations/`);
		url.pathname += `${encodeURIComponent(conversationId)}/live`;
		url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
		url.searchParams.set('after', String(after));
		return new WebSocket(url, ['parley.v1', `session.${this.token}`]);
	}
}

export interface LiveHandlers {
	message(message: Message): void;
	frame(frame: ServerFrame): void;
	/** True once the backlog has arrived and the socket is live; false when it dropped. */
	status(live: boolean): void;
	/** Several connections in a row failed before opening: the session or the conversation may be gone. */
	trouble(): void;
}

/**
 * One conversation's socket that stays connected: on a drop it reconnects (1 s doubling to 30 s) with the
 * last seq it has, so the Worker sends exactly the gap; a duplicate (seq already seen) is ignored.
 */
export class LiveConversation {
	private socket?: WebSocket;
	private retryMs = 1000;
	private failures = 0;
	private timer?: ReturnType<typeof setTimeout>;
	private ping?: ReturnType<typeof setInterval>;
	private stopped = false;

	constructor(
		private readonly client: VisitorClient,
		readonly conversationId: string,
		private lastSeq: number,
		private readonly on: LiveHandlers,
	) {
		this.connect();
	}

	get seq(): number {
		return this.lastSeq;
	}

	send(frame: unknown): boolean {
		if (this.socket?.readyState !== WebSocket.OPEN) return false;
		this.socket.send(JSON.stringify(frame));
		return true;
	}

	stop(): void {
		this.stopped = true;
		clearTimeout(this.timer);
		clearInterval(this.ping);
		const socket = this.socket;
		if (!socket) return;
		// Nothing from the old socket may reach the view that replaced it.
		socket.onmessage = socket.onclose = socket.onopen = null;
		socket.close(1000, 'closed by the widget');
	}

	private connect() {
		if (this.stopped || !this.client.hasSession) return;
		const socket = this.client.socket(this.conversationId, this.lastSeq);
		this.socket = socket;
		let opened = false;
		socket.onopen = () => {
			opened = true;
			this.failures = 0;
		};
		socket.onmessage = (event) => this.receive(JSON.parse(String(event.data)) as ServerFrame);
		socket.onclose = (event) => {
			clearInterval(this.ping);
			if (this.stopped || this.socket !== socket) return;
			this.on.status(false);
			// 4001: the session ended elsewhere (a reset in another tab); a refused upgrade (no session, no such
			// conversation, too many tabs) looks like a network error. Either way, check before knocking on.
			if (event.code === 4001 || (!opened && ++this.failures % 3 === 0)) this.on.trouble();
			this.timer = setTimeout(() => this.connect(), this.retryMs);
			this.retryMs = Math.min(this.retryMs * 2, 30_000);
		};
		// Keeps proxies from closing an idle socket; the runtime answers without waking the conversation.
		this.ping = setInterval(() => this.send({ type: 'ping' }), 25_000);
	}

	private receive(frame: ServerFrame) {
		if (frame.type === 'message') {
			if (frame.message.seq <= this.lastSeq) return;
			this.lastSeq = frame.message.seq;
			this.on.message(frame.message);
			return;
		}
		if (frame.type === 'synced') {
			this.retryMs = 1000;
			// A long backlog comes in parts: ask for the rest.
			if (!frame.complete) {
				this.retryMs = 50;
				this.socket?.close(1000, 'more backlog');
			} else this.on.status(true);
		}
		this.on.frame(frame);
	}
}
