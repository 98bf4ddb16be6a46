import { DurableObject } from 'cloudflare:workers';
import type { Caller, Credential } from '../src/app-env';
import { callerBySessionHash, callerByTokenHash, type GateAnswer } from '../src/auth/credentials';
import { openDatabase } from '../src/db/client';
import { credentialBinding } from '../src/db/shards';
import type { RateLimitDecision, WindowCount } from '../src/model/rate-limits';
import { FixedWindow } from './fixed-window';

/** How long a token's row read from D1 answers for it without a new read: a backstop, see `suspend`. */
const REVALIDATE_MS = 30_000;
/** How long a suspended gate reads D1 for every request: longer than any D1 write may take to commit. */
const SUSPEND_MS = 60_000;

/**
 * One per API token or console session, named by its hash: every request made with it passes through it once,
 * to learn whom it acts for and to count against its budget (one call, where a D1 read then a rate limiter
 * call were two hops in a row). A console session is checked the same way, with its own budget; signing out
 * or an admin revoking it suspends its gate like a regenerated token's.
 *
 * The token's row is read from D1 when the gate first sees the token, then kept in memory. A change to a
 * token's validity (a regeneration, an admin issuing the operator a new token) first `suspend`s the gate:
 * from then until SUSPEND_MS later, each request reads D1 itself, so whichever way the change and the
 * requests interleave, a request sent after the change has committed is refused. A change that failed to
 * reach the gate would still be seen within REVALIDATE_MS. The count is the operator's budget (an operator holds
 * one active token): a regeneration carries it over to the new token's gate (`carry`).
 */
export class TokenGate extends DurableObject<Env> {
	private readonly window = new FixedWindow();
	private cached: { caller: Caller | null; readAt: number } | null = null;
	/** The read in flight that later requests may share (never while suspended). */
	private reading: Promise<Caller | null> | null = null;
	/** Bumped by `suspend`: a read begun before it never fills the cache. */
	private generation = 0;
	private suspendedUntil = 0;

	/**
	 * Whom the token acts for (null for an unknown or revoked token, which counts nothing), and its request
	 * counted against `limit` a minute.
	 */
	async authorize(hash: string, limit: number, kind: Credential['kind'] = 'token'): Promise<GateAnswer> {
		const now = Date.now();
		const fresh = this.cached !== null && now - this.cached.readAt < REVALIDATE_MS && now >= this.suspendedUntil;
		const caller = fresh ? (this.cached?.caller ?? null) : await this.read(hash, kind);
		const d1Statements = fresh ? 0 : 1;
		if (!caller) return { caller: null, rate: null, d1Statements };
		return { caller, rate: this.window.hit(limit, 60, Date.now()), d1Statements };
	}

	/** Counts `units` against the budget at once (an operator socket's lease), without checking the token. */
	spend(limit: number, units: number): RateLimitDecision {
		return this.window.hit(limit, 60, Date.now(), units);
	}

	/**
	 * The token's validity is about to change: forget what was read, read D1 on every request for SUSPEND_MS,
	 * and hand back the count (for the token that replaces this one).
	 */
	suspend(): WindowCount {
		this.generation++;
		this.cached = null;
		this.reading = null;
		this.suspendedUntil = Date.now() + SUSPEND_MS;
		return this.window.snapshot();
	}

	/** Takes over the count of the token this one replaces: a new token is no fresh budget. */
	carry(count: WindowCount): void {
		this.window.absorb(count);
	}

	private read(hash: string, kind: Credential['kind']): Promise<Caller | null> {
		const suspended = Date.now() < this.suspendedUntil;
		// While suspended, each request reads for itself: one begun before the change committed must not answer
		// a request sent after it.
		if (this.reading && !suspended) return this.reading;
		const generation = this.generation;
		const readAt = Date.now();
		// The credential's row is in its workspace's shard: the directory routes its hash there (src/db/shards.ts).
		const lookup = credentialBinding(this.env, kind, hash).then((d1) => {
			const db = openDatabase(d1);
			return kind === 'token' ? callerByTokenHash(db, hash) : callerBySessionHash(db, hash, readAt);
		});
		const reading = lookup.then((caller) => {
			if (generation === this.generation && !suspended) this.cached = { caller, readAt };
			return caller;
		});
		if (!suspended) {
			this.reading = reading;
			const clear = () => {
				if (this.reading === reading) this.reading = null;
			};
			reading.then(clear, clear);
		}
		return reading;
	}
}
