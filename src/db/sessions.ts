/**
 * Which copy of D1 a request reads: a nearby read replica for the reads that may lag, the primary for
 * everything else, through D1's Sessions API. docs/EDGE.md sections 3 and 5 say why; D1's side:
 * https://developers.cloudflare.com/d1/worker-api/d1-database/#withsession and
 * https://developers.cloudflare.com/d1/best-practices/read-replication/.
 *
 * - `GET` and `HEAD` under `/v3/` (a socket upgrade apart) read through one session opened with the bookmark the
 *   client sent in `x-d1-bookmark`, or `first-unconstrained` without one: a replica may answer, but never with
 *   a state older than the bookmark, so an operator reads their own writes.
 * - Everything else (writes, their preconditions, the widget, webhooks, sign-in) runs each statement and each
 *   batch in a `first-primary` session of its own. A `first-primary` session sends only its first query to the
 *   primary (later ones may go to a replica), so one per statement keeps every read on the primary exactly as
 *   the plain binding does, and it still hands back a bookmark, which the plain binding never does.
 *
 * The answer carries the latest bookmark the request saw (bookmarks sort as strings, oldest first:
 * https://developers.cloudflare.com/d1/reference/glossary/). Without replication switched on for the database,
 * every session reads the primary, so this changes nothing until it is.
 *
 * Which database: the workspace's shard once the request knows its workspace (`routeRequest`: the caller's, or
 * the widget path's), the directory before (src/db/shards.ts). A statement finds its database when it runs.
 */

/** The header a client sends back and an answer carries. */
export const BOOKMARK_HEADER = 'x-d1-bookmark';

/** Longer than any bookmark D1 hands out (59 characters: `00000085-0000024c-00004c6d-<32 hex>`). */
const MAX_BOOKMARK_LENGTH = 100;
/**
 * D1's bookmarks are groups of hex digits joined by dashes. The exact grouping is not documented, so only the
 * alphabet is held to: anything else (a header a proxy mangled, a guess) is ignored, not passed to D1.
 */
const BOOKMARK = /^[0-9a-f]+(?:-[0-9a-f]+)*$/i;

/** The client's bookmark, when it has D1's shape; otherwise null (ignored, never an error). */
export function parseBookmark(header: string | null | undefined): string | null {
	if (!header || header.length > MAX_BOOKMARK_LENGTH || !BOOKMARK.test(header)) return null;
	return header;
}

/** Whether `request` only reads data that may be a moment old (docs/EDGE.md section 3). */
export function mayReadReplica(request: Request): boolean {
	if (request.method !== 'GET' && request.method !== 'HEAD') return false;
	// A socket upgrade checks what the socket may join (a permission) before a room or the hub takes it.
	if (request.headers.get('Upgrade')?.toLowerCase() === 'websocket') return false;
	return new URL(request.url).pathname.startsWith('/v3/');
}

/** The D1 handle a request's queries go through, and the latest bookmark they saw. */
export interface RequestSessions {
	/** What `openDatabase` wraps: `prepare` and `batch`, as drizzle and `runBatch` use them. */
	d1: D1Database;
	/** The latest of the client's bookmark, every session's and those noted; null when there is none. */
	bookmark(): string | null;
	/** Adds a bookmark of a write made on the request's behalf elsewhere (a conversation room's). */
	note(bookmark: string | null): void;
	/** From now on, the request's statements go to `workspaceId`'s database. */
	route(workspaceId: string): void;
}

/** Finds the database for the request's workspace (null: none known yet, the directory). */
export type Locate = (workspaceId: string | null) => D1Database | Promise<D1Database>;

const requests = new WeakMap<object, RequestSessions>();

/** Ties `sessions` to the request's handle `db`, so code that has only `db` can `noteBookmark`. */
export function bindSessions(db: object, sessions: RequestSessions): void {
	requests.set(db, sessions);
}

/**
 * Adds the bookmark of a D1 write a Durable Object made for this request (`POST /v3/messages`: the room's copy
 * of the message) to the answer's, so the caller's next read sees it. A no-op for a handle without sessions.
 */
export function noteBookmark(db: object, bookmark: string | null | undefined): void {
	if (bookmark) requests.get(db)?.note(bookmark);
}

/**
 * Makes a request's statements go to `workspaceId`'s database from now on (a no-op for a handle without
 * sessions: a Durable Object's or a consumer's, which open their workspace's database themselves).
 */
export function routeRequest(db: object, workspaceId: string): void {
	requests.get(db)?.route(workspaceId);
}

/**
 * Opens the request's D1 sessions. `GET /v3/conversations` with a bookmark reads a replica at least that fresh;
 * `POST /v3/messages` reads and writes the primary. `locate` finds the database when a statement runs.
 */
export function openRequestSessions(locate: Locate, request: Request): RequestSessions {
	const incoming = parseBookmark(request.headers.get(BOOKMARK_HEADER));
	let workspaceId: string | null = null;
	const target = async () => locate(workspaceId);
	const router = mayReadReplica(request) ? new ReplicaRouter(target, incoming) : new PrimaryRouter(target, incoming);
	let noted: string | null = null;
	return {
		d1: sessionD1(target, router),
		bookmark: () => latestBookmark(noted, ...router.bookmarks()),
		note: (bookmark) => {
			noted = latestBookmark(noted, bookmark);
		},
		route: (id) => {
			workspaceId = id;
		},
	};
}

/** Chooses the session each statement or batch runs in. */
interface Router {
	/** Runs one D1 call in the session it belongs to. */
	run<T>(call: (session: D1DatabaseSession) => Promise<T>): Promise<T>;
	/** The bookmarks the answer may carry: the sessions' and the client's, unless D1 refused the client's. */
	bookmarks(): (string | null)[];
}

/** Every call in a `first-primary` session of its own: each one reads the primary. */
class PrimaryRouter implements Router {
	/** The latest bookmark so far (a request may send thousands of statements: their sessions are not kept). */
	private newest: string | null;
	constructor(
		private readonly target: () => Promise<D1Database>,
		incoming: string | null,
	) {
		this.newest = incoming;
	}

	async run<T>(call: (session: D1DatabaseSession) => Promise<T>): Promise<T> {
		const session = (await this.target()).withSession('first-primary');
		try {
			return await call(session);
		} finally {
			this.newest = latestBookmark(this.newest, session.getBookmark());
		}
	}

	bookmarks(): (string | null)[] {
		return [this.newest];
	}
}

/**
 * One session for the whole request, so its reads are sequentially consistent with each other. When a call
 * fails because of the client's bookmark (one D1 cannot serve: from another database, or too old), the call is
 * made again, once, in a `first-primary` session, which the rest of the request then uses.
 */
class ReplicaRouter implements Router {
	/** The session, and the database it is a session of (a request routed to its workspace changes database). */
	private current: { binding: D1Database; session: D1DatabaseSession } | null = null;
	private retried = false;

	constructor(
		private readonly target: () => Promise<D1Database>,
		private readonly incoming: string | null,
	) {}

	async run<T>(call: (session: D1DatabaseSession) => Promise<T>): Promise<T> {
		const binding = await this.target();
		if (this.current?.binding !== binding) {
			const constraint = this.retried ? 'first-primary' : (this.incoming ?? 'first-unconstrained');
			this.current = { binding, session: binding.withSession(constraint) };
		}
		const current = this.current;
		try {
			return await call(current.session);
		} catch (error) {
			if (this.incoming === null || this.retried || !blamesBookmark(error)) throw error;
			this.retried = true;
			// The refused bookmark is dropped with its session, so the answer hands the client a good one.
			this.current = { binding, session: binding.withSession('first-primary') };
			return call(this.current.session);
		}
	}

	bookmarks(): (string | null)[] {
		// A session opened with the client's bookmark reports at least that one, even before its first query.
		const own = this.current?.session.getBookmark() ?? null;
		return this.retried ? [own] : [this.incoming, own];
	}
}

/**
 * Whether D1 refused a query because of the session's bookmark. D1 does not document that error's text, so
 * any error naming the bookmark counts; an SQL error never does.
 */
function blamesBookmark(error: unknown): boolean {
	return /bookmark/i.test(String(error));
}

/** The latest well-formed bookmark among `bookmarks` (they sort as strings), or null. */
export function latestBookmark(...bookmarks: (string | null)[]): string | null {
	let newest: string | null = null;
	for (const bookmark of bookmarks) {
		if (bookmark !== null && parseBookmark(bookmark) !== null && (newest === null || bookmark > newest)) {
			newest = bookmark;
		}
	}
	return newest;
}

/**
 * The binding as the request's handle sees it: a statement remembers its SQL and values, and picks its session
 * only when it runs, so a retry can send it again and a batch can send statements prepared separately.
 */
function sessionD1(target: () => Promise<D1Database>, router: Router): D1Database {
	const d1: Pick<D1Database, 'prepare' | 'batch' | 'exec' | 'withSession'> = {
		prepare: (query) => new SessionStatement(router, query, []) as unknown as D1PreparedStatement,
		batch: <T>(statements: D1PreparedStatement[]) =>
			router.run((session) =>
				session.batch<T>(statements.map((s) => (s as unknown as SessionStatement).preparedIn(session))),
			),
		// Not used by a request (migrations and maintenance only): the primary, as ever.
		exec: async (query) => (await target()).exec(query),
		withSession: () => {
			throw new Error("A request's handle picks its sessions itself (src/db/sessions.ts).");
		},
	};
	return d1 as D1Database;
}

/** A prepared statement whose session is chosen when it runs. */
class SessionStatement {
	constructor(
		private readonly router: Router,
		private readonly query: string,
		private readonly values: unknown[],
	) {}

	bind(...values: unknown[]): SessionStatement {
		return new SessionStatement(this.router, this.query, values);
	}

	/** This statement, prepared and bound in `session`. */
	preparedIn(session: D1DatabaseSession): D1PreparedStatement {
		const prepared = session.prepare(this.query);
		return this.values.length > 0 ? prepared.bind(...this.values) : prepared;
	}

	first(column?: string) {
		return this.router.run((s) =>
			column === undefined ? this.preparedIn(s).first() : this.preparedIn(s).first(column),
		);
	}

	run() {
		return this.router.run((s) => this.preparedIn(s).run());
	}

	all() {
		return this.router.run((s) => this.preparedIn(s).all());
	}

	raw(options?: { columnNames?: boolean }) {
		return this.router.run((s) =>
			options?.columnNames ? this.preparedIn(s).raw({ columnNames: true }) : this.preparedIn(s).raw(),
		);
	}
}
