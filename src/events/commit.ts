/**
 * The one way a change made by the Worker announces itself: `commit` writes the change's statements and its
 * events' outbox rows in one D1 batch (all or nothing: a change never commits without its events), and
 * `release` hands the committed events to the events Queue. Builders of a change return its statements and
 * events; the operation that runs them commits once and releases once. (A conversation's room keeps its own
 * outbox in its storage: see durable-objects/room-outbox.ts.)
 */
import { inArray, type SQL, sql } from 'drizzle-orm';
import { type Database, runBatch, type Statement } from '../db/client';
import { eventOutbox } from '../db/schema';
import { workspaceDb } from '../db/shards';
import type { DomainEvent } from '../model/events';
import { deliverEvents } from './deliver';
import { conditionalOutboxStatement, outboxStatements } from './outbox';

/** An event written only when `onlyIf` holds inside the batch: when a conditional change did happen. */
export interface ConditionalEvent {
	event: DomainEvent;
	onlyIf: SQL;
}

/**
 * The condition of an event written only when the statement right before it in the batch changed a row
 * (SQLite's `changes()`). `commit` writes plain events' rows, then conditional ones, after the change's
 * statements: use it in a change with one conditional event and no plain one, so nothing comes between.
 */
export const IF_CHANGED = sql`changes() > 0`;

export interface Change {
	statements: Statement[];
	events: Array<DomainEvent | ConditionalEvent>;
}

export interface Committed {
	/** D1's results of the change's own statements, in order. */
	results: D1Result[];
	/** The events that were written (a conditional one only when its condition held). */
	events: DomainEvent[];
}

/**
 * Runs the change in one batch with its events' outbox rows after its statements. `onError` may turn a
 * constraint failure into a domain error (a 409 for a lost race); it is rethrown otherwise.
 */
export async function commit(db: Database, change: Change, onError?: (error: unknown) => never): Promise<Committed> {
	try {
		const [committed] = await commitEach(db, [change]);
		return committed as Committed;
	} catch (error) {
		if (onError) onError(error);
		throw error;
	}
}

/**
 * Several independent changes in one batch (one round trip, all or nothing), each laid out as `commit` lays
 * out one (its statements, its plain events, its conditional ones), so each conditional event still follows
 * its own change's statements. Resolves with each change's outcome, in order.
 */
export async function commitEach(db: Database, changes: readonly Change[]): Promise<Committed[]> {
	if (changes.length === 0) return [];
	const layouts = changes.map((change) => {
		const plain = change.events.filter((e): e is DomainEvent => !('onlyIf' in e));
		const conditional = change.events.filter((e): e is ConditionalEvent => 'onlyIf' in e);
		const statements = [
			...change.statements,
			...outboxStatements(db, plain),
			...conditional.map((c) => conditionalOutboxStatement(c.event, c.onlyIf)),
		];
		return { own: change.statements.length, plain, conditional, statements };
	});
	const results = await runBatch(
		db,
		layouts.flatMap((layout) => layout.statements),
	);
	let offset = 0;
	return layouts.map((layout) => {
		const mine = results.slice(offset, offset + layout.statements.length);
		offset += layout.statements.length;
		const firstConditional = layout.statements.length - layout.conditional.length;
		const written = layout.conditional.filter((_, i) => (mine[firstConditional + i]?.meta.changes ?? 0) > 0);
		return { results: mine.slice(0, layout.own), events: [...layout.plain, ...written.map((c) => c.event)] };
	});
}

/** Delivers committed events to the Queue, then drops their outbox rows. Never throws: the sweep retries. */
export async function release(env: Env, events: DomainEvent[]): Promise<void> {
	if (events.length === 0) return;
	try {
		await deliverEvents(env, events);
		// A change is one workspace's, and its outbox rows are in that workspace's shard.
		for (const workspaceId of new Set(events.map((e) => e.workspaceId))) {
			const ids = events.filter((e) => e.workspaceId === workspaceId).map((e) => e.id);
			await (await workspaceDb(env, workspaceId)).delete(eventOutbox).where(inArray(eventOutbox.id, ids));
		}
	} catch (error) {
		console.error('event delivery failed; the outbox sweep will retry', error);
	}
}
