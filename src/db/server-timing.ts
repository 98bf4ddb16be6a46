/**
 * Where a request's time went, sent back in `Server-Timing` next to the D1 statement count:
 *
 *     d1;desc="4 queries", token-gate;dur=1.2, post-message;dur=11.0, room-open;dur=0, room-stored;dur=1,
 *     room-d1;dur=6, d1-rows;desc="3+ read", hops;desc="2", total;dur=12.6
 *
 * - `d1-N`: the N-th D1 round trip sent through the request's handle (a statement, or a batch as
 *   `desc="batch 2: insert messages"`), described by its verb and first table, never by its values;
 * - a name given to `timed` (`token-gate`, `post-message`): any other awaited hop;
 * - names merged by `addSpans`: what a Durable Object measured inside its own call;
 * - `d1-rows`: the rows D1 read for the request (`meta.rows_read` of each answer; `+` when an answer did not
 *   say, as drizzle's query builder reads through `raw`);
 * - `hops`: the round trips the request waited for one after another (two sent together count once);
 * - `total`: from the `database` middleware to the header, the handler and its middleware included.
 *
 * Everything is keyed on the request's `Database` handle (a WeakMap, as the statement counter is), so domain
 * code that has `db` can time a hop without a context; a handle opened without a trace (a queue consumer, a
 * Durable Object) makes every call here a no-op. The Workers clock moves only with I/O (in whole milliseconds
 * locally): a span runs from the last I/O before it, so CPU work just before a hop counts in it, and the CPU
 * after the last I/O shows only in what the client measures beyond `total`.
 */
import { type Database, openDatabase, type QueryCounter } from './client';

/** Entries per header, all told: a request that sends more round trips shows its first ones and a count. */
const MAX_ENTRIES = 20;

interface Span {
	name: string;
	desc?: string;
	/** Start and end on the request's clock (ms); undefined for durations another object measured. */
	start?: number;
	end?: number;
	dur: number;
}

/** The spans of one request. */
class RequestTrace {
	private readonly started = performance.now();
	private readonly spans: Span[] = [];
	private roundTrips = 0;
	/** Rows D1 says its statements read (`meta.rows_read`), and the statements whose answer does not say. */
	private rowsRead = 0;
	private unmeasured = 0;

	/** Waits for `promise` and records how long that took as a span. */
	async time<T>(name: string, desc: string | undefined, promise: Promise<T>): Promise<T> {
		const start = performance.now();
		try {
			return await promise;
		} finally {
			const end = performance.now();
			this.spans.push({ name, desc, start, end, dur: end - start });
		}
	}

	/** A D1 round trip: numbered in the order it was sent. */
	d1<T>(desc: string, promise: Promise<T>): Promise<T> {
		this.roundTrips++;
		return this.time(`d1-${this.roundTrips}`, desc, promise);
	}

	add(name: string, dur: number): void {
		this.spans.push({ name, dur });
	}

	/** Counts the rows a D1 answer read; null for one that does not say (`raw`, `first`). */
	read(result: { meta?: { rows_read?: number } } | null): void {
		const rows = result?.meta?.rows_read;
		if (typeof rows === 'number') this.rowsRead += rows;
		else this.unmeasured++;
	}

	/** The header's entries after the D1 count. */
	entries(): string[] {
		const spans = [...this.spans].sort(
			(a, b) => (a.start ?? Number.POSITIVE_INFINITY) - (b.start ?? Number.POSITIVE_INFINITY),
		);
		// A `+` when some statement's answer did not say how many rows it read.
		const rows = this.roundTrips === 0 ? [] : [`d1-rows;desc="${this.rowsRead}${this.unmeasured > 0 ? '+' : ''} read"`];
		// Room for the D1 count, the rows, `hops`, `total` and, when cut, the count of the rest.
		const room = MAX_ENTRIES - 3 - rows.length;
		const fits = room - (spans.length > room ? 1 : 0);
		const shown = spans.slice(0, fits).map(({ name, desc, dur }) => {
			const entry = `${name};dur=${dur.toFixed(1)}`;
			return desc === undefined ? entry : `${entry};desc="${desc}"`;
		});
		if (spans.length > fits) shown.push(`more;desc="${spans.length - fits} entries"`);
		return [
			...shown,
			...rows,
			`hops;desc="${sequentialHops(spans)}"`,
			`total;dur=${(performance.now() - this.started).toFixed(1)}`,
		];
	}
}

/**
 * The longest run of spans that each started after the previous one ended (greedy by end time, which finds
 * the longest): the round trips the request waited for in turn. Two statements sent together count once; a
 * timed hop that contains statements counts as those statements.
 */
function sequentialHops(spans: Span[]): number {
	const timed = spans.filter((s) => s.start !== undefined && s.end !== undefined) as Required<Span>[];
	timed.sort((a, b) => a.end - b.end);
	let hops = 0;
	let free = Number.NEGATIVE_INFINITY;
	for (const span of timed) {
		if (span.start < free) continue;
		hops++;
		free = span.end;
	}
	return hops;
}

const traces = new WeakMap<Database, RequestTrace>();

/** The request's D1 handle (`openDatabase`), with every statement and batch it sends timed into its trace. */
export function openTracedDatabase(d1: D1Database, counter: QueryCounter): Database {
	const trace = new RequestTrace();
	const db = openDatabase(tracedD1(d1, trace), counter);
	traces.set(db, trace);
	return db;
}

/**
 * Times an awaited hop of the request that owns `db` under `name` (a token: letters, digits, `-`, `_`, `.`).
 * Returns what `promise` returns; without a trace on `db` it only waits.
 *
 * @example const answer = await timed(c.var.db, 'token-gate', gate.authorize(tokenHash, limit));
 */
export function timed<T>(db: Database, name: string, promise: Promise<T>): Promise<T> {
	const trace = traces.get(db);
	return trace ? trace.time(metricName(name), undefined, promise) : promise;
}

/**
 * Adds durations measured elsewhere on the request's behalf, e.g. the timings a Durable Object returns with
 * its answer, as entries `<prefix>-<name>`. They are shown, not counted as hops: the call that returned them
 * is the hop.
 *
 * @example addSpans(c.var.db, { append: 0.4, d1Write: 5.1 }, 'room') // room-append;dur=0.4, room-d1Write;dur=5.1
 */
export function addSpans(db: Database, spans: Record<string, number>, prefix?: string): void {
	const trace = traces.get(db);
	if (!trace) return;
	for (const [name, dur] of Object.entries(spans)) {
		if (Number.isFinite(dur)) trace.add(metricName(prefix === undefined ? name : `${prefix}-${name}`), dur);
	}
}

/** The trace's entries, to follow `d1;desc="N queries"` in the request's Server-Timing; empty without a trace. */
export function timingEntries(db: Database): string[] {
	return traces.get(db)?.entries() ?? [];
}

/** A Server-Timing metric name is a token: anything else in a caller's name becomes `_`. */
function metricName(name: string): string {
	return name.replace(/[^\w.-]/g, '_').slice(0, 40) || '_';
}

/**
 * The D1 binding as the request's handle sees it: the same calls, each round trip recorded. drizzle prepares,
 * binds and runs statements (`all`, `raw`, `run`, `first`) and `runBatch` sends `batch`. `d1` is already the
 * request's sessions (src/db/sessions.ts): `withSession` is passed through untimed, as nothing here opens one.
 */
function tracedD1(d1: D1Database, trace: RequestTrace): D1Database {
	const traced: Pick<D1Database, 'prepare' | 'batch' | 'exec' | 'withSession'> = {
		prepare: (query) => new TracedStatement(d1.prepare(query), query, trace) as unknown as D1PreparedStatement,
		batch: async <T>(statements: D1PreparedStatement[]) => {
			const results = await trace.d1<D1Result<T>[]>(
				describeBatch(statements.map((s) => (s instanceof TracedStatement ? s.query : ''))),
				d1.batch<T>(statements.map((s) => (s instanceof TracedStatement ? s.statement : s))),
			);
			for (const result of results) trace.read(result);
			return results;
		},
		exec: (query) => trace.d1(describeStatement(query), d1.exec(query)),
		withSession: (constraint) => d1.withSession(constraint),
	};
	return traced as D1Database;
}

/** A prepared statement that times its round trip; `batch` unwraps it. */
class TracedStatement {
	constructor(
		readonly statement: D1PreparedStatement,
		readonly query: string,
		private readonly trace: RequestTrace,
	) {}

	bind(...values: unknown[]): TracedStatement {
		return new TracedStatement(this.statement.bind(...values), this.query, this.trace);
	}

	first(column?: string) {
		const result = column === undefined ? this.statement.first() : this.statement.first(column);
		this.trace.read(null);
		return this.trace.d1(describeStatement(this.query), result);
	}

	async run() {
		const result = await this.trace.d1(describeStatement(this.query), this.statement.run());
		this.trace.read(result);
		return result;
	}

	async all() {
		const result = await this.trace.d1(describeStatement(this.query), this.statement.all());
		this.trace.read(result);
		return result;
	}

	raw(options?: { columnNames?: boolean }) {
		const result = options?.columnNames ? this.statement.raw({ columnNames: true }) : this.statement.raw();
		this.trace.read(null);
		return this.trace.d1(describeStatement(this.query), result);
	}
}

const VERB = /^\s*(select|insert|update|delete|replace|with|pragma|create|drop|alter|begin|commit|rollback)\b/i;

/**
 * `select conversations`: a statement's verb and first table, outside parentheses (a correlated subquery in
 * the column list is not the table read). Only keywords and identifiers, so never a value, even inlined.
 */
export function describeStatement(query: string): string {
	const verb = VERB.exec(query)?.[1]?.toLowerCase() ?? 'sql';
	const table = firstTable(query, verb);
	return table ? `${verb} ${table}` : verb;
}

function describeBatch(queries: string[]): string {
	const first = queries[0];
	return `batch ${queries.length}${first ? `: ${describeStatement(first)}` : ''}`;
}

/** The word after the keyword that names a table (`from`, `into`, `update`), at parenthesis depth 0. */
function firstTable(query: string, verb: string): string | null {
	const keyword = verb === 'insert' || verb === 'replace' ? 'into' : verb === 'update' ? 'update' : 'from';
	const words = /"(?:[^"]|"")*"|'(?:[^']|'')*'|[()]|[A-Za-z_][\w]*/g;
	let depth = 0;
	let afterKeyword = false;
	for (const [word] of query.matchAll(words)) {
		if (word === '(') depth++;
		else if (word === ')') depth = Math.max(0, depth - 1);
		else if (depth > 0 || word.startsWith("'")) afterKeyword = false;
		else if (afterKeyword) return word.startsWith('"') ? identifier(word.slice(1, -1)) : identifier(word);
		else afterKeyword = word.toLowerCase() === keyword;
	}
	return null;
}

/** A table name as shown: identifier characters only, so nothing else from the SQL can pass. */
function identifier(name: string): string | null {
	return /^\w{1,64}$/.test(name) ? name : null;
}
