/**
 * A WhatsApp delivery's states and their writes. The claim (queued -> sending) is one conditional UPDATE, so
 * of two consumers handed the same delivery (a redelivered Queue message, the sweep's re-send) exactly one
 * proceeds; the other finds it sending or settled and sends nothing. Every later write is conditional on
 * `sending` too, so an outcome is recorded once. Meta's status webhooks move a sent delivery on (the inbound
 * side, by `wamid`).
 */
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import type { Database } from '../../../db/client';
import { whatsappDeliveries } from '../../../db/schema';
import type { WhatsappDeliveryStatus } from '../../../model/whatsapp';

export type WhatsappDeliveryRow = typeof whatsappDeliveries.$inferSelect;

/** Claims one queued delivery (see `claimDeliveries`); null when it is not queued (or not there). */
export async function claimDelivery(db: Database, id: string, now = Date.now()): Promise<WhatsappDeliveryRow | null> {
	return (await claimDeliveries(db, [id], now))[0] ?? null;
}

/** Deliveries claimed in one statement: D1 binds at most 100 parameters, the ids and the four of the update. */
export const CLAIM_CHUNK = 90;

/**
 * Claims each of `ids` that is queued for this consumer (`sending`, attempts + 1), in one statement per
 * CLAIM_CHUNK (a Queue batch's deliveries at once: the consumer's first write, before any of them waits for its
 * slot). Returns the claimed; one that is not queued (sent, or held by another consumer) is left alone.
 */
export async function claimDeliveries(db: Database, ids: readonly string[], now = Date.now()) {
	const claimed: WhatsappDeliveryRow[] = [];
	for (let i = 0; i < ids.length; i += CLAIM_CHUNK) {
		const rows = await db
			.update(whatsappDeliveries)
			.set({ status: 'sending', attempts: sql`${whatsappDeliveries.attempts} + 1`, updatedAt: now })
			.where(
				and(inArray(whatsappDeliveries.id, ids.slice(i, i + CLAIM_CHUNK)), eq(whatsappDeliveries.status, 'queued')),
			)
			.returning();
		claimed.push(...rows);
	}
	return claimed;
}

/** A write on a delivery this consumer holds (still `sending`). */
function held(db: Database, id: string, values: SQLiteUpdateSetSource<typeof whatsappDeliveries>) {
	return db
		.update(whatsappDeliveries)
		.set(values)
		.where(and(eq(whatsappDeliveries.id, id), eq(whatsappDeliveries.status, 'sending')));
}

/** Records one more of the message's bodies as accepted by Meta, before its last one. */
export async function recordPart(db: Database, row: WhatsappDeliveryRow, now = Date.now()) {
	await held(db, row.id, { partsSent: sql`${whatsappDeliveries.partsSent} + 1`, updatedAt: now });
}

/**
 * Every body went out: the delivery is `sent`, with the last body's WhatsApp id, in one write. Only then can a
 * status webhook find it (by that id) and move it on to delivered and read: written earlier, a webhook of a
 * first body could move it out of `sending` while the rest still goes. The earlier bodies' statuses are
 * Meta's to send and Parley's to ignore (their ids are not kept).
 */
export async function recordSent(
	db: Database,
	row: WhatsappDeliveryRow,
	wamid: string,
	parts: number,
	now = Date.now(),
) {
	await held(db, row.id, {
		status: 'sent',
		wamid,
		partsSent: parts,
		errorCode: null,
		error: null,
		sentAt: now,
		updatedAt: now,
	});
}

/**
 * Records a delivery that will not go (on): `failed` (Meta refused it, with its code) or `skipped` (Parley
 * chose not to send it: outside the 24-hour window, no number connected).
 */
export async function recordNotSent(
	db: Database,
	row: WhatsappDeliveryRow,
	status: 'failed' | 'skipped',
	reason: string,
	code: number | null = null,
	now = Date.now(),
) {
	await held(db, row.id, { status, errorCode: code, error: reason.slice(0, 500), updatedAt: now });
}

/**
 * Puts a claimed delivery back in the queue (nothing more was sent: Meta said so, or it was not called), with
 * the reason, for the Queue's retry or a delayed re-send to claim it again. The bodies already sent stay
 * counted.
 */
export async function releaseClaim(
	db: Database,
	row: WhatsappDeliveryRow,
	reason: string | null,
	code: number | null = null,
	now = Date.now(),
) {
	await held(db, row.id, {
		status: 'queued',
		errorCode: code,
		error: reason === null ? null : reason.slice(0, 500),
		updatedAt: now,
	});
}

/** A delivery by id, whatever its state. */
export async function deliveryById(db: Database, id: string): Promise<WhatsappDeliveryRow | undefined> {
	return db.select().from(whatsappDeliveries).where(eq(whatsappDeliveries.id, id)).get();
}

/** Deliveries in `status` whose last change is older than `before`: what the sweep looks at. */
export async function staleDeliveries(db: Database, status: WhatsappDeliveryStatus, before: number, limit: number) {
	return db
		.select()
		.from(whatsappDeliveries)
		.where(and(eq(whatsappDeliveries.status, status), lt(whatsappDeliveries.updatedAt, before)))
		.orderBy(whatsappDeliveries.updatedAt)
		.limit(limit);
}

/** Marks queued deliveries as just looked at, so the sweep re-sends each lost Queue message once per grace period. */
export async function touchQueued(db: Database, ids: string[], now = Date.now()) {
	if (ids.length === 0) return;
	await db
		.update(whatsappDeliveries)
		.set({ updatedAt: now })
		.where(and(inArray(whatsappDeliveries.id, ids), eq(whatsappDeliveries.status, 'queued')));
}
